#include "httpparser.h"

namespace Countersign {

namespace {

bool isTokenChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView s)
{
    return !s.isEmpty() && std::all_of(s.cbegin(), s.cend(), isTokenChar);
}

bool hasControlBytes(QByteArrayView s)
{
    return std::any_of(s.cbegin(), s.cend(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && u != '\t') || u == 0x7F;
    });
}

// Headers that must appear at most once: a second copy is how requests get smuggled or checks get
// split from uses.
bool mustBeUnique(const QByteArray &name)
{
    return name == "content-length" || name == "host" || name == "authorization" || name == "origin" ||
           name == "content-type" || name == "transfer-encoding" || name.startsWith("mcp-");
}

} // namespace

HttpParser::State HttpParser::fail(int status, const QString &text)
{
    m_errorStatus = status;
    m_errorText = text;
    return State::Failed;
}

HttpParser::State HttpParser::feed(const QByteArray &bytes)
{
    if (m_errorStatus != 0)
        return State::Failed;
    if (m_complete)
        return State::Complete;
    m_buffer.append(bytes);
    // Pipelined bytes wait here while a request is served; a peer may not park more than one
    // maximal request's worth.
    if (m_buffer.size() > kMaxHeaderBytes + kMaxBodyBytes)
        return fail(413, QStringLiteral("too many bytes sent ahead of the responses"));
    if (m_bodyLength < 0) {
        // Tolerate (RFC 9112) empty lines before a request line, e.g. after a previous body.
        while (m_buffer.startsWith("\r\n"))
            m_buffer.remove(0, 2);
        const qsizetype headEnd = m_buffer.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            // A bare LF is refused as soon as it arrives, not after the head would have ended.
            for (qsizetype at = m_buffer.indexOf('\n'); at >= 0; at = m_buffer.indexOf('\n', at + 1)) {
                if (at == 0 || m_buffer[at - 1] != '\r')
                    return fail(400, QStringLiteral("bare LF in the request head"));
            }
            if (m_buffer.size() > kMaxHeaderBytes)
                return fail(431, QStringLiteral("request head larger than %1 bytes").arg(kMaxHeaderBytes));
            return State::NeedMore;
        }
        if (headEnd + 4 > kMaxHeaderBytes)
            return fail(431, QStringLiteral("request head larger than %1 bytes").arg(kMaxHeaderBytes));
        if (const State s = parseHead(headEnd); s == State::Failed)
            return s;
        m_buffer.remove(0, headEnd + 4);
    }
    if (m_buffer.size() < m_bodyLength)
        return State::NeedMore;
    m_request.body = m_buffer.left(m_bodyLength);
    m_buffer.remove(0, m_bodyLength);
    m_complete = true;
    return State::Complete;
}

HttpParser::State HttpParser::parseHead(qsizetype headEnd)
{
    // Read in place (views into the buffer): only each header's name and value are copied out.
    const QByteArrayView head(m_buffer.constData(), headEnd);
    m_request = HttpRequest{};
    for (qsizetype at = head.indexOf('\n'); at >= 0; at = head.indexOf('\n', at + 1)) {
        if (at == 0 || head[at - 1] != '\r')
            return fail(400, QStringLiteral("bare LF in the request head"));
    }
    // Line by line, each without its CR: the request line first, then the headers.
    qsizetype start = 0;
    const auto nextLine = [&head, &start] {
        const qsizetype newline = head.indexOf('\n', start);
        const qsizetype end = newline < 0 ? head.size() : newline;
        QByteArrayView line = head.sliced(start, end - start);
        start = end + 1;
        return line.endsWith('\r') ? line.chopped(1) : line;
    };
    const QByteArrayView requestLine = nextLine();
    const qsizetype space1 = requestLine.indexOf(' ');
    const qsizetype space2 = space1 < 0 ? -1 : requestLine.indexOf(' ', space1 + 1);
    if (space2 < 0 || requestLine.indexOf(' ', space2 + 1) >= 0)
        return fail(400, QStringLiteral("malformed request line"));
    const QByteArrayView method = requestLine.first(space1);
    const QByteArrayView target = requestLine.sliced(space1 + 1, space2 - space1 - 1);
    const QByteArrayView version = requestLine.sliced(space2 + 1);
    if (!isToken(method) || target.isEmpty() || hasControlBytes(target))
        return fail(400, QStringLiteral("malformed request line"));
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return fail(505, QStringLiteral("only HTTP/1.1 is served"));
    m_request.method = method.toByteArray();
    m_request.target = target.toByteArray();
    m_request.keepAlive = version == "HTTP/1.1";

    while (start <= head.size()) {
        const QByteArrayView line = nextLine();
        if (line.isEmpty())
            continue;
        if (line.front() == ' ' || line.front() == '\t')
            return fail(400, QStringLiteral("obsolete header line folding is not accepted"));
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return fail(400, QStringLiteral("malformed header line"));
        const QByteArray name = line.first(colon).toByteArray().toLower();
        if (!isToken(name))
            return fail(400, QStringLiteral("malformed header name"));
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (hasControlBytes(value))
            return fail(400,
                        QStringLiteral("control characters in header %1").arg(QString::fromLatin1(name)));
        if (mustBeUnique(name) && m_request.header(name.constData()))
            return fail(400, QStringLiteral("duplicate header %1").arg(QString::fromLatin1(name)));
        m_request.headers.append(qMakePair(name, value.toByteArray()));
        if (m_request.headers.size() > kMaxHeaders)
            return fail(431, QStringLiteral("more than %1 headers").arg(kMaxHeaders));
    }
    if (const auto connection = m_request.header("connection")) {
        const QByteArray c = connection->toLower();
        if (c.contains("close"))
            m_request.keepAlive = false;
        else if (c.contains("keep-alive"))
            m_request.keepAlive = true;
    }
    if (m_request.header("transfer-encoding"))
        return fail(501, QStringLiteral("Transfer-Encoding is not supported; send Content-Length"));
    const auto length = m_request.header("content-length");
    if (!length) {
        if (m_request.method == "POST" || m_request.method == "PUT" || m_request.method == "PATCH")
            return fail(411, QStringLiteral("Content-Length is required"));
        m_bodyLength = 0;
        return State::NeedMore;
    }
    if (length->isEmpty() || length->size() > 12 ||
        !std::all_of(length->cbegin(), length->cend(), [](char c) { return c >= '0' && c <= '9'; }))
        return fail(400, QStringLiteral("invalid Content-Length"));
    m_bodyLength = length->toLongLong();
    if (m_bodyLength > kMaxBodyBytes)
        return fail(413, QStringLiteral("body larger than %1 bytes").arg(kMaxBodyBytes));
    return State::NeedMore;
}

HttpRequest HttpParser::takeRequest()
{
    HttpRequest out = std::move(m_request);
    m_request = HttpRequest{};
    m_bodyLength = -1;
    m_complete = false;
    return out;
}

} // namespace Countersign
