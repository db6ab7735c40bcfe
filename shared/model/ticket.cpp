#include "ticket.h"

#include <nlohmann/json.hpp>

namespace Countersign {

nlohmann::json Ticket::toJson() const
{
    return {{"v", v},
            {"kid", kid.toStdString()},
            {"sub", sub.toStdString()},
            {"client", client.toStdString()},
            {"op", op.toStdString()},
            {"argsDigest", argsDigest.toStdString()},
            {"planDigest", planDigest.toStdString()},
            {"nonce", nonce.toStdString()},
            {"iat", iat},
            {"exp", exp}};
}

Result<Ticket> Ticket::fromJson(const nlohmann::json &value)
{
    if (!value.is_object() || value.size() != 10)
        return failure(QStringLiteral("ticket: not a ticket object"));
    const auto str = [&](const char *key, QString &out) {
        const auto it = value.find(key);
        if (it == value.end() || !it->is_string())
            return false;
        out = QString::fromStdString(it->get<std::string>());
        return true;
    };
    const auto num = [&](const char *key, qint64 &out) {
        const auto it = value.find(key);
        if (it == value.end() || !it->is_number_integer())
            return false;
        out = it->get<qint64>();
        return true;
    };
    Ticket t;
    qint64 version = 0;
    if (!num("v", version) || version != kVersion)
        return failure(QStringLiteral("ticket: unsupported version"));
    if (!str("kid", t.kid) || !str("sub", t.sub) || !str("client", t.client) || !str("op", t.op) ||
        !str("argsDigest", t.argsDigest) || !str("planDigest", t.planDigest) || !str("nonce", t.nonce) ||
        !num("iat", t.iat) || !num("exp", t.exp))
        return failure(QStringLiteral("ticket: a field is missing or has the wrong type"));
    return t;
}

} // namespace Countersign
