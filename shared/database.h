#pragma once

#include "result.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariantList>

#include <memory>

namespace Countersign {

// One SQLite connection (one per thread), opened in WAL mode and migrated to the current schema.
// Every statement goes through exec(): prepared, parameters bound, lastError() turned into an Error.
class Database final
{
public:
    Q_DISABLE_COPY_MOVE(Database)
    ~Database();

    // path ":memory:" opens a private in-memory database (tests).
    static Result<std::unique_ptr<Database>> open(const QString &path);

    Result<QSqlQuery> exec(const char *sql, const QVariantList &bindings = {});
    Status transaction();
    Status commit();
    void rollback();

    int schemaVersion();
    QString path() const { return m_path; }
    // The QSqlDatabase connection name, for Qt SQL models on this connection's thread.
    QString connectionName() const { return m_connectionName; }

private:
    Database(QString connectionName, QString path);
    Status migrate();

    QString m_connectionName;
    QString m_path;
};

} // namespace Countersign
