#include "requestreader.h"

#include "jsonrpc.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcRequest, "countersign.dispatch")

namespace Countersign::RequestReader {

namespace {

using json = nlohmann::json;

std::variant<McpRequest, Reply> readChecked(const json &message, const QString &headerVersion,
                                            bool allowLegacy)
{
    if (message.is_array())
        return Reply::error(
            400, nullptr, JsonRpc::kInvalidRequest,
            QStringLiteral("Bad Request: JSON-RPC batches may not contain requests for protocol "
                           "revision 2026-07-28 or later"));
    if (!message.is_object())
        return Reply::error(400, nullptr, JsonRpc::kInvalidRequest,
                            QStringLiteral("Invalid Request: the message must be a JSON-RPC object"));

    const auto idIt = message.find("id");
    const bool hasId = idIt != message.end();
    const json id = hasId && JsonRpc::isValidId(*idIt) ? *idIt : json();
    const auto version = message.find("jsonrpc");
    if (version == message.end() || *version != "2.0")
        return Reply::error(400, id, JsonRpc::kInvalidRequest,
                            QStringLiteral("Invalid Request: jsonrpc must be \"2.0\""));
    if (hasId && !JsonRpc::isValidId(*idIt))
        return Reply::error(400, nullptr, JsonRpc::kInvalidRequest,
                            QStringLiteral("Invalid Request: id must be a string or an integer"));
    const auto methodIt = message.find("method");
    if (methodIt == message.end()) {
        // A response posted by a client; servers never send requests, so nothing may answer them.
        return Reply::error(400, id, JsonRpc::kInvalidRequest,
                            QStringLiteral("Invalid Request: clients may not post responses to this server"));
    }
    if (!methodIt->is_string() || methodIt->get_ref<const std::string &>().empty() ||
        methodIt->get_ref<const std::string &>().size() > 256)
        return Reply::error(400, id, JsonRpc::kInvalidRequest,
                            QStringLiteral("Invalid Request: method must be a string"));
    const auto paramsIt = message.find("params");
    if (paramsIt != message.end() && !paramsIt->is_object())
        return Reply::error(400, id, JsonRpc::kInvalidRequest,
                            QStringLiteral("Invalid Request: params must be an object"));

    if (!hasId) // notifications: nothing to answer, and no client notification changes server state
        return Reply{202, std::nullopt};

    McpRequest request;
    request.id = id;
    request.method = QString::fromStdString(methodIt->get<std::string>());
    if (paramsIt != message.end())
        request.params = *paramsIt;

    const json *meta = nullptr;
    if (const auto m = request.params.find("_meta"); m != request.params.end() && m->is_object())
        meta = &*m;
    const bool claimsEnvelope = meta && meta->contains(JsonRpc::kMetaProtocolVersion);
    if (!claimsEnvelope && allowLegacy &&
        (headerVersion.isEmpty() || JsonRpc::isLegacyVersion(headerVersion))) {
        // A 2025-era request: the handshake, or one the transport matches to its session.
        request.envelope.legacy = true;
        request.envelope.protocolVersion = headerVersion;
        if (request.method == QLatin1String("initialize")) {
            const json asked = request.params.value("protocolVersion", json());
            const QString askedVersion =
                asked.is_string() ? QString::fromStdString(asked.get<std::string>()) : QString();
            // A version this server does not speak gets its newest 2025 one as the counter-offer.
            request.envelope.protocolVersion = JsonRpc::isLegacyVersion(askedVersion)
                                                   ? askedVersion
                                                   : QLatin1String(JsonRpc::kLegacyVersions[0]);
            const json capabilities = request.params.value("capabilities", json::object());
            if (!capabilities.is_object())
                return Reply::error(400, id, JsonRpc::kInvalidParams,
                                    QStringLiteral("Invalid params: capabilities must be an object"));
            if (auto refused =
                    request.envelope.readClient(capabilities, request.params.value("clientInfo", json())))
                return Reply::error(400, id, JsonRpc::kInvalidParams,
                                    QStringLiteral("Invalid params: %1").arg(*refused));
        }
        return request;
    }
    if (!claimsEnvelope) {
        // A 2025-11-25 (legacy) request. This server speaks only 2026-07-28.
        if (headerVersion == QLatin1String(JsonRpc::kProtocolVersion) &&
            request.method != QLatin1String("initialize"))
            return Reply::error(
                400, id, JsonRpc::kInvalidParams,
                QStringLiteral("Invalid params: the MCP-Protocol-Version header names protocol revision "
                               "2026-07-28, but the request is missing the required per-request "
                               "envelope key(s): _meta"),
                {{"envelope", {{"missing", json::array({"_meta"})}}}});
        if (request.method == QLatin1String("initialize") && !headerVersion.isEmpty() &&
            headerVersion == QLatin1String(JsonRpc::kProtocolVersion))
            return Reply::error(
                400, id, JsonRpc::kHeaderMismatch,
                QStringLiteral("Bad Request: the request headers and body disagree: an initialize "
                               "request (legacy handshake) was sent with a modern "
                               "MCP-Protocol-Version header"),
                {{"mismatch",
                  {{"header", headerVersion.toStdString()},
                   {"body", "an initialize request (legacy handshake) was sent with a modern "
                            "MCP-Protocol-Version header"}}}});
        json data = {{"supported", JsonRpc::supportedVersions()}};
        QString requested = headerVersion;
        if (request.method == QLatin1String("initialize")) {
            const auto pv = request.params.find("protocolVersion");
            requested = pv != request.params.end() && pv->is_string()
                            ? QString::fromStdString(pv->get<std::string>())
                            : QString();
        }
        if (!requested.isEmpty())
            data["requested"] = requested.toStdString();
        return Reply::error(400, id, JsonRpc::kUnsupportedProtocolVersion,
                            QStringLiteral("Unsupported protocol version: %1")
                                .arg(requested.isEmpty() ? QStringLiteral("(none)") : requested),
                            data);
    }

    const json &pv = meta->at(JsonRpc::kMetaProtocolVersion);
    if (!pv.is_string() || pv.get_ref<const std::string &>().empty())
        return Reply::error(400, id, JsonRpc::kInvalidParams,
                            QStringLiteral("Invalid _meta envelope for protocol revision 2026-07-28: "
                                           "io.modelcontextprotocol/protocolVersion: must be a string"),
                            {{"envelope", {{"key", JsonRpc::kMetaProtocolVersion}, {"problem", "invalid"}}}});
    const auto caps = meta->find(JsonRpc::kMetaClientCapabilities);
    if (caps == meta->end() || !caps->is_object()) {
        const char *problem = caps == meta->end() ? "missing" : "invalid";
        return Reply::error(
            400, id, JsonRpc::kInvalidParams,
            QStringLiteral("Invalid _meta envelope for protocol revision 2026-07-28: "
                           "io.modelcontextprotocol/clientCapabilities: %1")
                .arg(QLatin1String(problem)),
            {{"envelope", {{"key", JsonRpc::kMetaClientCapabilities}, {"problem", problem}}}});
    }
    request.envelope.protocolVersion = QString::fromStdString(pv.get<std::string>());
    const auto info = meta->find(JsonRpc::kMetaClientInfo);
    if (auto refused = request.envelope.readClient(*caps, info != meta->end() ? *info : json())) {
        qCInfo(lcRequest) << "refused a request with a mistyped envelope:" << *refused;
        return Reply::error(
            400, id, JsonRpc::kInvalidParams,
            QStringLiteral("Invalid _meta envelope for protocol revision 2026-07-28: %1").arg(*refused));
    }
    if (const auto token = meta->find("progressToken"); token != meta->end()) {
        if (!token->is_string() && !token->is_number_integer()) {
            qCInfo(lcRequest) << "refused a request with a mistyped progress token";
            return Reply::error(
                400, id, JsonRpc::kInvalidParams,
                QStringLiteral("Invalid _meta.progressToken: it must be a string or an integer"));
        }
        request.envelope.progressToken = *token;
    }
    if (const auto tp = meta->find("traceparent"); tp != meta->end() && tp->is_string() && tp->size() <= 55)
        request.envelope.traceparent = QString::fromStdString(tp->get<std::string>());
    return request;
}

} // namespace

std::variant<McpRequest, Reply> read(const json &message, const QString &headerVersion, bool allowLegacy)
{
    try {
        return readChecked(message, headerVersion, allowLegacy);
    } catch (const std::exception &e) {
        qCCritical(lcRequest) << "internal error reading a request:" << e.what();
    } catch (...) {
        qCCritical(lcRequest) << "internal error reading a request";
    }
    return Reply::internalError(message);
}

std::optional<Reply> joinSession(McpRequest &request, const Envelope &session)
{
    request.envelope = session;
    request.envelope.legacy = true;
    const auto meta = request.params.find("_meta");
    if (meta == request.params.end() || !meta->is_object())
        return std::nullopt;
    const auto token = meta->find("progressToken");
    if (token == meta->end())
        return std::nullopt;
    if (!token->is_string() && !token->is_number_integer())
        return Reply::error(200, request.id, JsonRpc::kInvalidParams,
                            QStringLiteral("Invalid _meta.progressToken: it must be a string or an integer"));
    request.envelope.progressToken = *token;
    return std::nullopt;
}

Reply noSession(const json &id)
{
    return Reply::error(
        400, id, JsonRpc::kUnsupportedProtocolVersion,
        QStringLiteral("Unsupported protocol version: send the 2026-07-28 _meta envelope, "
                       "or initialize a 2025-11-25 session first"),
        {{"supported",
          {JsonRpc::kProtocolVersion, JsonRpc::kLegacyVersions[0], JsonRpc::kLegacyVersions[1]}}});
}

} // namespace Countersign::RequestReader
