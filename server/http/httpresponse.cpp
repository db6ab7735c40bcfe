#include "httpresponse.h"

namespace Countersign {

namespace {
const char *reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 409:
        return "Conflict";
    case 408:
        return "Request Timeout";
    case 411:
        return "Length Required";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 421:
        return "Misdirected Request";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default: // RFC 9110's class name: a client reads the status code, never the phrase
        return status >= 500   ? "Server Error"
               : status >= 400 ? "Client Error"
               : status >= 300 ? "Redirection"
                               : "Success";
    }
}
} // namespace

QByteArray HttpResponse::serialize(bool keepAlive, int keepAliveSeconds) const
{
    if (stream == Stream::More || stream == Stream::End)
        return body;
    if (stream == Stream::Open) {
        QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
        for (const auto &[name, value] : headers)
            head += name + ": " + value + "\r\n";
        head += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
        return head + body;
    }
    QByteArray out;
    out.reserve(body.size() + 256);
    out += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    out += "Cache-Control: no-store\r\n";
    out += "X-Content-Type-Options: nosniff\r\n";
    out += keepAlive && !close ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
    if (keepAlive && !close && keepAliveSeconds > 0)
        out += "Keep-Alive: timeout=" + QByteArray::number(keepAliveSeconds) + "\r\n";
    out += "\r\n";
    out += body;
    return out;
}

HttpResponse HttpResponse::json(int status, const QByteArray &body)
{
    HttpResponse r;
    r.status = status;
    r.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    r.body = body;
    return r;
}

} // namespace Countersign
