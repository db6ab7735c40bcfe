#pragma once

#include <QString>

namespace Countersign {

// Who is calling: the connection a bearer token belongs to. Tickets are bound to it.
struct Principal final
{
    qint64 connectionId = 0;
    QString name;

    bool operator==(const Principal &) const = default;
};

} // namespace Countersign
