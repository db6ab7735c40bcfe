#pragma once

#include "mcprequest.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <optional>
#include <variant>

// Reading one JSON-RPC message into an McpRequest, the first step of the mcp room for every
// transport: its shape, the protocol era, and the 2026-07-28 _meta envelope, typed once. What is
// read here goes to the dispatcher; nothing here runs a method.
namespace Countersign::RequestReader {

// A Reply means the message is answered already (an error, or 202 for a notification).
// headerVersion is the MCP-Protocol-Version header, if the transport has one. With allowLegacy
// (transports that keep sessions), a request without the envelope is a 2025-era one
// (envelope.legacy): an initialize, or a request the transport must match to its session; without
// it such a request is refused with the supported versions. Whatever the message makes throw is
// answered -32603.
std::variant<McpRequest, Reply> read(const nlohmann::json &message, const QString &headerVersion = {},
                                     bool allowLegacy = false);

// A 2025-era request after initialize takes its session's envelope (version, clientInfo,
// capabilities) and its own progress token; a mistyped token is answered here.
std::optional<Reply> joinSession(McpRequest &request, const Envelope &session);
// The answer to a request with neither the 2026-07-28 envelope nor a 2025-era session.
Reply noSession(const nlohmann::json &id);

} // namespace Countersign::RequestReader
