#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QUrl>

class QTcpSocket;

namespace Countersign {

// One HTTP/1.1 POST to an MCP endpoint on a connection of its own, written once: never sent again
// on a connection that closed (QNetworkAccessManager re-sends a POST then, which would run an
// approved upstream call twice). The answer is read as it arrives: a JSON body is handed over when
// complete, an event stream one event at a time, so an answer on a stream that stays open is
// seen at once. Content-Length, chunked and read-to-close bodies; at most maxBytes of answer.
// abort() ends it at once; finished is emitted exactly once, then the exchange deletes itself.
class HttpExchange final : public QObject
{
    Q_OBJECT
public:
    struct Ending final
    {
        bool connected = false; // the connection was made: the request may have been read
        int status = 0;         // the HTTP status, 0 when no answer head came
        QString error;          // empty when the answer ended as HTTP says
    };

    // limitMs: the whole exchange's limit, after which it ends (a notification's POST that is never
    // answered must not stay open for ever).
    HttpExchange(QUrl url, QList<QPair<QByteArray, QByteArray>> headers, QByteArray body, qsizetype maxBytes,
                 int limitMs, QObject *parent = nullptr);
    ~HttpExchange() override;
    Q_DISABLE_COPY_MOVE(HttpExchange)

    void start();
    void abort(const QString &why);
    // The connection was made (the request may have been read by the server).
    bool isConnected() const { return m_ending.connected; }

Q_SIGNALS:
    // The answer's head; names in lower case.
    void head(int status, const QHash<QByteArray, QByteArray> &headers);
    // A JSON body, or one event's data.
    void message(const QByteArray &data);
    void finished(const Countersign::HttpExchange::Ending &ending);

private:
    void read();
    void parseHead();
    void parseBody();
    void take(const QByteArray &bytes); // decoded body bytes
    void takeEvents();
    void end(const QString &error);

    QUrl m_url;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QByteArray m_body;
    qsizetype m_maxBytes = 0;
    int m_limitMs = 0;
    QTcpSocket *m_socket = nullptr;
    Ending m_ending;
    QByteArray m_in;      // read and not parsed yet
    qsizetype m_read = 0; // answer bytes read so far
    bool m_headDone = false;
    bool m_chunked = false;
    bool m_events = false;
    qint64 m_length = -1;    // Content-Length, -1 when none
    qint64 m_chunkLeft = -1; // bytes left in the current chunk; -1 before a chunk's size line
    qint64 m_bodyRead = 0;
    QByteArray m_payload;      // a JSON body, or the event stream not yet cut into events
    qsizetype m_eventScan = 0; // how much of m_payload was searched for an event's end
    bool m_ended = false;
};

} // namespace Countersign

Q_DECLARE_METATYPE(Countersign::HttpExchange::Ending)
