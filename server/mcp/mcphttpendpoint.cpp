#include "mcphttpendpoint.h"

#include "dispatcher.h"
#include "headerchecks.h"
#include "jsonbody.h"
#include "jsonrpc.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcHttp, "countersign.http")

namespace Countersign {

McpHttpEndpoint::McpHttpEndpoint(const Dispatcher &dispatcher, Authenticator authenticate)
    : m_dispatcher(dispatcher), m_authenticate(std::move(authenticate))
{
}

HttpResponse McpHttpEndpoint::refusal(int status, int code, const QString &message)
{
    return HttpResponse::json(status,
                              QByteArray::fromStdString(JsonRpc::error(nullptr, code, message).dump()));
}

namespace {

HttpResponse toHttp(const Reply &reply)
{
    if (!reply.body) {
        HttpResponse accepted;
        accepted.status = reply.httpStatus;
        return accepted;
    }
    // error_handler::replace: a tool's output is never allowed to break the response encoding.
    return HttpResponse::json(
        reply.httpStatus, QByteArray::fromStdString(
                              reply.body->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

// The checks before the dispatcher; an answer here means the request goes no further.
std::optional<HttpResponse> refuseEarly(const HttpRequest &request,
                                        const McpHttpEndpoint::Authenticator &authenticate,
                                        std::optional<Principal> &principal)
{
    if (request.method != "POST") {
        HttpResponse r =
            McpHttpEndpoint::refusal(405, JsonRpc::kServerError, QStringLiteral("Method not allowed."));
        r.headers.append(qMakePair(QByteArray("Allow"), QByteArray("POST")));
        return r;
    }
    const auto host = request.header("host");
    if (!host || !HeaderChecks::isLoopbackHost(*host))
        return McpHttpEndpoint::refusal(
            403, JsonRpc::kServerError,
            QStringLiteral("Invalid Host: %1")
                .arg(host ? QString::fromLatin1(*host) : QStringLiteral("(missing)")));
    if (const auto origin = request.header("origin"); origin && !HeaderChecks::isAllowedOrigin(*origin))
        return McpHttpEndpoint::refusal(
            403, JsonRpc::kServerError,
            QStringLiteral("Invalid Origin: %1").arg(QString::fromLatin1(*origin)));

    const auto authorization = request.header("authorization");
    if (authorization && authorization->size() > 7 && authorization->left(7).toLower() == "bearer ")
        principal = authenticate(authorization->mid(7).trimmed());
    if (!principal) {
        HttpResponse r = McpHttpEndpoint::refusal(
            401, JsonRpc::kServerError,
            authorization ? QStringLiteral("Unauthorized: unknown or revoked bearer token")
                          : QStringLiteral("Unauthorized: send Authorization: Bearer <token> "
                                           "(create one with: countersign token add NAME)"));
        r.headers.append(
            qMakePair(QByteArray("WWW-Authenticate"), QByteArray("Bearer realm=\"countersign\"")));
        return r;
    }

    const QByteArray contentType = request.header("content-type").value_or(QByteArray()).toLower();
    const QByteArray mediaType = contentType.split(';').first().trimmed();
    if (mediaType != "application/json")
        return McpHttpEndpoint::refusal(
            415, JsonRpc::kServerError,
            QStringLiteral("Unsupported Media Type: Content-Type must be application/json"));
    return std::nullopt;
}

} // namespace

void McpHttpEndpoint::serve(const HttpRequest &request, Responder respond) const
{
    std::optional<Principal> principal;
    if (auto refused = refuseEarly(request, m_authenticate, principal))
        return respond(std::move(*refused));

    auto parsed = JsonBody::parse(request.body);
    if (!parsed)
        return respond(HttpResponse::json(
            400,
            QByteArray::fromStdString(JsonRpc::error(nullptr, JsonRpc::kParseError,
                                                     QStringLiteral("Parse error: %1").arg(parsed.error()))
                                          .dump())));

    const QString headerVersion =
        QString::fromLatin1(request.header("mcp-protocol-version").value_or(QByteArray()));
    auto classified = m_dispatcher.classify(parsed.value(), headerVersion);
    if (auto *early = std::get_if<Reply>(&classified))
        return respond(toHttp(*early));
    const McpRequest &mcp = std::get<McpRequest>(classified);
    if (auto headerError = HeaderChecks::check(mcp, request))
        return respond(toHttp(*headerError));
    m_dispatcher.handle(mcp, CallContext{*principal, Transport::Http},
                        [respond = std::move(respond)](Reply reply) { respond(toHttp(reply)); });
}

} // namespace Countersign
