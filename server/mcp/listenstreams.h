#pragma once

#include "httpresponse.h"
#include "subscription.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <optional>

namespace Countersign {

// The event streams HTTP clients hold open to hear what happens outside their requests (today:
// that the tools changed): a 2025-era session's GET stream, and 2026-07-28 subscriptions/listen
// streams. A stream lives while its TCP connection does, its token stays valid and (a GET) its
// session lives; every kKeepAliveMs each live one gets a comment line (clients such as Node's fetch
// drop a body silent for 300 s) and the others are ended. A session has one stream (a new GET
// replaces the old one: a message goes on one stream only). A connection (token) holds at most
// kMaxPerPrincipal streams: past that a new one is refused, not an old one ended (clients reopen an
// ended stream, and two would take turns ending each other).
class ListenStreams final
{
public:
    using Responder = std::function<void(HttpResponse)>;
    // Whether a connection's token is still valid.
    using ConnectionCheck = std::function<bool(qint64 principalId)>;
    // Whether a 2025-era session still lives (and, asked, stays alive: its client holds it open).
    using SessionCheck = std::function<bool(const QByteArray &session, qint64 principalId)>;
    static constexpr int kMaxPerPrincipal = 16;
    static constexpr int kKeepAliveMs = 15'000;

    ListenStreams();
    void setChecks(ConnectionCheck connection, SessionCheck session);

    // Writes the stream's head (200, text/event-stream) at once; false (nothing written) when the
    // principal holds kMaxPerPrincipal streams already.
    bool openSession(const QByteArray &session, qint64 principalId, QObject *connection,
                     const Responder &respond);
    // Writes the head and the acknowledgment at once; false as openSession().
    bool listen(const Subscription &subscription, qint64 principalId, QObject *connection,
                const Responder &respond);
    // The session ended (DELETE): its stream ends too.
    void endSession(const QByteArray &session);
    // notifications/tools/list_changed on every stream that asked for it.
    void notifyToolsChanged();
    // What the timer does: streams whose token or session is gone end, the others hear a comment.
    void keepAlive();
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
    // Drops streams whose connection closed, and ends those whose token or session is gone.
    void prune();
    bool isFull(qint64 principalId) const;
    static void open(const Responder &respond, const QByteArray &body);
    static void end(const Stream &stream);
    static void send(const Stream &stream, const QByteArray &body);

    QList<Stream> m_streams; // oldest first
    ConnectionCheck m_isActive;
    SessionCheck m_sessionLives;
    QTimer m_keepAlive;
};

} // namespace Countersign
