#include "listenstreams.h"

#include "jsonrpc.h"

#include <algorithm>

namespace Countersign {

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
    m_streams.removeIf([](const Stream &s) { return s.connection.isNull(); });
}

void ListenStreams::makeRoom(qint64 principalId)
{
    const auto isTheirs = [principalId](const Stream &s) { return s.principalId == principalId; };
    while (std::count_if(m_streams.cbegin(), m_streams.cend(), isTheirs) >= kMaxPerPrincipal) {
        const auto oldest = std::find_if(m_streams.begin(), m_streams.end(), isTheirs);
        end(*oldest);
        m_streams.erase(oldest);
    }
}

void ListenStreams::openSession(const QByteArray &session, qint64 principalId, QObject *connection,
                                Responder respond)
{
    prune();
    endSession(session);
    makeRoom(principalId);
    // An SSE comment: clients see the stream open (some wait for a first byte), parsers skip it.
    open(respond, ": listening for notifications/tools/list_changed\n\n");
    m_streams.append(Stream{principalId, session, std::nullopt, connection, std::move(respond)});
}

void ListenStreams::listen(const Subscription &subscription, qint64 principalId, QObject *connection,
                           Responder respond)
{
    prune();
    makeRoom(principalId);
    open(respond, event(subscription.acknowledged()));
    m_streams.append(Stream{principalId, QByteArray(), subscription, connection, std::move(respond)});
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
    if (m_isActive) { // a revoked token hears nothing more
        m_streams.removeIf([this](const Stream &s) {
            if (m_isActive(s.principalId))
                return false;
            end(s);
            return true;
        });
    }
    static const nlohmann::json legacy = {{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}};
    for (const Stream &s : std::as_const(m_streams)) {
        if (s.subscription && !s.subscription->wantsTools())
            continue;
        HttpResponse more;
        more.stream = HttpResponse::Stream::More;
        more.body = event(s.subscription ? s.subscription->toolsChanged() : legacy);
        s.respond(std::move(more));
    }
}

void ListenStreams::endAll()
{
    for (const Stream &s : std::exchange(m_streams, {}))
        end(s);
}

int ListenStreams::count()
{
    prune();
    return int(m_streams.size());
}

} // namespace Countersign
