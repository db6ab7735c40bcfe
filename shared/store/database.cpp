#include "database.h"

#include "migrations.h"
#include "postgresurl.h"
#include "storesql.h"

#include <QAtomicInteger>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QUrl>

Q_LOGGING_CATEGORY(lcStore, "countersign.store")

namespace Countersign {

namespace {
QString nextConnectionName()
{
    static QAtomicInteger<quint64> counter;
    return QStringLiteral("countersign-%1").arg(counter.fetchAndAddRelaxed(1));
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

Database::Database(QString connectionName, QString path, Dialect dialect)
    : m_connectionName(std::move(connectionName)), m_path(std::move(path)), m_dialect(dialect)
{
}

Database::~Database()
{
    m_dataVersion.reset(); // its statement before the connection it was prepared on
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (db.isOpen())
            db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

Result<std::unique_ptr<Database>> Database::open(const QString &path, Access access)
{
    if (PostgresUrl::names(path))
        return openPostgres(path, access);
    const QString busy = QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000");
    std::unique_ptr<Database> database(new Database(nextConnectionName(), path, Dialect::Sqlite));
    if (access == Access::ReadOnly) {
        const QString readOnly = busy + QStringLiteral(";QSQLITE_OPEN_READONLY");
        if (auto opened = addConnection(database->m_connectionName, path, readOnly, path); !opened)
            return failure(opened.error());
        // A WAL-mode file is read through a -shm file beside it, which a folder nobody can write
        // cannot get; and then nobody can be writing the file either, so it is read as immutable.
        if (Migrations::version(*database) < 0 && !QFileInfo(QFileInfo(path).absolutePath()).isWritable()) {
            database.reset(new Database(nextConnectionName(), path, Dialect::Sqlite));
            QUrl uri = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath());
            uri.setQuery(QStringLiteral("immutable=1"));
            if (auto opened = addConnection(database->m_connectionName, uri.toString(),
                                            readOnly + QStringLiteral(";QSQLITE_OPEN_URI"), path);
                !opened)
                return failure(opened.error());
        }
        const int current = Migrations::version(*database);
        const int target = Migrations::latest();
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
    if (auto migrated = Migrations::apply(*database); !migrated)
        return failure(migrated.error());
    // SQLite opens a file it may not write read-only, and every later write would fail: refuse now.
    if (auto probe = database->exec(StoreSql::kBeginImmediate); !probe)
        return failure(QStringLiteral("the database %1 cannot be written (%2)").arg(path, probe.error()));
    if (auto rolledBack = database->exec(StoreSql::kRollback); !rolledBack)
        return failure(rolledBack.error());
    return database;
}

Result<std::unique_ptr<Database>> Database::openPostgres(const QString &location, Access access)
{
    auto parsed = PostgresUrl::parse(location);
    if (!parsed)
        return failure(parsed.error());
    const PostgresUrl &url = parsed.value();
    std::unique_ptr<Database> database(new Database(nextConnectionName(), url.shown, Dialect::Postgres));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), database->m_connectionName);
        if (!db.isValid())
            return failure(QStringLiteral("cannot open %1: Qt's PostgreSQL driver is not installed (Debian: "
                                          "libqt6sql6-psql)")
                               .arg(url.shown));
        db.setHostName(url.host);
        db.setPort(url.port);
        db.setUserName(url.user);
        db.setPassword(url.password);
        db.setDatabaseName(url.database);
        db.setConnectOptions(url.options.join(QLatin1Char(';')));
        if (!db.open())
            return failure(QStringLiteral("cannot open the PostgreSQL store %1: %2")
                               .arg(url.shown, db.lastError().text()));
    }
    if (access == Access::ReadOnly)
        return readyPostgres(std::move(database), access);
    if (auto session = database->setUpSession(); !session)
        return failure(session.error());
    // Migrating begins a write transaction, at every start: a store that cannot be written is
    // refused there.
    if (auto migrated = Migrations::apply(*database); !migrated)
        return failure(migrated.error());
    return database;
}

Result<std::unique_ptr<Database>> Database::readyPostgres(std::unique_ptr<Database> database, Access access)
{
    database->m_readOnly = access == Access::ReadOnly;
    if (auto session = database->setUpSession(); !session)
        return failure(session.error());
    if (access == Access::ReadOnly) {
        const int current = Migrations::version(*database);
        const int target = Migrations::latest();
        if (current != target)
            return failure(QStringLiteral("cannot read %1: its schema is %2, this build reads %3")
                               .arg(database->m_path)
                               .arg(current)
                               .arg(target));
    }
    return database;
}

Result<std::unique_ptr<Database>> Database::openReaderOf(const QString &connectionName)
{
    const QString name = nextConnectionName();
    QString driver;
    QString file;
    bool sqliteUri = false;
    QString shown;
    bool opened = false;
    QString openError;
    {
        // Cloning copies the settings (not the session) under the connection list's lock, so it
        // may be done on any thread; the clone's driver belongs to this one.
        QSqlDatabase clone = QSqlDatabase::cloneDatabase(connectionName, name);
        driver = clone.driverName();
        if (driver == QLatin1String("QPSQL")) {
            QUrl url;
            url.setScheme(QStringLiteral("postgresql"));
            url.setHost(clone.hostName());
            url.setPort(clone.port());
            url.setUserName(clone.userName());
            url.setPath(QLatin1Char('/') + clone.databaseName());
            shown = url.toString();
            opened = clone.open();
            if (!opened)
                openError = clone.lastError().text();
        } else {
            file = clone.databaseName();
            sqliteUri = clone.connectOptions().contains(QLatin1String("QSQLITE_OPEN_URI"));
        }
    }
    if (driver != QLatin1String("QPSQL")) {
        QSqlDatabase::removeDatabase(name);
        if (driver != QLatin1String("QSQLITE"))
            return failure(QStringLiteral("no store connection %1 to read alongside").arg(connectionName));
        if (sqliteUri || file.isEmpty() || file == QLatin1String(":memory:") || !QFileInfo(file).isFile())
            return failure(QStringLiteral("the store of %1 is not a file another connection can open")
                               .arg(connectionName));
        return open(file, Access::ReadOnly);
    }
    std::unique_ptr<Database> database(new Database(name, shown, Dialect::Postgres));
    if (!opened)
        return failure(QStringLiteral("cannot open the PostgreSQL store %1: %2").arg(shown, openError));
    return readyPostgres(std::move(database), Access::ReadOnly);
}

Status Database::setUpSession()
{
    for (const char *setting : StoreSql::kPostgresSession) {
        if (auto r = execOnce(setting, {}); !r)
            return failure(r.error());
    }
    if (m_readOnly) {
        if (auto r = execOnce(StoreSql::kPostgresReadOnly, {}); !r)
            return failure(r.error());
    }
    QSqlDriver *d = driver();
    if (m_listening && (!d || !d->subscribeToNotification(QLatin1String(StoreSql::kPostgresListenChannel))))
        return failure(QStringLiteral("cannot listen for changes to %1: %2")
                           .arg(m_path, d ? d->lastError().text() : QStringLiteral("no driver")));
    return success();
}

Status Database::listenForChanges()
{
    if (m_dialect != Dialect::Postgres)
        return success();
    m_listening = true;
    if (auto listening = setUpSession(); !listening) {
        m_listening = false;
        return listening;
    }
    return success();
}

Status Database::onChange(QObject *receiver, std::function<void()> changed)
{
    if (auto listening = listenForChanges(); !listening)
        return listening;
    QObject::connect(driver(),
                     qOverload<const QString &, QSqlDriver::NotificationSource, const QVariant &>(
                         &QSqlDriver::notification),
                     receiver, std::move(changed));
    return success();
}

QSqlDriver *Database::driver() const
{
    return QSqlDatabase::database(m_connectionName, false).driver();
}

Status Database::beginWrite(Durability durability)
{
    // PostgreSQL only warns of a BEGIN inside a transaction, and the inner one's ROLLBACK would
    // end the outer one: refused here on both, in SQLite's words.
    if (m_writing)
        return failure(QStringLiteral("database error: cannot start a transaction within a transaction"));
    Status begun = beginWriteOn(durability);
    if (!begun)
        m_writing = false;
    return begun;
}

Status Database::beginWriteOn(Durability durability)
{
    if (m_dialect == Dialect::Postgres) {
        if (auto begun = exec(StoreSql::kPostgresBegin); !begun) // may reopen a dropped connection
            return failure(begun.error());
        m_writing = true; // not after this: the lock and the writes belong to this BEGIN
        for (const char *step :
             {StoreSql::kPostgresWriteLock,
              durability == Durability::Relaxed ? StoreSql::kPostgresSyncRelaxed : nullptr}) {
            if (!step)
                continue;
            if (auto done = exec(step); !done) {
                (void)exec(StoreSql::kRollback);
                return failure(done.error());
            }
        }
        return success();
    }
    // synchronous is the connection's setting, read at each COMMIT: set for this transaction only
    // (SQLite refuses the change inside another), put back by endWrite().
    if (durability == Durability::Relaxed) {
        if (auto relaxed = exec(StoreSql::kSyncRelaxed); !relaxed)
            return failure(relaxed.error());
    }
    // IMMEDIATE takes the write lock up front: two connections appending to the audit chain never
    // both read the same last link (a deferred BEGIN would take it only at the first write).
    if (auto begun = exec(StoreSql::kBeginImmediate); !begun) {
        if (durability == Durability::Relaxed)
            (void)exec(StoreSql::kSyncFull);
        return failure(begun.error());
    }
    m_writing = true;
    return success();
}

Status Database::endWrite(bool commit, Durability durability)
{
    if (commit && m_dialect == Dialect::Postgres) {
        if (auto notified = exec(StoreSql::kPostgresNotifyChanged); !notified)
            return failure(notified.error());
    }
    if (auto ended = exec(commit ? StoreSql::kCommit : StoreSql::kRollback); !ended) {
        if (!commit)
            m_writing = false;         // a ROLLBACK fails where the database ended the transaction itself
        return failure(ended.error()); // a failed COMMIT leaves the transaction open
    }
    m_writing = false;
    if (m_dialect == Dialect::Sqlite && durability == Durability::Relaxed) {
        // Every later commit on this connection would be relaxed too: say so loudly.
        if (auto restored = exec(StoreSql::kSyncFull); !restored) {
            qCCritical(lcStore) << "cannot restore synchronous commits:" << restored.error();
            return failure(restored.error());
        }
    }
    return success();
}

Result<QSqlQuery> Database::exec(const char *sql, const QVariantList &bindings)
{
    auto done = execOnce(sql, bindings);
    // A PostgreSQL server restarted, or a connection dropped by the network, stays broken in
    // Qt's driver: outside a transaction (where nothing could be half done), a statement that
    // failed on a connection that no longer answers is tried once more on a new one.
    if (!done && m_dialect == Dialect::Postgres && !m_writing && !execOnce("SELECT 1", {}) && reconnect())
        done = execOnce(sql, bindings);
    return done;
}

bool Database::reconnect()
{
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    db.close();
    if (!db.open()) {
        qCWarning(lcStore) << "cannot reconnect to" << m_path << ":" << db.lastError().text();
        return false;
    }
    if (auto session = setUpSession(); !session) {
        qCWarning(lcStore) << "reconnected to" << m_path << "but" << session.error();
        return false;
    }
    qCInfo(lcStore) << "reconnected to" << m_path;
    return true;
}

std::optional<qint64> Database::dataVersion()
{
    if (m_dialect != Dialect::Sqlite)
        return std::nullopt;
    if (!m_dataVersion) {
        auto query = std::make_unique<QSqlQuery>(QSqlDatabase::database(m_connectionName, false));
        query->setForwardOnly(true);
        if (!query->prepare(QStringLiteral("PRAGMA data_version")))
            return std::nullopt;
        m_dataVersion = std::move(query);
    }
    std::optional<qint64> version;
    if (m_dataVersion->exec() && m_dataVersion->next())
        version = m_dataVersion->value(0).toLongLong();
    m_dataVersion->finish(); // reset: no read transaction is left open between requests
    return version;
}

Result<QSqlQuery> Database::execOnce(const char *sql, const QVariantList &bindings)
{
    QSqlQuery query(QSqlDatabase::database(m_connectionName, false));
    // PostgreSQL prepares only queries (not SET, BEGIN, CREATE...): a statement with nothing to
    // bind runs as it is, on both.
    if (bindings.isEmpty()) {
        if (!query.exec(QString::fromUtf8(sql)))
            return failure(QStringLiteral("database error: %1").arg(sqliteMessage(query.lastError())));
        return query;
    }
    if (!query.prepare(QString::fromUtf8(sql)))
        return failure(QStringLiteral("database error (prepare): %1").arg(query.lastError().text()));
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    if (!query.exec())
        return failure(QStringLiteral("database error: %1").arg(sqliteMessage(query.lastError())));
    return query;
}

} // namespace Countersign
