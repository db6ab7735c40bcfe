#include "grants.h"

#include "auditstore.h"
#include "clock.h"
#include "receipt.h"

#include <algorithm>

namespace Countersign {

namespace {

QString chainKey(const QString &id)
{
    return QStringLiteral("grant:") + id;
}

} // namespace

Grants::Grants(AuditStore &chain, const Clock &clock, const ReceiptSigner &signer, QObject *parent)
    : QObject(parent), m_chain(chain), m_clock(clock), m_signer(signer)
{
}

std::optional<Grant> Grants::signedGrant(const nlohmann::json &detail) const
{
    auto grant = Grant::fromJson(detail);
    if (!grant || !detail.contains("signed") ||
        !ReceiptSigner::verify(detail.at("signed"), m_signer.publicKey()))
        return std::nullopt;
    const nlohmann::json body = grant.value().toJson();
    for (const auto &[key, value] : body.items()) {
        if (detail.at("signed").value(key, nlohmann::json()) != value ||
            detail.value(key, nlohmann::json()) != value)
            return std::nullopt;
    }
    // A session the signature names is never dropped from the row (which would widen it to any).
    if (detail.at("signed").is_object() && detail.at("signed").contains("session") &&
        !body.contains("session"))
        return std::nullopt;
    return std::move(grant).value();
}

Status Grants::load()
{
    m_grants.clear();
    m_lastSeq = 0;
    const Status read = refresh();
    Q_EMIT changed();
    return read;
}

Status Grants::refresh()
{
    // Nothing committed elsewhere since the last read: nothing new to read (this connection's own
    // writes are never grants; on PostgreSQL there is no such version, and it is read every time).
    const std::optional<qint64> version = m_chain.dataVersion();
    if (version && m_readAtVersion && *version == *m_readAtVersion && m_lastSeq > 0)
        return success();
    // The chain's last row first: every row up to it is read now, so the next read starts after it
    // (not after the last grant row, which would scan the whole log at every call).
    auto head = m_chain.head();
    if (!head)
        return failure(head.error());
    auto rows =
        m_chain.eventsAfter(QStringLiteral("grant-added"), QStringLiteral("grant-revoked"), m_lastSeq);
    if (!rows)
        return failure(rows.error());
    const qint64 readUpTo = head.value().seq;
    bool differs = false;
    for (const auto &row : rows.value()) {
        m_lastSeq = std::max(m_lastSeq, row.seq);
        if (row.event == QLatin1String("grant-revoked")) {
            differs = m_grants.removeIf([&row](const Grant &g) { return chainKey(g.id) == row.nonce; }) > 0 ||
                      differs;
            continue;
        }
        // A row not signed by this console's key, or whose grant is not its own key's (written
        // around the store), decides nothing; nor does a second row for the same grant.
        auto grant = signedGrant(row.detail);
        if (!grant || chainKey(grant->id) != row.nonce || find(grant->id))
            continue;
        m_grants.append(std::move(*grant));
        differs = true;
    }
    m_lastSeq = std::max(m_lastSeq, readUpTo);
    m_readAtVersion = version;
    if (differs)
        Q_EMIT changed();
    return success();
}

Result<Grant> Grants::add(Grant grant)
{
    if (live().size() >= kMaxLive)
        return failure(QStringLiteral("%1 grants are live: revoke one in Settings first").arg(kMaxLive));
    grant.createdMs = m_clock.nowMs();
    if (grant.expiresMs != 0 && grant.expiresMs <= grant.createdMs)
        return failure(QStringLiteral("the grant would have expired already"));
    nlohmann::json detail = grant.toJson();
    detail["signed"] = m_signer.sign(grant.toJson());
    if (auto recorded = m_chain.recordEvent(QStringLiteral("grant-added"), chainKey(grant.id), detail);
        !recorded)
        return failure(
            QStringLiteral("the grant could not be recorded, so it was not made: %1").arg(recorded.error()));
    m_grants.append(grant);
    Q_EMIT changed();
    return grant;
}

Status Grants::revoke(const QString &id, const QString &by)
{
    if (auto recorded = m_chain.recordEvent(QStringLiteral("grant-revoked"), chainKey(id),
                                            {{"by", by.toStdString()}, {"revokedMs", m_clock.nowMs()}});
        !recorded)
        return recorded;
    m_grants.removeIf([&id](const Grant &g) { return g.id == id; });
    (void)refresh();
    Q_EMIT changed();
    return success();
}

QList<Grant> Grants::live() const
{
    const qint64 now = m_clock.nowMs();
    QList<Grant> out;
    for (auto it = m_grants.crbegin(); it != m_grants.crend(); ++it) {
        if (!it->expiredAt(now))
            out.append(*it);
    }
    return out;
}

std::optional<Grant> Grants::find(const QString &id) const
{
    for (const Grant &g : m_grants) {
        if (g.id == id)
            return g;
    }
    return std::nullopt;
}

std::optional<Grant> Grants::covering(Verdict verdict, const QString &tool, const QString &principal,
                                      const nlohmann::json &arguments, const QString &argsDigest,
                                      const QString &agentSession, bool refreshFirst)
{
    if (refreshFirst) {
        if (auto read = refresh(); !read)
            return std::nullopt; // the chain cannot be read: no grant decides anything
    }
    for (const Grant &g : live()) {
        if (g.verdict == verdict && g.covers(tool, principal, arguments, argsDigest, agentSession) &&
            vouched(g))
            return g;
    }
    return std::nullopt;
}

bool Grants::vouched(const Grant &grant)
{
    auto revoked = m_chain.eventsOf(chainKey(grant.id), QStringLiteral("grant-revoked"));
    if (!revoked)
        return false;
    if (!revoked.value().isEmpty()) {
        m_grants.removeIf([&grant](const Grant &g) { return g.id == grant.id; });
        Q_EMIT changed();
        return false;
    }
    auto added = m_chain.eventsOf(chainKey(grant.id), QStringLiteral("grant-added"));
    if (!added || added.value().size() != 1)
        return false;
    const auto held = signedGrant(added.value().first());
    return held && held->toJson() == grant.toJson();
}

int Grants::uses(const Grant &grant) const
{
    const QString start = grant.ruleText().section(QLatin1Char(':'), 0, 0) + QLatin1Char(':');
    auto counted = m_chain.countByRule(start);
    return counted ? counted.value() : -1;
}

void Grants::noteUse(const QString &id)
{
    ++m_uses[id];
    Q_EMIT changed();
}

} // namespace Countersign
