#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>

namespace Countersign {

// One HTTP/1.1 response. serialize() adds Content-Length, Connection and the headers every
// response carries (no-store, nosniff).
struct HttpResponse final
{
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    bool close = false;
    // A response written in parts (a server-sent event stream): Open writes the head (no
    // Content-Length; the connection closes at the end) and body, More writes body, End writes body
    // and closes. The responder may be called again until End.
    enum class Stream { None, Open, More, End };
    Stream stream = Stream::None;

    // keepAliveSeconds: how long the server keeps the connection idle, said in a Keep-Alive header
    // when it stays open (0: not said).
    QByteArray serialize(bool keepAlive, int keepAliveSeconds = 0) const;
    static HttpResponse json(int status, const QByteArray &body);
};

} // namespace Countersign
