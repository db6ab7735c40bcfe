#pragma once

#include <QString>

namespace Countersign {

// Who is calling: the connection a bearer token belongs to. Tickets are bound to it.
struct Principal final
{
    qint64 connectionId = 0;
    QString name;
    QString owner; // the person the connection belongs to (TokenStore::add); empty when not on record

    bool operator==(const Principal &) const = default;
};

} // namespace Countersign
