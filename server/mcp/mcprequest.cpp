#include "mcprequest.h"

#include "jsonrpc.h"

namespace Countersign {

Reply Reply::error(int status, const nlohmann::json &id, int code, const QString &message,
                   const nlohmann::json &data)
{
    return Reply{status, JsonRpc::error(id, code, message, data)};
}

Reply Reply::internalError(const nlohmann::json &messageOrId)
{
    nlohmann::json id = messageOrId;
    if (messageOrId.is_object()) {
        const auto it = messageOrId.find("id");
        id = it != messageOrId.end() && JsonRpc::isValidId(*it) ? *it : nlohmann::json();
    }
    return error(500, JsonRpc::isValidId(id) ? id : nlohmann::json(), JsonRpc::kInternalError,
                 QStringLiteral("Internal error: the request could not be handled; nothing was run"));
}

std::optional<QString> Envelope::readClient(const nlohmann::json &capabilities, const nlohmann::json &info)
{
    // Kept with every session and call: a client's account of itself is small, and one that is not
    // would pin memory per session (issue 26, B4) and be laid out on every card.
    for (const auto &[field, value] :
         {std::pair{"clientInfo", &info}, std::pair{"clientCapabilities", &capabilities}}) {
        if (value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size() > kMaxClientBytes)
            return QStringLiteral("io.modelcontextprotocol/%1 is larger than %2 KiB")
                .arg(QLatin1String(field))
                .arg(kMaxClientBytes / 1024);
    }
    // The agent's words about itself: typed here once, so nothing later reads a number as a name.
    QString name, version;
    if (!info.is_null()) {
        if (!info.is_object())
            return QStringLiteral("io.modelcontextprotocol/clientInfo must be an object");
        const auto n = info.find("name");
        if (n != info.end() && !n->is_string())
            return QStringLiteral("io.modelcontextprotocol/clientInfo.name must be a string");
        const auto v = info.find("version");
        if (v != info.end() && !v->is_string())
            return QStringLiteral("io.modelcontextprotocol/clientInfo.version must be a string");
        name = n != info.end() ? QString::fromStdString(n->get<std::string>()) : QString();
        version = v != info.end() ? QString::fromStdString(v->get<std::string>()) : QString();
    }
    if (!capabilities.is_object())
        return QStringLiteral("io.modelcontextprotocol/clientCapabilities must be an object");
    ElicitationModes modes;
    if (const auto e = capabilities.find("elicitation"); e != capabilities.end() && !e->is_null()) {
        if (!e->is_object())
            return QStringLiteral("clientCapabilities.elicitation must be an object");
        if (const auto f = e->find("form"); f != e->end() && !f->is_object())
            return QStringLiteral("clientCapabilities.elicitation.form must be an object");
        if (const auto u = e->find("url"); u != e->end() && !u->is_object())
            return QStringLiteral("clientCapabilities.elicitation.url must be an object");
        modes.form = e->empty() || e->contains("form"); // a bare {} means form
        modes.url = e->contains("url");
    }
    clientCapabilities = capabilities;
    clientInfo = info.is_object() ? info : nlohmann::json();
    clientName = name;
    clientVersion = version;
    elicitation = modes;
    return std::nullopt;
}

} // namespace Countersign
