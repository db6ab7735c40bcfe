#pragma once

#include "httpresponse.h"
#include "subscription.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QPointer>

#include <functional>
#include <optional>

namespace Countersign {

// The event streams HTTP clients hold open to hear what happens outside their requests (today:
// that the tools changed): a 2025-era session's GET stream, and 2026-07-28 subscriptions/listen
// streams. A stream lives while its TCP connection does; one whose connection closed is dropped at
// the next open or notification, and one whose token was revoked is ended there. A session has
// one stream (a new GET replaces the old one: a message goes on one stream only); a connection
// (token) holds at most kMaxPerPrincipal streams of either kind, the oldest ended when a newer one
// would pass that (one token cannot take every TCP connection the server accepts).
class ListenStreams final
{
public:
    using Responder = std::function<void(HttpResponse)>;
    // Whether a connection's token is still valid.
    using ConnectionCheck = std::function<bool(qint64 principalId)>;
    static constexpr int kMaxPerPrincipal = 16;

    void setConnectionCheck(ConnectionCheck check) { m_isActive = std::move(check); }

    // Writes the stream's head (200, text/event-stream) at once.
    void openSession(const QByteArray &session, qint64 principalId, QObject *connection, Responder respond);
    // Writes the head and the acknowledgment at once.
    void listen(const Subscription &subscription, qint64 principalId, QObject *connection, Responder respond);
    // The session ended (DELETE): its stream ends too.
    void endSession(const QByteArray &session);
    // notifications/tools/list_changed on every stream that asked for it.
    void notifyToolsChanged();
    // Ends every stream, a listen stream with its result first (a graceful end, not a drop).
    void endAll();
    int count();

    // One message as a server-sent event.
    static QByteArray event(const nlohmann::json &message);

private:
    struct Stream final
    {
        qint64 principalId = 0;
        QByteArray session;                       // a 2025-era session's stream
        std::optional<Subscription> subscription; // a subscriptions/listen stream
        QPointer<QObject> connection;
        Responder respond;
    };
    void prune();
    // Ends the principal's oldest streams until one more fits.
    void makeRoom(qint64 principalId);
    static void open(const Responder &respond, const QByteArray &body);
    static void end(const Stream &stream);

    QList<Stream> m_streams; // oldest first
    ConnectionCheck m_isActive;
};

} // namespace Countersign
