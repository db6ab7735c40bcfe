#include "mcphttpendpoint.h"

#include "dispatcher.h"
#include "headerchecks.h"
#include "jsonbody.h"
#include "jsonrpc.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QTimer>

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
    if (request.method != "POST" && request.method != "DELETE") {
        HttpResponse r =
            McpHttpEndpoint::refusal(405, JsonRpc::kServerError, QStringLiteral("Method not allowed."));
        r.headers.append(qMakePair(QByteArray("Allow"), QByteArray("POST, DELETE")));
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

    if (request.method == "DELETE")
        return std::nullopt; // ends a 2025-era session: no body
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
    if (request.method == "DELETE") {
        const QByteArray id = request.header("mcp-session-id").value_or(QByteArray());
        if (id.isEmpty())
            return respond(
                refusal(400, JsonRpc::kInvalidRequest,
                        QStringLiteral("Bad Request: DELETE ends a session; send its Mcp-Session-Id")));
        if (!m_sessions.close(id, *principal))
            return respond(refusal(404, JsonRpc::kInvalidRequest, QStringLiteral("Session not found")));
        HttpResponse ended;
        ended.status = 204;
        return respond(ended);
    }

    auto parsed = JsonBody::parse(request.body);
    if (!parsed)
        return respond(HttpResponse::json(
            400,
            QByteArray::fromStdString(JsonRpc::error(nullptr, JsonRpc::kParseError,
                                                     QStringLiteral("Parse error: %1").arg(parsed.error()))
                                          .dump())));

    const QString headerVersion =
        QString::fromLatin1(request.header("mcp-protocol-version").value_or(QByteArray()));
    auto classified = m_dispatcher.classify(parsed.value(), headerVersion, true);
    if (auto *early = std::get_if<Reply>(&classified))
        return respond(toHttp(*early));
    const McpRequest &mcp = std::get<McpRequest>(classified);
    if (mcp.envelope.legacy)
        return serveLegacy(mcp, request, *principal, std::move(respond));
    if (auto headerError = HeaderChecks::check(mcp, request))
        return respond(toHttp(*headerError));
    m_dispatcher.handle(mcp, CallContext{*principal, Transport::Http},
                        [respond = std::move(respond)](Reply reply) { respond(toHttp(reply)); });
}

// A 2025-era request: initialize opens a session; every other request must name a live one of this
// connection, whose envelope (version, clientInfo, capabilities) it then carries.
void McpHttpEndpoint::serveLegacy(McpRequest request, const HttpRequest &http, const Principal &principal,
                                  Responder respond) const
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (request.method == QLatin1String("initialize")) {
        const QByteArray session = m_sessions.open(principal, request.envelope, now);
        return m_dispatcher.handle(request, CallContext{principal, Transport::Http},
                                   [session, respond = std::move(respond)](Reply reply) {
                                       HttpResponse r = toHttp(reply);
                                       r.headers.append(qMakePair(QByteArray("Mcp-Session-Id"), session));
                                       respond(std::move(r));
                                   });
    }
    const QByteArray id = http.header("mcp-session-id").value_or(QByteArray());
    if (id.isEmpty()) // no envelope and no session: neither era's request
        return respond(toHttp(Dispatcher::noSession(request.id)));
    auto envelope = m_sessions.find(id, principal, now);
    if (!envelope)
        return respond(
            refusal(404, JsonRpc::kInvalidRequest, QStringLiteral("Session not found: initialize again")));
    if (!request.envelope.protocolVersion.isEmpty() &&
        request.envelope.protocolVersion != envelope->protocolVersion)
        return respond(toHttp(Reply{
            400, JsonRpc::error(request.id, JsonRpc::kHeaderMismatch,
                                QStringLiteral("Bad Request: MCP-Protocol-Version %1 is not the session's %2")
                                    .arg(request.envelope.protocolVersion, envelope->protocolVersion))}));
    if (auto refused = Dispatcher::joinSession(request, *envelope))
        return respond(toHttp(*refused));
    if (request.method == QLatin1String("tools/call") && !request.envelope.progressToken.is_null() &&
        http.header("accept").value_or(QByteArray()).contains("text/event-stream"))
        return callWithProgress(request, principal, std::move(respond));
    m_dispatcher.handle(request, CallContext{principal, Transport::Http},
                        [respond = std::move(respond)](Reply reply) { respond(toHttp(reply)); });
}

// A 2025-era call that may wait for the human, from a client that sent a progress token: if it is
// still unanswered after kProgressEveryMs, the answer becomes an event stream with
// notifications/progress every kProgressEveryMs (clients that reset their timeout on progress keep
// waiting), and the result as its last event.
void McpHttpEndpoint::callWithProgress(const McpRequest &request, const Principal &principal,
                                       Responder respond) const
{
    struct Progress
    {
        bool streaming = false;
        bool answered = false;
        int sent = 0;
    };
    const auto event = [](const nlohmann::json &message) {
        return "event: message\ndata: " +
               QByteArray::fromStdString(
                   message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
               "\n\n";
    };
    auto state = std::make_shared<Progress>();
    auto timer = std::make_shared<QTimer>();
    timer->setInterval(kProgressEveryMs);
    QObject::connect(
        timer.get(), &QTimer::timeout, [state, respond, event, token = request.envelope.progressToken] {
            if (state->answered)
                return;
            HttpResponse part;
            part.stream = state->streaming ? HttpResponse::Stream::More : HttpResponse::Stream::Open;
            if (!state->streaming)
                part.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
            state->streaming = true;
            part.body = event(JsonRpc::waitingProgress(token, ++state->sent));
            respond(std::move(part));
        });
    timer->start();
    m_dispatcher.handle(request, CallContext{principal, Transport::Http},
                        [state, timer, respond, event](Reply reply) {
                            state->answered = true;
                            timer->stop();
                            if (!state->streaming || !reply.body)
                                return respond(toHttp(reply));
                            HttpResponse last;
                            last.stream = HttpResponse::Stream::End;
                            last.body = event(*reply.body);
                            respond(std::move(last));
                        });
}

} // namespace Countersign
