#include "database.h"

#include "storesql.h"

#include <QAtomicInteger>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSqlError>
#include <QUrl>

#include <iterator>

Q_LOGGING_CATEGORY(lcStore, "countersign.store")

namespace Countersign {

namespace {
QString nextConnectionName()
{
    static QAtomicInteger<quint64> counter;
    return QStringLiteral("countersign-%1").arg(counter.fetchAndAddRelaxed(1));
}

// The schema this build writes and reads: the last migration's version.
int latestSchema()
{
    return std::rbegin(StoreSql::kMigrations)->version;
}

// SQLite's own words ("database or disk is full"), without the driver's "Unable to fetch row".
QString sqliteMessage(const QSqlError &error)
{
    return error.databaseText().isEmpty() ? error.text() : error.databaseText();
}

// Opens the Qt SQL connection `name` on a file name or a file: URI.
Status addConnection(const QString &name, const QString &target, const QString &options, const QString &path)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
    db.setDatabaseName(target);
    db.setConnectOptions(options);
    if (!db.open())
        return failure(QStringLiteral("cannot open database %1: %2").arg(path, db.lastError().text()));
    return success();
}
} // namespace

Database::Database(QString connectionName, QString path)
    : m_connectionName(std::move(connectionName)), m_path(std::move(path))
{
}

Database::~Database()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

Result<std::unique_ptr<Database>> Database::open(const QString &path, Access access)
{
    const QString busy = QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000");
    std::unique_ptr<Database> database(new Database(nextConnectionName(), path));
    if (access == Access::ReadOnly) {
        const QString readOnly = busy + QStringLiteral(";QSQLITE_OPEN_READONLY");
        if (auto opened = addConnection(database->m_connectionName, path, readOnly, path); !opened)
            return failure(opened.error());
        // A WAL-mode file is read through a -shm file beside it, which a folder nobody can write
        // cannot get; and then nobody can be writing the file either, so it is read as immutable.
        if (database->schemaVersion() < 0 && !QFileInfo(QFileInfo(path).absolutePath()).isWritable()) {
            database.reset(new Database(nextConnectionName(), path));
            QUrl uri = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath());
            uri.setQuery(QStringLiteral("immutable=1"));
            if (auto opened = addConnection(database->m_connectionName, uri.toString(),
                                            readOnly + QStringLiteral(";QSQLITE_OPEN_URI"), path);
                !opened)
                return failure(opened.error());
        }
        const int current = database->schemaVersion();
        const int target = latestSchema();
        if (current != target)
            return failure(
                QStringLiteral("cannot read %1: its schema is %2, this build reads %3 (open it once, "
                               "writable, with this version of Countersign to upgrade it)")
                    .arg(path)
                    .arg(current)
                    .arg(target));
        return database;
    }
    if (auto opened = addConnection(database->m_connectionName, path, busy, path); !opened)
        return failure(opened.error());
    if (path != QLatin1String(":memory:")) {
        auto wal = database->exec("PRAGMA journal_mode=WAL");
        if (!wal)
            return failure(wal.error());
    }
    for (const char *pragma : {"PRAGMA foreign_keys=ON", StoreSql::kSyncFull}) {
        auto r = database->exec(pragma);
        if (!r)
            return failure(r.error());
    }
    if (auto migrated = database->migrate(); !migrated)
        return failure(migrated.error());
    // SQLite opens a file it may not write read-only, and every later write would fail: refuse now.
    if (auto probe = database->exec(StoreSql::kBeginImmediate); !probe)
        return failure(QStringLiteral("the database %1 cannot be written (%2)").arg(path, probe.error()));
    if (auto rolledBack = database->exec(StoreSql::kRollback); !rolledBack)
        return failure(rolledBack.error());
    return database;
}

Result<QSqlQuery> Database::exec(const char *sql, const QVariantList &bindings)
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    if (!query.prepare(QString::fromUtf8(sql)))
        return failure(QStringLiteral("database error (prepare): %1").arg(query.lastError().text()));
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    if (!query.exec())
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(query.lastError())));
    return query;
}

Status Database::transaction()
{
    if (!QSqlDatabase::database(m_connectionName, false).transaction())
        return failure(QStringLiteral("database error: cannot begin a transaction"));
    return success();
}

Status Database::commit()
{
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    if (!db.commit())
        return failure(QStringLiteral("database error (commit): %1").arg(sqliteMessage(db.lastError())));
    return success();
}

void Database::rollback()
{
    QSqlDatabase::database(m_connectionName, false).rollback();
}

int Database::schemaVersion()
{
    auto q = exec(StoreSql::kSchemaVersionGet);
    if (!q || !q.value().next())
        return -1;
    return q.value().value(0).toInt();
}

Status Database::migrate()
{
    const int current = schemaVersion();
    if (current < 0)
        return failure(QStringLiteral("cannot read the schema version of %1").arg(m_path));
    const int target = latestSchema();
    if (current > target)
        return failure(QStringLiteral("database %1 has schema %2, newer than this build knows (%3)")
                           .arg(m_path)
                           .arg(current)
                           .arg(target));
    for (int version = current + 1; version <= target; ++version) {
        if (auto t = transaction(); !t)
            return t;
        QString error;
        for (const auto &migration : StoreSql::kMigrations) {
            if (migration.version != version)
                continue;
            if (auto step = exec(migration.statement); !step) {
                error = step.error();
                break;
            }
        }
        // PRAGMA takes no bound parameters; the value is our own integer.
        if (error.isEmpty()) {
            const QByteArray bump = QByteArray("PRAGMA user_version = ") + QByteArray::number(version);
            if (auto r = exec(bump.constData()); !r)
                error = r.error();
        }
        if (!error.isEmpty()) {
            rollback();
            return failure(QStringLiteral("migration to schema %1 failed: %2").arg(version).arg(error));
        }
        if (auto c = commit(); !c)
            return c;
        qCInfo(lcStore) << "migrated" << m_path << "to schema" << version;
    }
    return success();
}

} // namespace Countersign
