#include "hookendpoint.h"

#include "hookservice.h"
#include "httprequest.h"
#include "httpresponse.h"
#include "jsonbody.h"
#include "jsonrpc.h"

namespace Countersign {

namespace {

// An unreadable client name still gets a deny every client reads as one: the pre-tool shape.
HookAnswer refusal(const std::optional<HookClient> &client, const QString &why)
{
    return HookAnswer::deny(client.value_or(HookClient::ClaudeCode), HookCall::Event::Pre, why);
}

QString unknownClient(const QString &name)
{
    return QStringLiteral("Countersign has no hook for the client \"%1\"").arg(name.left(64));
}

HttpResponse forbidden(const QString &why)
{
    return HttpResponse::json(403, JsonRpc::encode(JsonRpc::error(nullptr, JsonRpc::kServerError, why)));
}

} // namespace

void HookEndpoint::serve(const HttpRequest &request, const LocalCaller::Checked &caller,
                         const Responder &respond) const
{
    const QString clientName = QString::fromLatin1(request.path().mid(qstrlen(kPath)));
    const auto client = HookClients::parse(clientName);
    const auto deny = [&](const QString &why) {
        respond(HttpResponse::json(200, refusal(client, why).stdoutText));
    };
    switch (caller.refusal) {
    case LocalCaller::Refusal::Host:
        return respond(forbidden(QStringLiteral("Invalid Host: %1").arg(caller.detail.left(256))));
    case LocalCaller::Refusal::Origin:
        return respond(forbidden(QStringLiteral("Invalid Origin: %1").arg(caller.detail.left(256))));
    default:
        break;
    }
    if (request.method != "POST")
        return deny(QStringLiteral("Countersign's hook endpoint takes POST only"));
    if (!client)
        return deny(unknownClient(clientName));
    if (caller.refusal == LocalCaller::Refusal::StoreUnreadable)
        return deny(QStringLiteral("Countersign cannot read its store, so nothing is allowed (%1)")
                        .arg(caller.detail));
    if (!caller.principal)
        return deny(QStringLiteral("Countersign does not know this hook's token (unknown or revoked), so "
                                   "nothing is allowed. Run: countersign hooks install %1")
                        .arg(HookClients::name(*client)));
    if (request.body.size() > HookCall::kMaxPayloadBytes)
        return deny(QStringLiteral("the hook payload is larger than %1 MiB")
                        .arg(int(HookCall::kMaxPayloadBytes >> 20)));
    auto payload = JsonBody::parse(request.body);
    if (!payload)
        return deny(QStringLiteral("Countersign could not read the hook payload: %1").arg(payload.error()));
    m_service.handle(*client, *caller.principal, Transport::Http, payload.value(),
                     [respond](HookAnswer answer) {
                         respond(HttpResponse::json(200, answer.stdoutText.isEmpty() ? QByteArray("{}")
                                                                                     : answer.stdoutText));
                     });
}

void HookEndpoint::serveLine(const QString &clientName, const Principal &who, const QByteArray &payload,
                             const LineAnswer &answer) const
{
    const auto client = HookClients::parse(clientName);
    const auto deny = [&](const QString &why) { answer(JsonRpc::encode(refusal(client, why).toJson())); };
    if (!client)
        return deny(unknownClient(clientName));
    auto parsed = JsonBody::parse(payload);
    if (!parsed)
        return deny(QStringLiteral("Countersign could not read the hook payload: %1").arg(parsed.error()));
    m_service.handle(*client, who, Transport::Unix, parsed.value(),
                     [answer](HookAnswer a) { answer(JsonRpc::encode(a.toJson())); });
}

} // namespace Countersign
