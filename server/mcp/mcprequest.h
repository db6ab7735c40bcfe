#pragma once

#include "callchannel.h"
#include "principal.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace Countersign {

// The elicitation modes a client declares in its capabilities.
struct ElicitationModes final
{
    bool form = false;
    bool url = false;
};

// The per-request envelope every 2026-07-28 request carries in params._meta, checked and parsed
// into typed values once, by the dispatcher (a mistyped field is refused there with -32602).
struct Envelope final
{
    QString protocolVersion;
    nlohmann::json clientCapabilities = nlohmann::json::object(); // verbatim, for the record
    nlohmann::json clientInfo; // verbatim (an object, or null when the client sent none)
    QString clientName;        // clientInfo.name, empty when none
    QString clientVersion;     // clientInfo.version, empty when none
    ElicitationModes elicitation;
    nlohmann::json progressToken; // _meta.progressToken: a string or an integer; null when none
    QString traceparent;
    // A 2025-era request (initialize, then a session): protocolVersion is the session's, clientInfo
    // and capabilities are those given at initialize.
    bool legacy = false;

    // The most either of clientInfo and clientCapabilities may take, as JSON text.
    static constexpr std::size_t kMaxClientBytes = 16 * 1024;
    // Sets clientCapabilities, clientInfo and the typed fields read from them. A field of the
    // wrong type, or larger than kMaxClientBytes, is not guessed at: the reason is returned and
    // nothing is set.
    std::optional<QString> readClient(const nlohmann::json &capabilities, const nlohmann::json &info);
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

    // A JSON-RPC error answered with status (id: the request's, or null when it could not be read).
    static Reply error(int status, const nlohmann::json &id, int code, const QString &message,
                       const nlohmann::json &data = nlohmann::json());
    // -32603 for a request whose reading or handling threw (messageOrId: the message, or its id):
    // nothing was run.
    static Reply internalError(const nlohmann::json &messageOrId);
};

// Receives a Reply exactly once, possibly after the call that was handed it has returned.
using ReplyHandler = std::function<void(Reply)>;

// Asks the client something in the middle of a call: sends elicitation/create with params on the
// call's channel (a 2025-era call's event stream, or its stdio connection) and hands answered the
// client's result, or nothing when the client answered with an error. answered may never be
// called (the client went away); it may be called after the call itself was answered.
using Elicitor = std::function<void(const nlohmann::json &params,
                                    std::function<void(std::optional<nlohmann::json> result)> answered)>;

// Who sent a request and how (Transport, CallCancel: callchannel.h); every request is judged on
// its own.
struct CallContext final
{
    CallContext(Principal who, Transport how, Elicitor ask = {})
        : principal(std::move(who)), transport(how), elicit(std::move(ask))
    {
    }

    Principal principal;
    Transport transport = Transport::Http;
    // Empty where the transport cannot ask the client (every 2026-07-28 request: those ask with
    // input_required instead; a task, whose request was answered at once).
    Elicitor elicit;
    // Set for a task-augmented call (2025-11-25): it is held until its card is decided or its
    // ticket expires, and may be cancelled.
    std::shared_ptr<CallCancel> task;
};

} // namespace Countersign
