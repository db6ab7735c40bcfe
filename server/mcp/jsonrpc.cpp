#include "jsonrpc.h"

namespace Countersign::JsonRpc {

nlohmann::json error(const nlohmann::json &id, int code, const QString &message, const nlohmann::json &data)
{
    nlohmann::json err = {{"code", code}, {"message", message.toStdString()}};
    if (!data.is_null())
        err["data"] = data;
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

nlohmann::json response(const nlohmann::json &id, nlohmann::json result)
{
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

QByteArray encode(const nlohmann::json &message)
{
    return QByteArray::fromStdString(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

nlohmann::json waitingProgress(const nlohmann::json &progressToken, int progress)
{
    return {{"jsonrpc", "2.0"},
            {"method", "notifications/progress"},
            {"params",
             {{"progressToken", progressToken},
              {"progress", progress},
              {"message", "waiting for a human in the Countersign window"}}}};
}

bool isValidId(const nlohmann::json &id)
{
    return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

} // namespace Countersign::JsonRpc
