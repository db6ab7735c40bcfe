#pragma once

#include "principal.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <functional>
#include <optional>

namespace Countersign {

// The per-request envelope every 2026-07-28 request carries in params._meta.
struct Envelope final
{
    QString protocolVersion;
    nlohmann::json clientCapabilities = nlohmann::json::object();
    nlohmann::json clientInfo; // null when the client sent none (it is optional)
    QString traceparent;
};

// A JSON-RPC request that passed the shape and envelope checks.
struct McpRequest final
{
    nlohmann::json id;
    QString method;
    nlohmann::json params = nlohmann::json::object();
    Envelope envelope;
};

// What a transport needs to answer: an HTTP status (ignored on stdio) and the JSON-RPC message,
// or no body at all for an accepted notification (HTTP 202, nothing written on stdio).
struct Reply final
{
    int httpStatus = 200;
    std::optional<nlohmann::json> body;
};

// Receives a Reply exactly once, possibly after the call that was handed it has returned.
using ReplyHandler = std::function<void(Reply)>;

enum class Transport { Http, Stdio };

// Who sent a request and how; every request is judged on its own.
struct CallContext final
{
    Principal principal;
    Transport transport = Transport::Http;
};

} // namespace Countersign
