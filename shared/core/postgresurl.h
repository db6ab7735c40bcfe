#pragma once

#include "result.h"

#include <QString>
#include <QStringList>

namespace Countersign {

// A PostgreSQL store's location, postgresql://user:password@host:port/database?option=value, read
// once by the one parser the configuration, the store and the audit and undo commands share: what
// the configuration accepts is what the store opens.
struct PostgresUrl
{
    QString host;
    int port = 5432;
    QString user;
    QString password;
    QString database; // "postgres" when the URL names none
    // The connection options Qt's driver is given ("key=value"): connect_timeout=5 first, then the
    // URL's own, each one of the allowed keys.
    QStringList options;
    // The URL as it may be shown: without its password.
    QString shown;

    // Whether a store location names PostgreSQL (postgresql:// or postgres://) rather than a file.
    static bool names(const QString &location);
    // The location as it may be shown: a URL without its password; a file path as it is.
    static QString display(const QString &location);
    // The parts of a postgresql:// URL, or why it is not one Countersign opens: not a URL, no host,
    // or a query option other than sslmode, connect_timeout, application_name and sslrootcert (or
    // one whose value holds a space or a semicolon, which would reach the driver as two).
    static Result<PostgresUrl> parse(const QString &location);
};

} // namespace Countersign
