#include "listenstreams.h"

#include "jsonrpc.h"

#include <algorithm>

namespace Countersign {

ListenStreams::ListenStreams()
{
    m_keepAlive.setInterval(kKeepAliveMs);
    QObject::connect(&m_keepAlive, &QTimer::timeout, [this] { keepAlive(); });
}

void ListenStreams::setChecks(ConnectionCheck connection, SessionCheck session)
{
    m_isActive = std::move(connection);
    m_sessionLives = std::move(session);
}

QByteArray ListenStreams::event(const nlohmann::json &message)
{
    return "event: message\ndata: " + JsonRpc::encode(message) + "\n\n";
}

void ListenStreams::open(const Responder &respond, const QByteArray &body)
{
    HttpResponse head;
    head.stream = HttpResponse::Stream::Open;
    head.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
    head.body = body;
    respond(std::move(head));
}

void ListenStreams::send(const Stream &stream, const QByteArray &body)
{
    HttpResponse more;
    more.stream = HttpResponse::Stream::More;
    more.body = body;
    stream.respond(std::move(more));
}

void ListenStreams::end(const Stream &stream)
{
    HttpResponse last;
    last.stream = HttpResponse::Stream::End;
    if (stream.subscription)
        last.body = event(stream.subscription->ended());
    stream.respond(std::move(last));
}

void ListenStreams::prune()
{
    m_streams.removeIf([this](const Stream &s) {
        if (s.connection.isNull())
            return true;
        const bool gone =
            (m_isActive && !m_isActive(s.principalId)) ||
            (!s.session.isEmpty() && m_sessionLives && !m_sessionLives(s.session, s.principalId));
        if (gone)
            end(s);
        return gone;
    });
    if (m_streams.isEmpty())
        m_keepAlive.stop();
}

bool ListenStreams::isFull(qint64 principalId) const
{
    return std::count_if(m_streams.cbegin(), m_streams.cend(), [principalId](const Stream &s) {
               return s.principalId == principalId;
           }) >= kMaxPerPrincipal;
}

bool ListenStreams::openSession(const QByteArray &session, qint64 principalId, QObject *connection,
                                const Responder &respond)
{
    prune();
    endSession(session);
    if (isFull(principalId))
        return false;
    // An SSE comment: clients see the stream open (some wait for a first byte), parsers skip it.
    open(respond, ": listening for notifications/tools/list_changed\n\n");
    m_streams.append(Stream{principalId, session, std::nullopt, connection, respond});
    m_keepAlive.start();
    return true;
}

bool ListenStreams::listen(const Subscription &subscription, qint64 principalId, QObject *connection,
                           const Responder &respond)
{
    prune();
    if (isFull(principalId))
        return false;
    open(respond, event(subscription.acknowledged()));
    m_streams.append(Stream{principalId, QByteArray(), subscription, connection, respond});
    m_keepAlive.start();
    return true;
}

void ListenStreams::endSession(const QByteArray &session)
{
    m_streams.removeIf([&](const Stream &s) {
        if (s.session != session)
            return false;
        end(s);
        return true;
    });
}

void ListenStreams::notifyToolsChanged()
{
    prune();
    static const nlohmann::json legacy = {{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}};
    for (const Stream &s : std::as_const(m_streams)) {
        if (s.subscription && !s.subscription->wantsTools())
            continue;
        send(s, event(s.subscription ? s.subscription->toolsChanged() : legacy));
    }
}

void ListenStreams::keepAlive()
{
    prune();
    for (const Stream &s : std::as_const(m_streams))
        send(s, ": keepalive\n\n");
}

void ListenStreams::endAll()
{
    m_keepAlive.stop();
    for (const Stream &s : std::exchange(m_streams, {}))
        end(s);
}

int ListenStreams::count()
{
    prune();
    return int(m_streams.size());
}

} // namespace Countersign
