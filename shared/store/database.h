#pragma once

#include "result.h"

#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlQuery>
#include <QString>
#include <QVariantList>

#include <functional>
#include <memory>
#include <optional>

namespace Countersign {

// How far a commit must reach before it returns. Synced: the disk (SQLite: an fsync per commit;
// PostgreSQL: the WAL flushed, and to a synchronous standby if there is one). Relaxed: SQLite's
// write-ahead log, synced at the next Synced commit or checkpoint; PostgreSQL's WAL buffer, flushed
// within moments. A relaxed record survives a crash of the app, not of the machine holding the
// store; the store stays consistent either way. Only records whose loss to a power cut changes no
// outcome are Relaxed.
enum class Durability { Synced, Relaxed };

// One connection to the store (one per thread) and migrated to the current schema: a SQLite file
// (WAL mode) or, given a postgresql:// URL, a PostgreSQL database that several instances share.
// Every statement goes through exec(): prepared, parameters bound, lastError() turned into an Error.
// The schema and its migrations: migrations.h; the URL: postgresurl.h.
class Database final
{
public:
    enum class Dialect { Sqlite, Postgres };
    Q_DISABLE_COPY_MOVE(Database)
    ~Database();

    enum class Access {
        ReadWrite, // migrated to the current schema; refused if SQLite could only open it read-only
        ReadOnly,  // for reading an audit log (a copy, read-only media): never written, so it must
                   // already have this build's schema
    };
    // location: a file path (":memory:" opens a private in-memory database, for tests) or a
    // postgresql:// URL (user, password, host, port, database, and sslmode or connect_timeout as
    // query items).
    static Result<std::unique_ptr<Database>> open(const QString &location, Access access = Access::ReadWrite);
    // A read-only connection of the calling thread to the store that connectionName (a connection
    // of this process, of any thread) reaches: its file, or its PostgreSQL database with the same
    // credentials and options. For reading off another connection's thread. An in-memory or URI
    // SQLite connection has no second connection: an error.
    static Result<std::unique_ptr<Database>> openReaderOf(const QString &connectionName);

    Dialect dialect() const { return m_dialect; }

    // PostgreSQL: this connection LISTENs for the store's changes (again after a reconnect); the
    // driver's notification signal (QSqlDriver::notification, on this connection's thread) then
    // says another instance, or this one, wrote. Nothing on SQLite (one file, one machine: its
    // readers poll).
    Status listenForChanges();
    // listenForChanges(), and changed called (in receiver's thread) at each notification.
    Status onChange(QObject *receiver, std::function<void()> changed);
    QSqlDriver *driver() const;

    // A statement. Writes belong in a WriteTransaction: it is the only way to begin one.
    Result<QSqlQuery> exec(const char *sql, const QVariantList &bindings = {});
    QString path() const { return m_path; }
    // SQLite's PRAGMA data_version: changes when another connection (of any process) committed to
    // the file since this connection last asked. Run on a statement prepared once and reset after
    // each read (it is asked on every authenticated request). Nothing on PostgreSQL, or when it
    // cannot be read.
    std::optional<qint64> dataVersion();
    // The QSqlDatabase connection name, for Qt SQL models on this connection's thread.
    QString connectionName() const { return m_connectionName; }

private:
    friend class WriteTransaction;
    Database(QString connectionName, QString path, Dialect dialect);
    // A write transaction: SQLite's BEGIN IMMEDIATE; PostgreSQL's BEGIN with the store's write lock.
    // Relaxed changes how this one commits only.
    Status beginWrite(Durability durability);
    // Ends what beginWrite() began, and puts SQLite's durability back. On PostgreSQL a committed
    // write also notifies every instance listening (delivered at the commit).
    Status endWrite(bool commit, Durability durability);
    static Result<std::unique_ptr<Database>> openPostgres(const QString &url, Access access);
    // After the connection opened: the session set up, and for reading the schema checked.
    static Result<std::unique_ptr<Database>> readyPostgres(std::unique_ptr<Database> database, Access access);
    Status beginWriteOn(Durability durability);
    Result<QSqlQuery> execOnce(const char *sql, const QVariantList &bindings);
    // PostgreSQL: the session's settings, read-only when opened so, and LISTEN when listening.
    Status setUpSession();
    bool reconnect();

    QString m_connectionName;
    QString m_path;
    Dialect m_dialect = Dialect::Sqlite;
    // From a write transaction's BEGIN to the endWrite() that ended it: a dropped connection is
    // then not reopened (the transaction went with it; its statements must not run without it).
    bool m_writing = false;
    bool m_readOnly = false;
    bool m_listening = false;
    std::unique_ptr<QSqlQuery> m_dataVersion; // dataVersion()'s statement, prepared on first use
};

} // namespace Countersign
