#include "httpexchange.h"

#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

namespace Countersign {

HttpExchange::HttpExchange(QUrl url, QList<QPair<QByteArray, QByteArray>> headers, QByteArray body,
                           qsizetype maxBytes, int limitMs, QObject *parent)
    : QObject(parent), m_url(std::move(url)), m_headers(std::move(headers)), m_body(std::move(body)),
      m_limitMs(limitMs), m_answer(maxBytes)
{
}

HttpExchange::~HttpExchange() = default;

void HttpExchange::start()
{
    QTimer::singleShot(m_limitMs, this,
                       [this] { end(QStringLiteral("no end within %1 s").arg(m_limitMs / 1000)); });
    const bool tls = m_url.scheme() == QLatin1String("https");
    m_socket = tls ? new QSslSocket(this) : new QTcpSocket(this);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpExchange::read);
    connect(m_socket, &QTcpSocket::disconnected, this, [this] {
        read();
        if (!m_ended)
            apply(m_answer.close());
    });
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error == QAbstractSocket::RemoteHostClosedError)
            return; // disconnected() follows and decides
        end(m_socket->errorString());
    });
    const auto sendRequest = [this] {
        m_ending.connected = true;
        const QByteArray target =
            m_url.path(QUrl::FullyEncoded).isEmpty()
                ? QByteArray("/")
                : m_url.path(QUrl::FullyEncoded).toLatin1() +
                      (m_url.hasQuery() ? "?" + m_url.query(QUrl::FullyEncoded).toLatin1() : QByteArray());
        QByteArray request =
            "POST " + target + " HTTP/1.1\r\nHost: " + m_url.host(QUrl::FullyEncoded).toLatin1();
        if (m_url.port() > 0)
            request += ':' + QByteArray::number(m_url.port());
        request += "\r\nContent-Length: " + QByteArray::number(m_body.size()) + "\r\nConnection: close\r\n";
        for (const auto &[name, value] : m_headers)
            request += name + ": " + value + "\r\n";
        request += "\r\n" + m_body;
        m_socket->write(request);
    };
    const quint16 port = quint16(m_url.port(tls ? 443 : 80));
    if (tls) {
        auto *ssl = static_cast<QSslSocket *>(m_socket);
        connect(ssl, &QSslSocket::encrypted, this, sendRequest);
        ssl->connectToHostEncrypted(m_url.host(), port);
    } else {
        connect(m_socket, &QTcpSocket::connected, this, sendRequest);
        m_socket->connectToHost(m_url.host(), port);
    }
}

void HttpExchange::abort(const QString &why)
{
    end(why);
}

void HttpExchange::read()
{
    if (m_ended || !m_socket)
        return;
    apply(m_answer.feed(m_socket->readAll()));
}

void HttpExchange::apply(const HttpAnswer::Progress &progress)
{
    if (progress.headNow) {
        m_ending.status = m_answer.status();
        Q_EMIT head(m_answer.status(), m_answer.headers());
    }
    for (const QByteArray &data : progress.messages) {
        if (m_ended)
            return; // a handler ended it: the rest is not wanted
        Q_EMIT message(data);
    }
    if (progress.ended)
        end(progress.error);
}

void HttpExchange::end(const QString &error)
{
    if (m_ended)
        return;
    m_ended = true;
    m_ending.error = error;
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
    Q_EMIT finished(m_ending);
    deleteLater();
}

} // namespace Countersign
