#include "tokenstore.h"

#include "canonicaljson.h"
#include "clock.h"
#include "database.h"
#include "storesql.h"

#include <QRegularExpression>
#include <QVariant>

#include <sodium.h>

#include <algorithm>
#include <atomic>

namespace Countersign {

namespace {

// Every write of a connection by any TokenStore of this process (SQLite's data_version does not
// change for the connection that wrote).
std::atomic<quint64> &connectionWrites()
{
    static std::atomic<quint64> writes{0};
    return writes;
}
constexpr int kTokenBytes = 32;
constexpr char kTokenPrefix[] = "cs_";
} // namespace

TokenStore::TokenStore(Database &database, const Clock &clock) : m_database(database), m_clock(clock) {}

bool TokenStore::isValidName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"));
    return pattern.match(name).hasMatch();
}

Result<QString> TokenStore::add(const QString &name, const QString &owner)
{
    if (owner.trimmed().isEmpty() || owner.size() > 64)
        return failure(QStringLiteral("a connection needs an owner: a person's name of 1 to 64 characters"));
    if (!isValidName(name))
        return failure(
            QStringLiteral("invalid connection name \"%1\": use 1-64 letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit")
                .arg(name));
    unsigned char raw[kTokenBytes];
    randombytes_buf(raw, sizeof raw);
    const QString token =
        QLatin1String(kTokenPrefix) +
        QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(raw), sizeof raw)
                                .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    sodium_memzero(raw, sizeof raw);
    const QString hash = QString::fromLatin1(CanonicalJson::sha256Hex(token.toLatin1()));

    auto existing = m_database.exec(StoreSql::kConnectionByName, {name});
    if (!existing)
        return failure(existing.error());
    if (existing.value().next()) {
        if (existing.value().value(1).isNull())
            return failure(
                QStringLiteral("a connection named \"%1\" already exists; revoke it first").arg(name));
        auto replaced = m_database.exec(StoreSql::kConnectionReplace, {hash, m_clock.nowMs(), owner, name});
        ++connectionWrites();
        if (!replaced)
            return failure(replaced.error());
        return token;
    }
    auto inserted = m_database.exec(StoreSql::kConnectionInsert, {name, hash, m_clock.nowMs(), owner});
    ++connectionWrites();
    if (!inserted)
        return failure(inserted.error());
    return token;
}

Result<QList<TokenStore::Connection>> TokenStore::list()
{
    auto q = m_database.exec(StoreSql::kConnectionList);
    if (!q)
        return failure(q.error());
    QList<Connection> out;
    while (q.value().next()) {
        Connection c;
        c.name = q.value().value(0).toString();
        c.createdMs = q.value().value(1).toLongLong();
        if (!q.value().value(2).isNull())
            c.revokedMs = q.value().value(2).toLongLong();
        c.owner = q.value().value(3).toString();
        out.append(c);
    }
    return out;
}

Status TokenStore::revoke(const QString &name)
{
    auto q = m_database.exec(StoreSql::kConnectionRevoke, {m_clock.nowMs(), name});
    ++connectionWrites();
    if (!q)
        return failure(q.error());
    if (q.value().numRowsAffected() != 1)
        return failure(QStringLiteral("no active connection named \"%1\"").arg(name));
    return success();
}

std::optional<QList<TokenStore::Active>> TokenStore::active()
{
    // Both read before the table: a write between them and the read is seen now or next time.
    const quint64 writes = connectionWrites().load();
    const qint64 version = m_database.dataVersion().value_or(-1);
    if (m_active && version >= 0 && version == m_dataVersion && writes == m_writes)
        return m_active;
    m_active.reset();
    auto q = m_database.exec(StoreSql::kConnectionActiveHashes);
    if (!q) {
        m_lastError = q.error();
        return std::nullopt;
    }
    m_lastError.clear();
    QList<Active> rows;
    while (q.value().next())
        rows.append(Active{q.value().value(0).toLongLong(), q.value().value(1).toString(),
                           q.value().value(2).toString().toLatin1(), q.value().value(3).toString(),
                           q.value().value(4).toLongLong()});
    m_active = rows;
    m_dataVersion = version;
    m_writes = writes;
    return m_active;
}

std::optional<Principal> TokenStore::authenticate(const QByteArray &token)
{
    if (token.isEmpty() || token.size() > 256)
        return std::nullopt;
    const QByteArray presented = CanonicalJson::sha256Hex(token);
    const auto rows = active();
    if (!rows)
        return std::nullopt;
    std::optional<Principal> found;
    // Every active hash is compared, found or not, so timing says nothing about which matched.
    for (const Active &row : *rows) {
        if (row.hash.size() == presented.size() && sodium_memcmp(row.hash.constData(), presented.constData(),
                                                                 static_cast<size_t>(row.hash.size())) == 0)
            found = Principal{row.id, row.name, row.owner};
    }
    return found;
}

std::optional<qint64> TokenStore::issuedMs(qint64 connectionId)
{
    const auto rows = active();
    if (!rows)
        return std::nullopt;
    for (const Active &row : *rows) {
        if (row.id == connectionId)
            return row.createdMs;
    }
    return std::nullopt;
}

bool TokenStore::isActive(qint64 connectionId)
{
    const auto rows = active();
    if (!rows)
        return false; // fail closed
    return std::any_of(rows->cbegin(), rows->cend(),
                       [connectionId](const Active &row) { return row.id == connectionId; });
}

} // namespace Countersign
