#include "postgresurl.h"

#include <QUrl>
#include <QUrlQuery>

namespace Countersign {

bool PostgresUrl::names(const QString &location)
{
    return location.startsWith(QLatin1String("postgresql://")) ||
           location.startsWith(QLatin1String("postgres://"));
}

QString PostgresUrl::display(const QString &location)
{
    if (!names(location))
        return location;
    // Without its password, and without its options: a password may also come as one
    // (?password=...), and those Countersign passes on are not worth showing.
    return QUrl(location).toString(QUrl::RemovePassword | QUrl::RemoveQuery);
}

Result<PostgresUrl> PostgresUrl::parse(const QString &location)
{
    const QUrl u(location, QUrl::StrictMode);
    PostgresUrl url;
    url.shown = display(location);
    // Text that is no URL is not repeated: where it went wrong, a password may be read as the rest.
    if (!names(location) || !u.isValid() || u.host().isEmpty())
        return failure(
            QStringLiteral("not a PostgreSQL URL (postgresql://user:password@host:port/database)"));
    // Connection options the URL may carry; anything else is refused, not passed on unread.
    static const QStringList allowed{QStringLiteral("sslmode"), QStringLiteral("connect_timeout"),
                                     QStringLiteral("application_name"), QStringLiteral("sslrootcert")};
    url.options.append(QStringLiteral("connect_timeout=5"));
    for (const auto &[key, value] : QUrlQuery(u).queryItems(QUrl::FullyDecoded)) {
        if (!allowed.contains(key) || value.contains(QLatin1Char(';')) || value.contains(QLatin1Char(' ')))
            return failure(QStringLiteral("%1: the option %2 is not one Countersign passes on (%3)")
                               .arg(url.shown, key.left(64), allowed.join(QStringLiteral(", "))));
        url.options.append(key + QLatin1Char('=') + value);
    }
    url.host = u.host();
    url.port = u.port(5432);
    url.user = u.userName(QUrl::FullyDecoded);
    url.password = u.password(QUrl::FullyDecoded);
    const QString name = u.path(QUrl::FullyDecoded).mid(1);
    url.database = name.isEmpty() ? QStringLiteral("postgres") : name;
    return url;
}

} // namespace Countersign
