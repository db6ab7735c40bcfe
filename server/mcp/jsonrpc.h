#pragma once

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>

namespace Countersign::JsonRpc {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerError = -32000; // transport-level refusals (405, 403, 401, 413, 415)
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

inline constexpr char kProtocolVersion[] = "2026-07-28";
// The 2025 revisions served beside it (initialize, then a session: Mcp-Session-Id over HTTP, the
// connection itself over stdio), newest first.
inline constexpr const char *kLegacyVersions[] = {"2025-11-25", "2025-06-18"};
inline bool isLegacyVersion(const QString &version)
{
    for (const char *v : kLegacyVersions) {
        if (version == QLatin1String(v))
            return true;
    }
    return false;
}
// What a request carrying the 2026-07-28 envelope may name (the "supported" of a refusal).
inline nlohmann::json supportedVersions()
{
    return nlohmann::json::array({kProtocolVersion});
}
inline constexpr char kMetaProtocolVersion[] = "io.modelcontextprotocol/protocolVersion";
inline constexpr char kMetaClientCapabilities[] = "io.modelcontextprotocol/clientCapabilities";
inline constexpr char kMetaClientInfo[] = "io.modelcontextprotocol/clientInfo";
inline constexpr char kMetaServerInfo[] = "io.modelcontextprotocol/serverInfo";

// An error response. id is the request's id, or null when it could not be read.
nlohmann::json error(const nlohmann::json &id, int code, const QString &message,
                     const nlohmann::json &data = nlohmann::json());
nlohmann::json response(const nlohmann::json &id, nlohmann::json result);
// A message as compact JSON bytes; invalid UTF-8 (a tool's output) is replaced, never allowed to
// break the encoding.
QByteArray encode(const nlohmann::json &message);

// A 2025-era call that waits for the human hears notifications/progress this often, when it sent
// a progress token (clients that reset their timeout on progress keep waiting).
inline constexpr int kProgressEveryMs = 10'000;
nlohmann::json waitingProgress(const nlohmann::json &progressToken, int progress);

// A request id is a string or an integer; never null, a float, a bool or a structure.
bool isValidId(const nlohmann::json &id);

} // namespace Countersign::JsonRpc
