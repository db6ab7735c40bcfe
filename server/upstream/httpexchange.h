#pragma once

#include "httpanswer.h"

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
// approved upstream call twice). The answer is read as it arrives (HttpAnswer): a JSON body is handed
// over when complete, an event stream one event at a time, so an answer on a stream that stays open
// is seen at once. At most maxBytes of answer.
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
    // Hands over what the answer made of new bytes (head, messages, its end).
    void apply(const HttpAnswer::Progress &progress);
    void end(const QString &error);

    QUrl m_url;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QByteArray m_body;
    int m_limitMs = 0;
    QTcpSocket *m_socket = nullptr;
    HttpAnswer m_answer;
    Ending m_ending;
    bool m_ended = false;
};

} // namespace Countersign

Q_DECLARE_METATYPE(Countersign::HttpExchange::Ending)
