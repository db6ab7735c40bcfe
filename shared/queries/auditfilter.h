#pragma once

#include <QDate>
#include <QString>

namespace Countersign {

// Which operations the audit view shows: empty fields do not filter. Dates are UTC days, both ends
// included.
struct AuditFilter final
{
    QString decision; // an Operation status name: approved, declined, expired, superseded, allowed, denied,
                      // pending
    QString client;   // the client's name, or the connection's when the client gave none
    QString tool;
    QDate from;
    QDate to;
    QString text;     // searched in tool, connection, client, plan, arguments and reason, literally
    QString person;   // decided or approved it, or owns the connection it came through
    QString instance; // the instance that served it (Config::instanceName)

    bool operator==(const AuditFilter &) const = default;
};

} // namespace Countersign
