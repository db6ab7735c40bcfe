#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

namespace Countersign {

// Reads an HTTP/1.1 answer as its bytes arrive, without a socket (HttpExchange feeds it; the fuzz
// target too): the head (interim 1xx heads passed over), then the body by Content-Length, chunked
// or to the close; a JSON body is handed over whole, an event stream one event's data at a time.
// Every search resumes where the last stopped, so an answer dripped byte by byte costs linear time.
class HttpAnswer final
{
public:
    explicit HttpAnswer(qsizetype maxBytes) : m_maxBytes(maxBytes) {}

    // What one feed() made of its bytes: the messages complete so far, and whether the head came
    // (status, headers) and the answer ended (error empty: as HTTP says; else why it cannot go on).
    struct Progress final
    {
        QList<QByteArray> messages;
        bool headNow = false; // the head was read by this feed
        bool ended = false;
        QString error;
    };
    Progress feed(const QByteArray &bytes);
    // The connection closed: a body read to the close ends here; anything else was cut short.
    Progress close();

    int status() const { return m_status; }
    const QHash<QByteArray, QByteArray> &headers() const { return m_headers; }
    bool isEnded() const { return m_ended; }

private:
    void parseHead(Progress &progress);
    void parseBody(Progress &progress);
    void take(const QByteArray &bytes, Progress &progress);
    void finish(Progress &progress, const QString &error = {});

    qsizetype m_maxBytes = 0;
    qsizetype m_read = 0;
    QByteArray m_in;
    qsizetype m_headScan = 0; // how much of m_in was searched for the head's end
    int m_status = 0;
    QHash<QByteArray, QByteArray> m_headers;
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
