#include "httpanswer.h"

#include <algorithm>

namespace Countersign {

namespace {

constexpr qsizetype kMaxHeadBytes = 64 * 1024;
constexpr qsizetype kMaxChunkLineBytes = 1024;

} // namespace

HttpAnswer::Progress HttpAnswer::feed(const QByteArray &bytes)
{
    Progress progress;
    if (m_ended)
        return progress;
    m_read += bytes.size();
    if (m_read > m_maxBytes) {
        finish(progress, QStringLiteral("the answer is over %1 MiB").arg(m_maxBytes / (1024 * 1024)));
        return progress;
    }
    m_in += bytes;
    if (!m_headDone)
        parseHead(progress);
    if (m_headDone && !m_ended)
        parseBody(progress);
    return progress;
}

HttpAnswer::Progress HttpAnswer::close()
{
    Progress progress;
    if (m_ended)
        return progress;
    if (m_headDone && !m_chunked && m_length < 0) {
        if (!m_events && !m_payload.isEmpty())
            progress.messages.append(std::exchange(m_payload, {}));
        finish(progress);
    } else {
        finish(progress, m_headDone ? QStringLiteral("the connection closed before the answer ended")
                                    : QStringLiteral("the connection closed without an answer"));
    }
    return progress;
}

void HttpAnswer::parseHead(Progress &progress)
{
    for (;;) {
        const qsizetype endOfHead = m_in.indexOf("\r\n\r\n", std::max<qsizetype>(0, m_headScan - 3));
        if (endOfHead < 0) {
            m_headScan = m_in.size();
            if (m_in.size() > kMaxHeadBytes)
                finish(progress, QStringLiteral("the answer's head is over 64 KiB"));
            return;
        }
        const QList<QByteArray> lines = m_in.left(endOfHead).split('\n');
        m_in.remove(0, endOfHead + 4);
        m_headScan = 0;
        const QList<QByteArray> statusLine = lines.first().trimmed().split(' ');
        bool ok = false;
        m_status =
            statusLine.size() >= 2 && statusLine[0].startsWith("HTTP/1.") ? statusLine[1].toInt(&ok) : 0;
        if (!ok || m_status < 100 || m_status > 999)
            return finish(progress, QStringLiteral("not an HTTP answer"));
        if (m_status == 101)
            return finish(progress, QStringLiteral("the server switched protocols"));
        if (m_status < 200) { // an interim answer (100 Continue, 103 Early Hints): the real one follows
            m_status = 0;
            continue;
        }
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                m_headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
        }
        m_headDone = true;
        progress.headNow = true;
        m_chunked = m_headers.value("transfer-encoding").toLower().contains("chunked");
        m_events = m_headers.value("content-type").toLower().startsWith("text/event-stream");
        if (!m_chunked && m_headers.contains("content-length")) {
            m_length = m_headers.value("content-length").toLongLong(&ok);
            if (!ok || m_length < 0)
                return finish(progress, QStringLiteral("a bad Content-Length"));
        }
        if (m_length == 0)
            finish(progress);
        return;
    }
}

void HttpAnswer::parseBody(Progress &progress)
{
    if (!m_chunked) {
        const QByteArray part =
            m_length < 0 ? std::exchange(m_in, {}) : m_in.left(qsizetype(m_length - m_bodyRead));
        m_in.remove(0, part.size());
        m_bodyRead += part.size();
        take(part, progress);
        if (!m_ended && m_length >= 0 && m_bodyRead >= m_length) {
            if (!m_events && !m_payload.isEmpty())
                progress.messages.append(std::exchange(m_payload, {}));
            finish(progress);
        }
        return;
    }
    while (!m_ended) {
        if (m_chunkLeft < 0) {
            const qsizetype lineEnd = m_in.indexOf("\r\n");
            if (lineEnd < 0) {
                if (m_in.size() > kMaxChunkLineBytes)
                    finish(progress, QStringLiteral("a chunk size line over 1 KiB"));
                return;
            }
            bool ok = false;
            m_chunkLeft = m_in.left(lineEnd).split(';').first().trimmed().toLongLong(&ok, 16);
            m_in.remove(0, lineEnd + 2);
            if (!ok || m_chunkLeft < 0)
                return finish(progress, QStringLiteral("a bad chunk size"));
            if (m_chunkLeft == 0) {
                if (!m_events && !m_payload.isEmpty())
                    progress.messages.append(std::exchange(m_payload, {}));
                return finish(progress); // trailers, if any, are not read
            }
        }
        const QByteArray part = m_in.left(qsizetype(std::min<qint64>(m_chunkLeft, m_in.size())));
        m_in.remove(0, part.size());
        m_chunkLeft -= part.size();
        take(part, progress);
        if (m_chunkLeft > 0)
            return;
        if (m_in.size() < 2) {
            m_chunkLeft = 0; // the CRLF after the chunk is still to come
            return;
        }
        if (!m_in.startsWith("\r\n"))
            return finish(progress, QStringLiteral("a chunk without its CRLF"));
        m_in.remove(0, 2);
        m_chunkLeft = -1;
    }
}

void HttpAnswer::take(const QByteArray &bytes, Progress &progress)
{
    m_payload += bytes;
    if (!m_events)
        return;
    // Events end with a blank line; each event's data lines, joined with newlines, are one message.
    for (;;) {
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
        if (!data.isEmpty())
            progress.messages.append(data);
    }
}

void HttpAnswer::finish(Progress &progress, const QString &error)
{
    m_ended = true;
    progress.ended = true;
    progress.error = error;
}

} // namespace Countersign
