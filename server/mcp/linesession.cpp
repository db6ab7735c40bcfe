#include "linesession.h"

#include "dispatcher.h"
#include "jsonbody.h"
#include "jsonrpc.h"
#include "requestreader.h"

#include <QPointer>
#include <QTimer>

namespace Countersign {

using nlohmann::json;

namespace {

const QString kRefusal = QStringLiteral(
    "Unauthorized: this connection's token is unknown or has been revoked; the stdio connection ends");

} // namespace

LineSession::LineSession(const Dispatcher &dispatcher, Authenticator authenticate, Writer write,
                         QObject *parent)
    : QObject(parent), m_dispatcher(dispatcher), m_authenticate(std::move(authenticate)),
      m_write(std::move(write))
{
}

void LineSession::notifyToolsChanged()
{
    if (m_refused || !m_authenticate()) // a revoked token hears nothing (its next line is refused)
        return;
    if (m_session)
        send({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
    for (const Subscription &s : std::as_const(m_subscriptions)) {
        if (s.wantsTools())
            send(s.toolsChanged());
    }
}

void LineSession::listen(const McpRequest &request)
{
    auto subscription = Subscription::fromRequest(request);
    if (!subscription)
        return send(JsonRpc::error(request.id, JsonRpc::kInvalidParams, subscription.error()));
    // A listen reusing a live subscription's id replaces it (ended first): ids tell them apart.
    m_subscriptions.removeIf([&](const Subscription &s) {
        if (s.id() != request.id)
            return false;
        send(s.ended());
        return true;
    });
    // Past the limit a new one is refused, not an old one ended (a client re-listens after an end).
    if (m_subscriptions.size() >= kMaxSubscriptions)
        return send(
            JsonRpc::error(request.id, JsonRpc::kServerError,
                           QStringLiteral("this connection holds %1 subscriptions already; cancel one first")
                               .arg(kMaxSubscriptions)));
    send(subscription.value().acknowledged());
    m_subscriptions.append(std::move(subscription).value());
}

void LineSession::cancelSubscription(const nlohmann::json &message)
{
    if (!message.is_object() || message.value("method", json()) != "notifications/cancelled")
        return;
    const json params = message.value("params", json());
    if (params.is_object() && params.contains("requestId"))
        m_subscriptions.removeIf([&](const Subscription &s) { return s.id() == params["requestId"]; });
}

void LineSession::send(const nlohmann::json &message)
{
    // error_handler::replace: a tool's output is never allowed to break the line's encoding.
    m_write(JsonRpc::encode(message) + '\n');
}

void LineSession::handleLine(const QByteArray &line)
{
    if (m_refused || line.trimmed().isEmpty())
        return;
    if (line.size() > kMaxLineBytes)
        return send(JsonRpc::error(nullptr, JsonRpc::kInvalidRequest,
                                   QStringLiteral("message larger than %1 bytes").arg(kMaxLineBytes)));
    auto parsed = JsonBody::parse(line);
    // Asked for every line, so a token revoked while the connection lasts is refused from the next one.
    const std::optional<Principal> principal = m_authenticate();
    if (!principal) {
        m_refused = true;
        nlohmann::json id;
        if (parsed && parsed.value().is_object() && !ClientQuestions::isResponse(parsed.value())) {
            const auto it = parsed.value().find("id");
            if (it != parsed.value().end() && JsonRpc::isValidId(*it))
                id = *it;
        }
        send(JsonRpc::error(id, JsonRpc::kServerError, kRefusal));
        Q_EMIT refused(kRefusal);
        return;
    }
    if (!parsed)
        return send(JsonRpc::error(nullptr, JsonRpc::kParseError,
                                   QStringLiteral("Parse error: %1").arg(parsed.error())));
    switch (m_questions.take(parsed.value())) {
    case ClientQuestions::Take::Taken:
        return;
    case ClientQuestions::Take::Unknown: // late (its call was answered) or never asked: nothing to do
        return send(JsonRpc::error(nullptr, JsonRpc::kInvalidRequest,
                                   QStringLiteral("Invalid Request: no open question has that id")));
    case ClientQuestions::Take::NotAResponse:
        break;
    }
    cancelSubscription(parsed.value());
    auto classified = RequestReader::read(parsed.value(), QString(), true);
    if (auto *early = std::get_if<Reply>(&classified)) {
        if (early->body)
            send(*early->body);
        return;
    }
    McpRequest &request = std::get<McpRequest>(classified);
    if (request.envelope.legacy)
        return handleLegacy(std::move(request), *principal);
    handleNow(request, *principal);
}

// A 2025-era request: initialize makes this connection the client's session (a second one starts
// it over); anything else needs one.
void LineSession::handleLegacy(McpRequest request, const Principal &principal)
{
    if (request.method == QLatin1String("initialize")) {
        m_session = request.envelope;
        return handleNow(request, principal);
    }
    if (!m_session)
        return send(*RequestReader::noSession(request.id).body);
    if (auto refused = RequestReader::joinSession(request, *m_session))
        return send(*refused->body);
    if (request.method != QLatin1String("tools/call"))
        return handleNow(request, principal);
    auto asked = std::make_shared<QList<QByteArray>>();
    callTool(request, principal, elicitor(asked), asked);
}

// A tools/call of either era. While it waits for the human: progress, so that clients that reset
// their timeout keep waiting; a 2025-era call may also ask its client (ask; asked lists what).
void LineSession::callTool(const McpRequest &request, const Principal &principal, Elicitor ask,
                           const std::shared_ptr<QList<QByteArray>> &asked)
{
    QPointer<QTimer> progress;
    if (!request.envelope.progressToken.is_null()) {
        progress = new QTimer(this);
        progress->setInterval(JsonRpc::kProgressEveryMs);
        connect(progress, &QTimer::timeout, this,
                [this, token = request.envelope.progressToken, sent = 0]() mutable {
                    send(JsonRpc::waitingProgress(token, ++sent));
                });
        progress->start();
    }
    m_dispatcher.handle(request, CallContext{principal, Transport::Stdio, std::move(ask)},
                        [self = QPointer<LineSession>(this), progress, asked](Reply reply) {
                            if (progress)
                                progress->deleteLater();
                            if (self)
                                self->m_questions.forget(*asked); // answered: its questions close
                            if (self && !self->m_refused && reply.body)
                                self->send(*reply.body);
                        });
}

// How a 2025-era call on this connection asks its client; its questions are listed in asked.
Elicitor LineSession::elicitor(const std::shared_ptr<QList<QByteArray>> &asked)
{
    return [self = QPointer<LineSession>(this), asked](const nlohmann::json &params,
                                                       ClientQuestions::Answered answered) {
        if (!self || self->m_refused)
            return;
        if (auto question = self->m_questions.ask(params, std::move(answered), asked.get()))
            self->send(*question);
    };
}

void LineSession::handleNow(const McpRequest &request, const Principal &principal)
{
    if (!request.envelope.legacy && request.method == QLatin1String(Subscription::kMethod))
        return listen(request);
    if (!request.envelope.legacy && request.method == QLatin1String("tools/call"))
        return callTool(request, principal, {}, std::make_shared<QList<QByteArray>>());
    m_dispatcher.handle(request, CallContext{principal, Transport::Stdio},
                        [self = QPointer<LineSession>(this)](Reply reply) {
                            if (self && !self->m_refused && reply.body)
                                self->send(*reply.body);
                        });
}

} // namespace Countersign
