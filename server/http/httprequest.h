#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QPointer>
#include <QString>

#include <optional>

namespace Countersign {

// One parsed HTTP/1.1 request. Header names are lower-case; values are trimmed of optional
// whitespace and otherwise byte-exact.
struct HttpRequest final
{
    QByteArray method;
    QByteArray target;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    bool keepAlive = true;
    // The connection it came on (null once that is gone): what holds a stream open sees it close.
    QPointer<QObject> connection;
    // The address it came from, as the socket has it ("127.0.0.1", "fe80::1").
    QString peer;

    // The target without its query: what a route matches.
    QByteArray path() const { return target.split('?').first(); }

    std::optional<QByteArray> header(const char *lowerName) const
    {
        for (const auto &[name, value] : headers) {
            if (name == lowerName)
                return value;
        }
        return std::nullopt;
    }
};

} // namespace Countersign
