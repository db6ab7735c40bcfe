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

    enum class Access {
        ReadWrite, // migrated to the current schema; refused if SQLite could only open it read-only
        ReadOnly,  // for reading an audit log (a copy, read-only media): never written, so it must
                   // already have this build's schema
    };
    // path ":memory:" opens a private in-memory database (tests).
    static Result<std::unique_ptr<Database>> open(const QString &path, Access access = Access::ReadWrite);

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
