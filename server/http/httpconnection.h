#pragma once

#include "httpparser.h"
#include "httpresponse.h"

#include <QDeadlineTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>

class QTcpSocket;

namespace Countersign {

// One client connection: parses requests as they arrive (pipelined ones in order), hands each to
// the router and writes the response. The router may answer later (a held request); the next
// pipelined request waits for it, and no timeout runs while the server itself is busy. A connection that is
// slow to send a request head and body (slow-loris) is answered 408 and closed; an idle keep-alive connection
// is closed: soon when no request on it brought a valid token, and only after the clients' own keep-alive
// pools would have let it go when one did (vouch()), so a client never sends into a socket being closed.
class HttpConnection final : public QObject
{
    Q_OBJECT
public:
    using Responder = std::function<void(HttpResponse)>;
    // Calls the responder exactly once, before or after returning (a stream: Open, More..., then
    // End; see HttpResponse::stream). A responder called after the connection is gone does nothing.
    using Router = std::function<void(const HttpRequest &, Responder)>;
    // The reply to a request the connection refuses itself (malformed: its parser's status;
    // too slow: 408). The protocol served above decides the body; HTTP knows none.
    using Refusal = std::function<HttpResponse(int status, const QString &reason)>;
    // Bytes a client may pipeline behind a request that is still being answered.
    static constexpr qsizetype kMaxQueuedBytes = 2 * 1024 * 1024;
    // How long a closing connection reads and drops what its client still sends (closeAfterWrite),
    // and how long, in all, it may take to close: an answer the client does not read is dropped then.
    static constexpr int kLingerMs = 2000;
    static constexpr int kCloseDeadlineMs = 10'000;
    // Answers written but not yet taken by the client: past this, no further pipelined request is
    // answered until it reads (and a client that reads nothing for kStalledMs is closed).
    static constexpr qsizetype kMaxUnsentBytes = 1024 * 1024;
    static constexpr int kStalledMs = 30'000;

    // How long a request may take to arrive whole, and how long a keep-alive connection may idle:
    // one no valid token came on (it sent nothing yet, or was refused), and one vouched for. The
    // second outlasts the keep-alive pools of the clients' HTTP stacks (Bun's fetch, which opencode
    // uses, keeps an idle socket 5 minutes and reads no Keep-Alive hint): a POST the client sends
    // just as the server closes the socket fails in the client, unanswered, and is not retried.
    struct Timeouts final
    {
        int requestMs = 10'000;
        int idleMs = 10'000;
        int vouchedIdleMs = 330'000;
    };

    // The bytes of large request bodies received at once, in all, on connections no valid token has
    // come on (yet): a flood of 1 MiB bodies sent slowly from hundreds of sockets is bounded by it.
    // A body of kFreeBodyBytes or less never counts, so a client's first request always gets in.
    struct BodyBudget final
    {
        static constexpr qsizetype kFreeBodyBytes = 64 * 1024;
        qsizetype limit = 32 * 1024 * 1024;
        qsizetype used = 0;
        qint64 refused = 0; // requests answered 503 for it
        // Whether an Authorization header holds a valid token, asked of a large body's head (a
        // token holder's first request is vouched for before its body counts); unset: never.
        std::function<bool(const QByteArray &authorization)> vouches;
    };

    // budget: shared with the server's other connections (null: none).
    HttpConnection(QTcpSocket *socket, Router router, Refusal refuse, Timeouts timeouts,
                   std::shared_ptr<BodyBudget> budget, QObject *parent);
    Q_DISABLE_COPY_MOVE(HttpConnection)
    ~HttpConnection() override;

    // Sends what is already written but still buffered (an answer given just before the server
    // goes) while the client reads it, until the deadline at most. Deleting the connection
    // discards whatever is still buffered.
    void flushWritten(QDeadlineTimer deadline);
    // Whether the router holds a request of this connection or streams to it: such a connection is
    // never evicted for another. One that is idle, or still sending a request, may be.
    // An answer still being sent counts as busy too, on a connection a valid token came on: closing
    // it would drop the answer. Without a token, answers are refusals, and a client that does not
    // read them may be closed for another.
    bool isBusy() const;
    // When it last sent bytes or was answered (ms on a monotonic clock).
    qint64 lastActivityMs() const { return m_lastActivityMs; }
    // Closes it at once to make room for another (HttpServer, full); closed() is emitted.
    void evict();
    // A request on it brought a valid token (LocalCaller): it may idle the longer time, and a full
    // server closes it only when no idle connection without one is left.
    void vouch() { m_vouched = true; }
    bool isVouched() const { return m_vouched; }
    // Whether it has sent any byte (an idle flood's sockets never do; a client sends its request at
    // once), read or still waiting in the kernel. Asks the kernel while it has not.
    bool hasSpoken();
    bool heardFrom() const { return m_spoken; } // without asking

Q_SIGNALS:
    void closed();

private:
    void onReadyRead();
    void processBuffered(const QByteArray &bytes);
    void write(const HttpResponse &response, bool keepAlive);
    void closeAfterWrite();
    qint64 unsentBytes() const;
    void startIdle();
    void resumeWhenRead(); // paused, and the client has read enough of what waits for it
    bool reserveBody();    // false: refused (answered 503)
    void releaseBody();

    QTcpSocket *m_socket = nullptr;
    Router m_router;
    Refusal m_refuse;
    HttpParser m_parser;
    QTimer m_requestTimer;
    QTimer m_idleTimer;
    Timeouts m_timeouts;
    std::shared_ptr<BodyBudget> m_budget;
    qsizetype m_reserved = 0; // of m_budget, for the body being received
    QByteArray m_queued;      // arrived while a request is in flight
    bool m_inFlight = false;
    bool m_inRouter = false;
    bool m_closing = false;
    bool m_streaming = false; // an event stream is open: its response never ends by itself
    bool m_vouched = false;
    bool m_spoken = false;
    bool m_lingering = false; // the answer is sent and the sending side shut
    bool m_paused = false;    // answers wait unread past kMaxUnsentBytes: no further request is taken
    qint64 m_lastActivityMs = 0;
};

} // namespace Countersign
