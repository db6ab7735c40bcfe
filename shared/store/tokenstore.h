#pragma once

#include "principal.h"
#include "result.h"

#include <QList>
#include <QString>

#include <optional>

namespace Countersign {

class Clock;
class Database;

// Client connections and their bearer tokens. A token is shown once, at creation; only its
// SHA-256 is stored, and authentication compares hashes in constant time. On SQLite the active
// connections are read again only when the store says they may have changed (its data_version,
// for another connection or process; a counter, for this process's own writes), so that every
// request does not read the table, and a revocation is still seen on the very next one.
class TokenStore final
{
public:
    struct Connection final
    {
        QString name;
        qint64 createdMs = 0;
        std::optional<qint64> revokedMs;
        QString owner;
    };

    TokenStore(Database &database, const Clock &clock);
    Q_DISABLE_COPY_MOVE(TokenStore)

    // Creates the connection NAME for owner, the person whose agent will use it (or gives a
    // revoked one a new token and owner), and returns the token. An active connection of that name
    // is refused: revoke it first. A team's review rules can bar the owner from approving its calls.
    Result<QString> add(const QString &name, const QString &owner);
    Result<QList<Connection>> list();
    // Refused when no active connection has that name.
    Status revoke(const QString &name);
    // The principal the token belongs to, or nothing when it is unknown or revoked.
    std::optional<Principal> authenticate(const QByteArray &token);
    // Why the last authenticate() could not look the token up (the store failed); empty when it
    // could. A token refused for that reason is not "unknown": the caller says which.
    QString lastError() const { return m_lastError; }
    // Whether the connection exists and is not revoked; false when the store cannot say.
    bool isActive(qint64 connectionId);
    // When the connection's current token was given (a revoked name given again has a new one);
    // nothing when it is not active or the store cannot say.
    std::optional<qint64> issuedMs(qint64 connectionId);

    static bool isValidName(const QString &name);

private:
    struct Active final
    {
        qint64 id = 0;
        QString name;
        QByteArray hash;
        QString owner;
        qint64 createdMs = 0;
    };
    // The active connections, read again when the store may have changed; nothing when it fails.
    std::optional<QList<Active>> active();

    Database &m_database;
    const Clock &m_clock;
    QString m_lastError;
    std::optional<QList<Active>> m_active; // as last read
    qint64 m_dataVersion = -1;             // SQLite's data_version when they were read
    quint64 m_writes = 0;                  // this process's writes counted when they were read
};

} // namespace Countersign
