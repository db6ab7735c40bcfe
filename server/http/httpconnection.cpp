#include "httpconnection.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QPointer>
#include <QSslSocket>
#include <QTcpSocket>

#include <algorithm>
#include <utility>

#include <sys/ioctl.h>
#include <sys/socket.h>

namespace Countersign {

HttpConnection::HttpConnection(QTcpSocket *socket, Router router, Refusal refuse, Timeouts timeouts,
                               std::shared_ptr<BodyBudget> budget, QObject *parent)
    : QObject(parent), m_socket(socket), m_router(std::move(router)), m_refuse(std::move(refuse)),
      m_timeouts(timeouts), m_budget(std::move(budget))
{
    m_socket->setParent(this);
    m_requestTimer.setSingleShot(true);
    m_requestTimer.setInterval(timeouts.requestMs);
    m_idleTimer.setSingleShot(true);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(m_socket, &QTcpSocket::disconnected, this, [this] {
        releaseBody();
        m_requestTimer.stop();
        m_idleTimer.stop();
        Q_EMIT closed();
        deleteLater();
    });
    connect(&m_requestTimer, &QTimer::timeout, this,
            [this] { write(m_refuse(408, QStringLiteral("Request Timeout")), false); });
    connect(&m_idleTimer, &QTimer::timeout, this, &HttpConnection::closeAfterWrite);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::resumeWhenRead);
    startIdle();
    m_lastActivityMs = QDeadlineTimer::current().deadline();
}

bool HttpConnection::hasSpoken()
{
    if (m_spoken)
        return true;
    // Bytes the kernel holds that the event loop has not read yet: a burst of new connections is
    // accepted before this one's request is read.
    int pending = 0;
    if (m_socket->bytesAvailable() > 0 ||
        (::ioctl(int(m_socket->socketDescriptor()), FIONREAD, &pending) == 0 && pending > 0))
        m_spoken = true;
    return m_spoken;
}

bool HttpConnection::isBusy() const
{
    return m_inFlight || m_streaming ||
           (m_vouched && ((m_closing && !m_lingering) || m_socket->bytesToWrite() > 0));
}

void HttpConnection::evict()
{
    m_closing = true;
    m_requestTimer.stop();
    m_idleTimer.stop();
    m_socket->disconnect(this); // its disconnected signal must not say closed() a second time
    m_socket->abort();
    Q_EMIT closed();
    deleteLater();
}

HttpConnection::~HttpConnection()
{
    releaseBody();
    // The socket is a child and would outlive our members while ~QObject runs; its disconnected
    // signal must not reach them then.
    m_socket->disconnect(this);
    delete m_socket;
}

// What the socket still has to put on the wire: on a TLS connection, the encrypted bytes too (its
// bytesToWrite() counts only those not yet encrypted).
qint64 HttpConnection::unsentBytes() const
{
    const auto *tls = qobject_cast<const QSslSocket *>(m_socket);
    return m_socket->bytesToWrite() + (tls ? tls->encryptedBytesToWrite() : 0);
}

void HttpConnection::flushWritten(QDeadlineTimer deadline)
{
    // QTcpSocket only buffers a write; its event loop sends it. Here there may be no next turn.
    while (unsentBytes() > 0 && m_socket->state() != QAbstractSocket::UnconnectedState &&
           !deadline.hasExpired()) {
        if (!m_socket->waitForBytesWritten(int(std::max<qint64>(deadline.remainingTime(), 1))))
            return;
    }
}

void HttpConnection::onReadyRead()
{
    if (m_closing) {
        m_socket->readAll();
        return;
    }
    if (m_streaming) {
        // Nothing sent behind an open event stream can ever be answered: the client is not
        // speaking HTTP as it should, and its bytes would be held as long as the stream.
        m_socket->readAll();
        closeAfterWrite();
        return;
    }
    if (m_inFlight || m_paused) {
        m_queued += m_socket->readAll();
        if (m_queued.size() > kMaxQueuedBytes)
            closeAfterWrite();
        return;
    }
    processBuffered(m_socket->readAll());
}

void HttpConnection::processBuffered(const QByteArray &bytes)
{
    if (!bytes.isEmpty()) {
        m_spoken = true;
        m_lastActivityMs = QDeadlineTimer::current().deadline();
        m_idleTimer.stop();
        if (!m_requestTimer.isActive())
            m_requestTimer.start();
    }
    HttpParser::State state = m_parser.feed(bytes);
    if (state == HttpParser::State::NeedMore && !reserveBody())
        return;
    while (state == HttpParser::State::Complete && !m_closing) {
        releaseBody();
        m_requestTimer.stop();
        if (m_socket->bytesToWrite() > kMaxUnsentBytes) {
            // The client is not reading its answers: the next request waits until it does.
            m_paused = true;
            m_idleTimer.start(kStalledMs);
            return;
        }
        HttpRequest request = m_parser.takeRequest();
        request.connection = this;
        request.peer = m_socket->peerAddress().toString();
        m_inFlight = true;
        m_inRouter = true;
        m_router(request, [self = QPointer<HttpConnection>(this),
                           keepAlive = request.keepAlive](HttpResponse response) {
            if (!self || !self->m_inFlight)
                return;
            if (response.stream == HttpResponse::Stream::Open ||
                response.stream == HttpResponse::Stream::More) {
                self->m_streaming = true;
                self->m_socket->write(response.serialize(false)); // still in flight: more follows
                return;
            }
            if (response.stream == HttpResponse::Stream::End) {
                self->m_inFlight = false;
                self->m_socket->write(response.serialize(false));
                self->closeAfterWrite();
                return;
            }
            self->m_inFlight = false;
            if (self->m_inRouter) {
                self->write(response, keepAlive); // the loop below goes on with the next request
                return;
            }
            self->write(response, keepAlive);
            if (!self->m_closing)
                self->processBuffered(std::exchange(self->m_queued, {}));
        });
        m_inRouter = false;
        if (m_inFlight || m_closing)
            return; // a held request: the responder resumes the loop
        state = m_parser.feed({});
        if (state == HttpParser::State::NeedMore && !reserveBody())
            return;
        if (m_parser.hasBufferedBytes())
            m_requestTimer.start();
    }
    if (state == HttpParser::State::Failed) {
        write(m_refuse(m_parser.errorStatus(), m_parser.errorText()), false);
        return;
    }
    if (m_parser.hasBufferedBytes() && !m_requestTimer.isActive())
        m_requestTimer.start();
    if (!m_parser.hasBufferedBytes() && !m_requestTimer.isActive())
        startIdle();
}

void HttpConnection::resumeWhenRead()
{
    if (!m_paused || m_closing || m_socket->bytesToWrite() > kMaxUnsentBytes / 2)
        return;
    m_paused = false;
    m_idleTimer.stop();
    processBuffered(std::exchange(m_queued, {}));
}

bool HttpConnection::reserveBody()
{
    const qsizetype body = m_parser.expectedBodyBytes();
    if (!m_budget || m_reserved > 0 || m_vouched || body <= BodyBudget::kFreeBodyBytes)
        return true;
    if (const auto authorization = m_parser.head().header("authorization");
        authorization && m_budget->vouches && m_budget->vouches(*authorization)) {
        vouch(); // a token holder's large first request never waits on strangers' bodies
        return true;
    }
    if (m_budget->used + body > m_budget->limit) {
        ++m_budget->refused;
        write(m_refuse(503, QStringLiteral("Service Unavailable: too many large requests are arriving at "
                                           "once; send it again in a moment")),
              false);
        return false;
    }
    m_budget->used += body;
    m_reserved = body;
    return true;
}

void HttpConnection::releaseBody()
{
    if (m_budget)
        m_budget->used -= std::exchange(m_reserved, 0);
}

void HttpConnection::startIdle()
{
    m_idleTimer.start(m_vouched ? m_timeouts.vouchedIdleMs : m_timeouts.idleMs);
}

void HttpConnection::write(const HttpResponse &response, bool keepAlive)
{
    // Without a valid token, a refusal ends the connection: nothing can pipeline refusals into
    // answers it never reads.
    const bool keep = keepAlive && !response.close && (m_vouched || response.status < 400);
    m_lastActivityMs = QDeadlineTimer::current().deadline();
    // The hint is for clients that read it (Node's fetch): they let the socket go a little before.
    m_socket->write(
        response.serialize(keep, (m_vouched ? m_timeouts.vouchedIdleMs : m_timeouts.idleMs) / 1000));
    if (!keep)
        closeAfterWrite();
}

// A lingering close: once the answer is sent, only the sending side is shut, and what the client
// still sends is read and dropped until it closes (or kLingerMs). Closing at once while a client
// is still sending a refused body (413, 503) resets the connection, and the client's stack drops
// the answer it had not yet read: Node's fetch saw a reset instead of the 413.
void HttpConnection::closeAfterWrite()
{
    if (m_closing)
        return;
    m_closing = true;
    m_requestTimer.stop();
    m_idleTimer.stop();
    // TLS: its own close sends what is buffered, then close_notify (a shutdown of the descriptor
    // under it would cut the encrypted bytes still on their way).
    if (m_socket->state() != QAbstractSocket::ConnectedState || m_socket->socketDescriptor() < 0 ||
        qobject_cast<QSslSocket *>(m_socket)) {
        m_socket->disconnectFromHost();
        return;
    }
    QTimer::singleShot(kCloseDeadlineMs, this, [this] { m_socket->abort(); }); // read or not
    const auto shutSending = [this] {
        if (m_lingering || m_socket->bytesToWrite() > 0)
            return;
        m_lingering = true;
        ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
        QTimer::singleShot(kLingerMs, this, [this] { m_socket->abort(); });
    };
    connect(m_socket, &QTcpSocket::bytesWritten, this, shutSending);
    shutSending();
}

} // namespace Countersign
