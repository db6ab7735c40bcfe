#pragma once

#include "httpconnection.h"
#include "result.h"

#include <QObject>

class QSslServer;
class QTcpServer;

namespace Countersign {

// Accepts loopback TCP connections and serves HTTP/1.1 through a router. Deleting it closes every
// connection: a held request goes unanswered, but an answer already given still goes out first.
class HttpServer final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxConnections = 512;
    // How long deleting the server waits, in all, for clients to take the answers already given.
    static constexpr int kFlushOnCloseMs = 2000;

    HttpServer(HttpConnection::Router router, HttpConnection::Refusal refuse,
               HttpConnection::Timeouts timeouts, QObject *parent = nullptr);
    // Serves over encrypted (a QSslServer holding its certificate; taken over): every connection it
    // hands on has finished its TLS handshake. The phone's listener, and the only one that may
    // listen on an address other than loopback.
    HttpServer(QSslServer *encrypted, HttpConnection::Router router, HttpConnection::Refusal refuse,
               HttpConnection::Timeouts timeouts, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(HttpServer)
    ~HttpServer() override;

    // host is "127.0.0.1" (or any address, encrypted); port 0 picks a free one. Returns the bound port.
    Result<quint16> listen(const QString &host, quint16 port);
    int connectionCount() const { return m_connections; }
    // Full (kMaxConnections open), a new connection takes the place of the one idle the longest:
    // one that is not being answered or streamed to (it sent nothing, or only part of a request,
    // or it waits between requests), among those no valid token came on if there are any, and of
    // those the ones that never sent a byte. A flood of idle sockets, or of slow unauthenticated
    // ones, so never locks a client out, nor closes a client's idle keep-alive connection or its
    // new one with a request on the way. Only when every connection is busy is the new one refused.
    int evictedCount() const { return m_evicted; }
    int refusedCount() const { return m_refused; }
    // Requests refused because large bodies without a token filled their budget (503).
    qint64 bodyRefusedCount() const { return m_budget->refused; }
    void setBodyBudget(qsizetype bytes) { m_budget->limit = bytes; } // tests
    // Whether an Authorization header holds a valid token (HttpConnection::BodyBudget::vouches).
    void setVoucher(std::function<bool(const QByteArray &authorization)> vouches)
    {
        m_budget->vouches = std::move(vouches);
    }
    void setMaxConnections(int max) { m_max = max; }                               // tests, the phone's
    void setTimeouts(HttpConnection::Timeouts timeouts) { m_timeouts = timeouts; } // tests: new connections
    // Accepts no new connection; the open ones are served until they close.
    void stopListening();

private:
    void onNewConnection();

    QTcpServer *m_server = nullptr;
    bool m_encrypted = false;
    HttpConnection::Router m_router;
    HttpConnection::Refusal m_refuse;
    HttpConnection::Timeouts m_timeouts;
    int m_connections = 0;
    int m_max = kMaxConnections;
    int m_evicted = 0;
    int m_refused = 0;
    QList<HttpConnection *> m_open;
    std::shared_ptr<HttpConnection::BodyBudget> m_budget = std::make_shared<HttpConnection::BodyBudget>();
};

} // namespace Countersign
