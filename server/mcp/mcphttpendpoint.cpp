#include "mcphttpendpoint.h"

#include "dispatcher.h"
#include "headerchecks.h"
#include "jsonbody.h"
#include "jsonrpc.h"
#include "requestreader.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QTimer>

Q_LOGGING_CATEGORY(lcHttp, "countersign.http")

namespace Countersign {

McpHttpEndpoint::McpHttpEndpoint(const Dispatcher &dispatcher) : m_dispatcher(dispatcher)
{
    setConnectionCheck({});
}

void McpHttpEndpoint::setConnectionCheck(ListenStreams::ConnectionCheck check) const
{
    // A session whose client holds its stream open is in use: asking keeps it alive.
    m_streams.setChecks(std::move(check), [this](const QByteArray &session, qint64 principalId) {
        return m_sessions.find(session, Principal{principalId, {}, {}}, QDateTime::currentMSecsSinceEpoch())
            .has_value();
    });
}

HttpResponse McpHttpEndpoint::refusal(int status, int code, const QString &message)
{
    return HttpResponse::json(status,
                              QByteArray::fromStdString(JsonRpc::error(nullptr, code, message).dump()));
}

HttpResponse McpHttpEndpoint::serverRefusal(int status, const QString &reason)
{
    return refusal(status, JsonRpc::kServerError, reason);
}

namespace {

HttpResponse toHttp(const Reply &reply)
{
    if (!reply.body) {
        HttpResponse accepted;
        accepted.status = reply.httpStatus;
        return accepted;
    }
    return HttpResponse::json(reply.httpStatus, JsonRpc::encode(*reply.body));
}

// The checks before the message is read; an answer here means the request goes no further.
std::optional<HttpResponse> refuseEarly(const HttpRequest &request, const LocalCaller::Checked &caller)
{
    if (request.method != "POST" && request.method != "DELETE" && request.method != "GET") {
        HttpResponse r =
            McpHttpEndpoint::refusal(405, JsonRpc::kServerError, QStringLiteral("Method not allowed."));
        r.headers.append(qMakePair(QByteArray("Allow"), QByteArray("GET, POST, DELETE")));
        return r;
    }
    switch (caller.refusal) {
    case LocalCaller::Refusal::None:
        break;
    case LocalCaller::Refusal::Host:
        return McpHttpEndpoint::refusal(403, JsonRpc::kServerError,
                                        QStringLiteral("Invalid Host: %1").arg(caller.detail));
    case LocalCaller::Refusal::Origin:
        return McpHttpEndpoint::refusal(403, JsonRpc::kServerError,
                                        QStringLiteral("Invalid Origin: %1").arg(caller.detail));
    case LocalCaller::Refusal::StoreUnreadable: {
        HttpResponse r = McpHttpEndpoint::refusal(
            503, JsonRpc::kServerError,
            QStringLiteral("Service Unavailable: Countersign cannot read its store, so nothing is run (%1)")
                .arg(caller.detail));
        r.headers.append(qMakePair(QByteArray("Retry-After"), QByteArray("5")));
        return r;
    }
    case LocalCaller::Refusal::NoToken:
    case LocalCaller::Refusal::UnknownToken: {
        HttpResponse r =
            McpHttpEndpoint::refusal(401, JsonRpc::kServerError,
                                     caller.refusal == LocalCaller::Refusal::UnknownToken
                                         ? QStringLiteral("Unauthorized: unknown or revoked bearer token")
                                         : QStringLiteral("Unauthorized: send Authorization: Bearer <token> "
                                                          "(create one with: countersign token add NAME)"));
        r.headers.append(
            qMakePair(QByteArray("WWW-Authenticate"), QByteArray("Bearer realm=\"countersign\"")));
        return r;
    }
    }

    if (request.method != "POST")
        return std::nullopt; // DELETE ends a 2025-era session, GET opens its stream: no body
    const QByteArray contentType = request.header("content-type").value_or(QByteArray()).toLower();
    const QByteArray mediaType = contentType.split(';').first().trimmed();
    if (mediaType != "application/json")
        return McpHttpEndpoint::refusal(
            415, JsonRpc::kServerError,
            QStringLiteral("Unsupported Media Type: Content-Type must be application/json"));
    return std::nullopt;
}

HttpResponse tooManyStreams(const nlohmann::json &id)
{
    return HttpResponse::json(
        429, JsonRpc::encode(JsonRpc::error(
                 id, JsonRpc::kServerError,
                 QStringLiteral("Too Many Requests: this connection holds %1 open event streams already; "
                                "close one first")
                     .arg(ListenStreams::kMaxPerPrincipal))));
}

} // namespace

void McpHttpEndpoint::serve(const HttpRequest &request, const LocalCaller::Checked &caller,
                            Responder respond) const
{
    if (auto refused = refuseEarly(request, caller))
        return respond(std::move(*refused));
    const Principal &principal = *caller.principal; // refuseEarly: set when None
    if (request.method == "DELETE") {
        const QByteArray id = request.header("mcp-session-id").value_or(QByteArray());
        if (id.isEmpty())
            return respond(
                refusal(400, JsonRpc::kInvalidRequest,
                        QStringLiteral("Bad Request: DELETE ends a session; send its Mcp-Session-Id")));
        if (!m_sessions.close(id, principal))
            return respond(refusal(404, JsonRpc::kInvalidRequest, QStringLiteral("Session not found")));
        m_questions->remove(id); // what it was asked is no longer answered
        m_streams.endSession(id);
        HttpResponse ended;
        ended.status = 204;
        return respond(ended);
    }
    if (request.method == "GET")
        return openSessionStream(request, principal, std::move(respond));

    auto parsed = JsonBody::parse(request.body);
    if (!parsed)
        return respond(HttpResponse::json(
            400,
            QByteArray::fromStdString(JsonRpc::error(nullptr, JsonRpc::kParseError,
                                                     QStringLiteral("Parse error: %1").arg(parsed.error()))
                                          .dump())));

    if (auto answered = takeAnswer(parsed.value(), request, principal))
        return respond(std::move(*answered));
    const QString headerVersion =
        QString::fromLatin1(request.header("mcp-protocol-version").value_or(QByteArray()));
    auto classified = RequestReader::read(parsed.value(), headerVersion, true);
    if (auto *early = std::get_if<Reply>(&classified))
        return respond(toHttp(*early));
    const McpRequest &mcp = std::get<McpRequest>(classified);
    if (mcp.envelope.legacy)
        return serveLegacy(mcp, request, principal, std::move(respond));
    if (auto headerError = HeaderChecks::check(mcp, request))
        return respond(toHttp(*headerError));
    if (mcp.method == QLatin1String(Subscription::kMethod))
        return listen(mcp, request, principal, std::move(respond));
    if (mcp.method == QLatin1String("tools/call") && !mcp.envelope.progressToken.is_null() &&
        request.header("accept").value_or(QByteArray()).contains("text/event-stream"))
        return callOnStream(mcp, principal, QByteArray(), std::move(respond)); // progress while held
    McpRequest plain = mcp;
    plain.envelope.progressToken = nullptr; // a plain JSON answer carries no progress
    m_dispatcher.handle(plain, CallContext{principal, Transport::Http},
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
        return respond(toHttp(RequestReader::noSession(request.id)));
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
    if (auto refused = RequestReader::joinSession(request, *envelope))
        return respond(toHttp(*refused));
    if (request.method == QLatin1String("tools/call") &&
        http.header("accept").value_or(QByteArray()).contains("text/event-stream"))
        return callOnStream(request, principal, id, std::move(respond));
    // A plain JSON answer carries no progress: the call is held as one that gets none.
    request.envelope.progressToken = nullptr;
    m_dispatcher.handle(request, CallContext{principal, Transport::Http},
                        [respond = std::move(respond)](Reply reply) { respond(toHttp(reply)); });
}

// GET: a 2025-era session's stream for what the server says outside any request (that the tools
// changed). It needs the session (2026-07-28 clients use subscriptions/listen instead).
void McpHttpEndpoint::openSessionStream(const HttpRequest &http, const Principal &principal,
                                        Responder respond) const
{
    if (!http.header("accept").value_or(QByteArray()).contains("text/event-stream"))
        return respond(
            refusal(406, JsonRpc::kServerError,
                    QStringLiteral("Not Acceptable: GET opens an event stream; accept text/event-stream")));
    const QByteArray id = http.header("mcp-session-id").value_or(QByteArray());
    if (id.isEmpty())
        return respond(
            refusal(400, JsonRpc::kInvalidRequest,
                    QStringLiteral("Bad Request: GET opens a 2025-era session's event stream; send "
                                   "its Mcp-Session-Id (2026-07-28 clients: subscriptions/listen)")));
    if (!m_sessions.find(id, principal, QDateTime::currentMSecsSinceEpoch()))
        return respond(
            refusal(404, JsonRpc::kInvalidRequest, QStringLiteral("Session not found: initialize again")));
    if (!m_streams.openSession(id, principal.connectionId, http.connection, respond))
        return respond(tooManyStreams(nullptr));
}

// subscriptions/listen: the reply is a stream that stays open, acknowledged at once.
void McpHttpEndpoint::listen(const McpRequest &request, const HttpRequest &http, const Principal &principal,
                             Responder respond) const
{
    auto subscription = Subscription::fromRequest(request);
    if (!subscription)
        return respond(HttpResponse::json(
            200, JsonRpc::encode(JsonRpc::error(request.id, JsonRpc::kInvalidParams, subscription.error()))));
    if (!m_streams.listen(subscription.value(), principal.connectionId, http.connection, respond))
        return respond(tooManyStreams(request.id));
}

// A client's POSTed response to something it was asked (elicitation/create) in its session: handed
// to what waits for it and answered 202. Nothing when the message is no response; a response
// outside a live session of this connection, or to nothing asked, is refused.
std::optional<HttpResponse> McpHttpEndpoint::takeAnswer(const nlohmann::json &message,
                                                        const HttpRequest &http,
                                                        const Principal &principal) const
{
    if (!message.is_object() || message.contains("method") || !message.contains("id"))
        return std::nullopt; // a request or a notification, for the dispatcher
    if (!ClientQuestions::isResponse(message))
        return refusal(400, JsonRpc::kInvalidRequest,
                       QStringLiteral("Invalid Request: a response carries exactly one of result and error"));
    const QByteArray session = http.header("mcp-session-id").value_or(QByteArray());
    if (session.isEmpty() || !m_sessions.find(session, principal, QDateTime::currentMSecsSinceEpoch()))
        return refusal(400, JsonRpc::kInvalidRequest,
                       QStringLiteral("Invalid Request: clients may not post responses outside a session"));
    const auto questions = m_questions->find(session);
    if (questions == m_questions->end() || questions->take(message) != ClientQuestions::Take::Taken)
        return refusal(400, JsonRpc::kInvalidRequest,
                       QStringLiteral("Invalid Request: this session has no open question with that id"));
    HttpResponse accepted;
    accepted.status = 202;
    return accepted;
}

// A tools/call from a client that accepts an event stream: a 2025-era one in its session, or a
// 2026-07-28 one with a progress token (no session). While it is unanswered the answer may become
// a stream: elicitation/create when the gate asks a 2025-era client (the client POSTs its answer
// in the session; a 2026-07-28 client is asked with input_required instead), and
// notifications/progress every kProgressEveryMs when the client sent a progress token (clients
// that reset their timeout on progress keep waiting); the result is the stream's last event. A
// call answered before either is a plain JSON response.
void McpHttpEndpoint::callOnStream(const McpRequest &request, const Principal &principal,
                                   const QByteArray &session, Responder respond) const
{
    struct Stream
    {
        bool open = false;
        bool answered = false;
    };
    const auto event = [](const nlohmann::json &message) {
        return "event: message\ndata: " + JsonRpc::encode(message) + "\n\n";
    };
    auto state = std::make_shared<Stream>();
    // One more message on the stream (opening it first); false once the call is answered.
    const auto send = [state, respond, event](const nlohmann::json &message) {
        if (state->answered)
            return false;
        HttpResponse part;
        part.stream = state->open ? HttpResponse::Stream::More : HttpResponse::Stream::Open;
        if (!state->open)
            part.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
        state->open = true;
        part.body = event(message);
        respond(std::move(part));
        return true;
    };
    std::shared_ptr<QTimer> timer;
    if (!request.envelope.progressToken.is_null()) {
        timer = std::make_shared<QTimer>();
        timer->setInterval(kProgressEveryMs);
        QObject::connect(timer.get(), &QTimer::timeout,
                         [send, token = request.envelope.progressToken, sent = 0]() mutable {
                             send(JsonRpc::waitingProgress(token, ++sent));
                         });
        timer->start();
    }
    // The call's questions close when it is answered (and the session's entry with the last one).
    auto asked = std::make_shared<QList<QByteArray>>();
    Elicitor ask;
    if (!session.isEmpty())
        ask = [questions = std::weak_ptr<Questions>(m_questions), session, send,
               asked](const nlohmann::json &params, ClientQuestions::Answered answered) {
            const auto shared = questions.lock();
            if (!shared)
                return;
            auto question = (*shared)[session].ask(params, std::move(answered), asked.get());
            if (!question || !send(*question))
                (*shared)[session].forget(*asked);
        };
    const auto close = [questions = std::weak_ptr<Questions>(m_questions), session, asked] {
        const auto shared = questions.lock();
        if (!shared || asked->isEmpty())
            return;
        if (auto it = shared->find(session); it != shared->end()) {
            it->forget(*asked);
            if (it->isEmpty())
                shared->erase(it);
        }
    };
    m_dispatcher.handle(request, CallContext{principal, Transport::Http, ask},
                        [state, timer, respond, event, close](Reply reply) {
                            state->answered = true;
                            close();
                            if (timer)
                                timer->stop();
                            if (!state->open || !reply.body)
                                return respond(toHttp(reply));
                            HttpResponse last;
                            last.stream = HttpResponse::Stream::End;
                            last.body = event(*reply.body);
                            respond(std::move(last));
                        });
}

} // namespace Countersign
