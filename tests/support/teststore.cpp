#include "teststore.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUrl>

namespace Countersign::TestStore {

QString postgresServer()
{
    return qEnvironmentVariable("COUNTERSIGN_TEST_POSTGRES");
}

Result<QString> freshPostgres(const QString &name)
{
    const QUrl server(postgresServer());
    if (!server.isValid() || server.host().isEmpty())
        return failure(QStringLiteral("COUNTERSIGN_TEST_POSTGRES is not a postgresql:// URL"));
    Status status = success();
    {
        QSqlDatabase admin =
            QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("test-store-admin"));
        admin.setHostName(server.host());
        admin.setPort(server.port(5432));
        admin.setUserName(server.userName());
        admin.setPassword(server.password());
        admin.setDatabaseName(QStringLiteral("postgres"));
        if (!admin.open()) {
            status = failure(admin.lastError().text());
        } else {
            QSqlQuery q(admin);
            // The name is the test's own constant, never input.
            for (const QString &sql :
                 {QStringLiteral("DROP DATABASE IF EXISTS \"%1\" WITH (FORCE)").arg(name),
                  QStringLiteral("CREATE DATABASE \"%1\"").arg(name)}) {
                if (!q.exec(sql)) {
                    status = failure(q.lastError().text());
                    break;
                }
            }
            admin.close();
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("test-store-admin"));
    if (!status)
        return failure(status.error());
    QUrl url = server;
    url.setPath(QLatin1Char('/') + name);
    return url.toString();
}

} // namespace Countersign::TestStore
