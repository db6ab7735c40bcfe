#include "subscription.h"

#include "jsonrpc.h"

namespace Countersign {

namespace {

constexpr char kMetaSubscriptionId[] = "io.modelcontextprotocol/subscriptionId";

} // namespace

Result<Subscription> Subscription::fromRequest(const McpRequest &request)
{
    const auto filter = request.params.find("notifications");
    if (filter == request.params.end() || !filter->is_object())
        return failure(QStringLiteral("Invalid params: notifications must be an object"));
    for (const char *flag : {"toolsListChanged", "promptsListChanged", "resourcesListChanged"}) {
        const auto it = filter->find(flag);
        if (it != filter->end() && !it->is_boolean())
            return failure(QStringLiteral("Invalid params: notifications.%1 must be a boolean")
                               .arg(QLatin1String(flag)));
    }
    if (const auto uris = filter->find("resourceSubscriptions"); uris != filter->end()) {
        if (!uris->is_array() ||
            !std::all_of(uris->begin(), uris->end(), [](const nlohmann::json &u) { return u.is_string(); }))
            return failure(QStringLiteral(
                "Invalid params: notifications.resourceSubscriptions must be an array of strings"));
    }
    // The id goes into every message on the stream: a long one would make each of them long.
    if (request.id.dump().size() > kMaxIdBytes)
        return failure(
            QStringLiteral("Invalid params: a subscriptions/listen id is at most %1 bytes").arg(kMaxIdBytes));
    Subscription s;
    s.m_id = request.id;
    s.m_tools = filter->value("toolsListChanged", false);
    return s;
}

nlohmann::json Subscription::meta() const
{
    return {{kMetaSubscriptionId, m_id}};
}

nlohmann::json Subscription::acknowledged() const
{
    nlohmann::json honoured = nlohmann::json::object();
    if (m_tools)
        honoured["toolsListChanged"] = true;
    return {{"jsonrpc", "2.0"},
            {"method", "notifications/subscriptions/acknowledged"},
            {"params", {{"_meta", meta()}, {"notifications", honoured}}}};
}

nlohmann::json Subscription::toolsChanged() const
{
    return {
        {"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}, {"params", {{"_meta", meta()}}}};
}

nlohmann::json Subscription::ended() const
{
    return JsonRpc::response(m_id, {{"resultType", "complete"}, {"_meta", meta()}});
}

} // namespace Countersign
