#pragma once

#include "httprequest.h"

#include <QByteArray>
#include <QString>

namespace Countersign {

// Incremental HTTP/1.1 request parser with hard limits, written for hostile peers: no chunked
// bodies or Transfer-Encoding at all (refused, so no smuggling ambiguity), exactly one numeric
// Content-Length, no obsolete line folding, no whitespace before a colon, no control bytes in
// values, the body size checked from the header before a byte of it is read.
class HttpParser final
{
public:
    static constexpr qsizetype kMaxHeaderBytes = 16 * 1024;
    static constexpr qsizetype kMaxHeaders = 64;
    static constexpr qsizetype kMaxBodyBytes = 1024 * 1024;

    enum class State { NeedMore, Complete, Failed };

    // Appends bytes and parses as far as they go. After Failed, the connection must be closed
    // with errorStatus(); after Complete, takeRequest() and call feed({}) for pipelined requests.
    State feed(const QByteArray &bytes);
    HttpRequest takeRequest();

    int errorStatus() const { return m_errorStatus; }
    QString errorText() const { return m_errorText; }
    bool hasBufferedBytes() const { return !m_buffer.isEmpty(); }
    // The request being received, its head parsed (its body still arriving), or an empty one.
    const HttpRequest &head() const { return m_request; }
    // The Content-Length of the request being received, once its head is parsed (else -1).
    qsizetype expectedBodyBytes() const { return m_complete ? -1 : m_bodyLength; }

private:
    State fail(int status, const QString &text);
    State parseHead(qsizetype headEnd);

    QByteArray m_buffer;
    HttpRequest m_request;
    qsizetype m_bodyLength = -1; // -1 while the head is not parsed yet
    bool m_complete = false;
    int m_errorStatus = 0;
    QString m_errorText;
};

} // namespace Countersign
