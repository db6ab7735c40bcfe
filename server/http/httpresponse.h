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

    QByteArray serialize(bool keepAlive) const;
    static HttpResponse json(int status, const QByteArray &body);
};

} // namespace Countersign
