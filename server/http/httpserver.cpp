#include "httpserver.h"

#include <QLoggingCategory>
#include <QSslServer>
#include <QTcpServer>
#include <QTcpSocket>

#include <tuple>

Q_LOGGING_CATEGORY(lcHttpServer, "countersign.http.server")

namespace Countersign {

HttpServer::HttpServer(HttpConnection::Router router, HttpConnection::Refusal refuse,
                       HttpConnection::Timeouts timeouts, QObject *parent)
    : HttpServer(nullptr, std::move(router), std::move(refuse), timeouts, parent)
{
}

HttpServer::HttpServer(QSslServer *encrypted, HttpConnection::Router router, HttpConnection::Refusal refuse,
                       HttpConnection::Timeouts timeouts, QObject *parent)
    : QObject(parent), m_server(encrypted ? static_cast<QTcpServer *>(encrypted) : new QTcpServer(this)),
      m_encrypted(encrypted != nullptr), m_router(std::move(router)), m_refuse(std::move(refuse)),
      m_timeouts(timeouts)
{
    m_server->setParent(this);
    // A QSslServer queues a connection only once its handshake is done, which newConnection (sent
    // when the TCP connection arrives) does not wait for.
    if (m_encrypted)
        connect(m_server, &QTcpServer::pendingConnectionAvailable, this, &HttpServer::onNewConnection);
    else
        connect(m_server, &QTcpServer::newConnection, this, &HttpServer::onNewConnection);
    // QTcpServer stops accepting after an accept error other than "would block" (too many open
    // files): say so, and accept again at once, so that a burst never leaves the port deaf.
    connect(m_server, &QTcpServer::acceptError, this, [this](QAbstractSocket::SocketError error) {
        qCWarning(lcHttpServer) << "accept failed:" << error << m_server->errorString();
        m_server->resumeAccepting();
    });
}

HttpServer::~HttpServer()
{
    // A tool run that ends while quitting answers, and the app deletes the server at once (from
    // another thread): that answer is only in the socket's buffer until this thread's event loop
    // turns again, and deleting the socket would drop it.
    const QDeadlineTimer deadline(kFlushOnCloseMs);
    for (HttpConnection *connection : findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly))
        connection->flushWritten(deadline);
}

void HttpServer::stopListening()
{
    m_server->close();
}

Result<quint16> HttpServer::listen(const QString &host, quint16 port)
{
    const QHostAddress address(host == QLatin1String("localhost") ? QStringLiteral("127.0.0.1") : host);
    if (!address.isLoopback() && !m_encrypted)
        return failure(
            QStringLiteral("refusing to listen on %1: only loopback addresses are allowed").arg(host));
    if (address.isNull() || address.isEqual(QHostAddress::Any) || address.isEqual(QHostAddress::AnyIPv6))
        return failure(QStringLiteral("refusing to listen on %1: not one address of this machine").arg(host));
    if (!m_server->listen(address, port))
        return failure(
            QStringLiteral("cannot listen on %1:%2: %3").arg(host).arg(port).arg(m_server->errorString()));
    return m_server->serverPort();
}

void HttpServer::onNewConnection()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        if (m_connections >= m_max) {
            HttpConnection *idlest = nullptr;
            // Without a token first, and of those the silent ones: a flood of idle sockets never
            // closes a client's connection, nor a new one that has sent its first request.
            const auto order = [](const HttpConnection *c) {
                return std::tuple(c->isVouched(), c->heardFrom(), c->lastActivityMs());
            };
            // One that looks silent is asked whether its first bytes are waiting, unread.
            for (bool pick = true; pick;) {
                idlest = nullptr;
                for (HttpConnection *c : std::as_const(m_open)) {
                    if (!c->isBusy() && (!idlest || order(c) < order(idlest)))
                        idlest = c;
                }
                pick = idlest && !idlest->heardFrom() && idlest->hasSpoken();
            }
            if (!idlest) {
                ++m_refused;
                qCWarning(lcHttpServer)
                    << "refused a connection: all" << m_connections << "are being answered";
                socket->abort();
                socket->deleteLater();
                continue;
            }
            ++m_evicted;
            if (m_evicted == 1 || m_evicted % 1000 == 0)
                qCWarning(lcHttpServer) << "full: closed the connection idle the longest for a new one ("
                                        << m_evicted << "so far)";
            idlest->evict();
        }
        ++m_connections;
        auto *connection = new HttpConnection(socket, m_router, m_refuse, m_timeouts, m_budget, this);
        m_open.append(connection);
        connect(connection, &HttpConnection::closed, this, [this, connection] {
            --m_connections;
            m_open.removeOne(connection);
        });
    }
}

} // namespace Countersign
