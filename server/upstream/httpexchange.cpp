#include "httpexchange.h"

#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

namespace Countersign {

namespace {

constexpr qsizetype kMaxHeadBytes = 64 * 1024;

} // namespace

HttpExchange::HttpExchange(QUrl url, QList<QPair<QByteArray, QByteArray>> headers, QByteArray body,
                           qsizetype maxBytes, int limitMs, QObject *parent)
    : QObject(parent), m_url(std::move(url)), m_headers(std::move(headers)), m_body(std::move(body)),
      m_maxBytes(maxBytes), m_limitMs(limitMs)
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
        if (m_ended)
            return;
        // A body read to the close ends here; anything else was cut short.
        if (m_headDone && !m_chunked && m_length < 0) {
            if (!m_events && !m_payload.isEmpty())
                Q_EMIT message(m_payload);
            return end(QString());
        }
        end(m_headDone ? QStringLiteral("the connection closed before the answer ended")
                       : QStringLiteral("the connection closed without an answer"));
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
    const QByteArray bytes = m_socket->readAll();
    m_read += bytes.size();
    if (m_read > m_maxBytes)
        return end(QStringLiteral("the answer is over %1 MiB").arg(m_maxBytes / (1024 * 1024)));
    m_in += bytes;
    if (!m_headDone)
        parseHead();
    if (m_headDone && !m_ended)
        parseBody();
}

void HttpExchange::parseHead()
{
    const qsizetype endOfHead = m_in.indexOf("\r\n\r\n");
    if (endOfHead < 0) {
        if (m_in.size() > kMaxHeadBytes)
            end(QStringLiteral("the answer's head is over 64 KiB"));
        return;
    }
    const QList<QByteArray> lines = m_in.left(endOfHead).split('\n');
    m_in.remove(0, endOfHead + 4);
    const QList<QByteArray> statusLine = lines.first().trimmed().split(' ');
    bool ok = false;
    m_ending.status =
        statusLine.size() >= 2 && statusLine[0].startsWith("HTTP/1.") ? statusLine[1].toInt(&ok) : 0;
    if (!ok || m_ending.status < 100)
        return end(QStringLiteral("not an HTTP answer"));
    if (m_ending.status == 101)
        return end(QStringLiteral("the server switched protocols"));
    if (m_ending.status < 200) { // an interim answer (100 Continue, 103 Early Hints): the real one follows
        m_ending.status = 0;
        return parseHead();
    }
    QHash<QByteArray, QByteArray> headers;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
    }
    m_headDone = true;
    m_chunked = headers.value("transfer-encoding").toLower().contains("chunked");
    m_events = headers.value("content-type").toLower().startsWith("text/event-stream");
    if (!m_chunked && headers.contains("content-length")) {
        m_length = headers.value("content-length").toLongLong(&ok);
        if (!ok || m_length < 0)
            return end(QStringLiteral("a bad Content-Length"));
    }
    Q_EMIT head(m_ending.status, headers);
    if (!m_ended && m_length == 0)
        end(QString());
}

void HttpExchange::parseBody()
{
    if (!m_chunked) {
        const QByteArray part =
            m_length < 0 ? std::exchange(m_in, {}) : m_in.left(qsizetype(m_length - m_bodyRead));
        m_in.remove(0, part.size());
        m_bodyRead += part.size();
        take(part);
        if (!m_ended && m_length >= 0 && m_bodyRead >= m_length) {
            if (!m_events && !m_payload.isEmpty())
                Q_EMIT message(std::exchange(m_payload, {}));
            end(QString());
        }
        return;
    }
    while (!m_ended) {
        if (m_chunkLeft < 0) {
            const qsizetype lineEnd = m_in.indexOf("\r\n");
            if (lineEnd < 0) {
                if (m_in.size() > 1024)
                    end(QStringLiteral("a chunk size line over 1 KiB"));
                return;
            }
            bool ok = false;
            m_chunkLeft = m_in.left(lineEnd).split(';').first().trimmed().toLongLong(&ok, 16);
            m_in.remove(0, lineEnd + 2);
            if (!ok || m_chunkLeft < 0)
                return end(QStringLiteral("a bad chunk size"));
            if (m_chunkLeft == 0) {
                if (!m_events && !m_payload.isEmpty())
                    Q_EMIT message(std::exchange(m_payload, {}));
                return end(QString()); // trailers, if any, are not read
            }
        }
        const QByteArray part = m_in.left(qsizetype(m_chunkLeft));
        m_in.remove(0, part.size());
        m_chunkLeft -= part.size();
        take(part);
        if (m_chunkLeft > 0)
            return;
        if (m_in.size() < 2)
            return void(m_chunkLeft = 0); // the CRLF after the chunk is still to come
        m_in.remove(0, 2);
        m_chunkLeft = -1;
    }
}

void HttpExchange::take(const QByteArray &bytes)
{
    m_payload += bytes;
    if (m_events)
        takeEvents();
}

void HttpExchange::takeEvents()
{
    // Events end with a blank line; each event's data lines, joined with newlines, are one message.
    for (;;) {
        // Searched from where the last search stopped: a stream that drips one long event is not
        // scanned again from its start at every read.
        const qsizetype from = std::max<qsizetype>(0, m_eventScan - 3);
        qsizetype cut = m_payload.indexOf("\n\n", from);
        qsizetype skip = 2;
        const qsizetype crlf = m_payload.indexOf("\r\n\r\n", from);
        if (crlf >= 0 && (cut < 0 || crlf < cut)) {
            cut = crlf;
            skip = 4;
        }
        if (cut < 0) {
            m_eventScan = m_payload.size();
            return;
        }
        const QByteArray event = m_payload.left(cut);
        m_payload.remove(0, cut + skip);
        m_eventScan = 0;
        QByteArray data;
        for (QByteArray line : event.split('\n')) {
            if (line.endsWith('\r'))
                line.chop(1);
            if (!line.startsWith("data:"))
                continue; // comments, event names, ids, retry
            if (!data.isEmpty())
                data.append('\n');
            data.append(line.mid(line.startsWith("data: ") ? 6 : 5));
        }
        if (!data.isEmpty()) {
            Q_EMIT message(data);
            if (m_ended)
                return;
        }
    }
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
