#pragma once

#include "grant.h"
#include "result.h"

#include <QHash>
#include <QList>
#include <QObject>

#include <optional>

namespace Countersign {

class AuditStore;
class Clock;
class ReceiptSigner;

// The live "from now on" grants (Grant), kept in the audit chain alone: "grant-added" with the grant
// and "grant-revoked" with who revoked it, under "grant:<id>", so that `countersign audit verify`
// covers each, and a grant another process added or revoked (the test host, a console sharing a
// team store) counts. Each grant is signed with the console's key (the "signed" of its row, as a
// decision is), so a grant written or rewritten around the store decides nothing. A grant decides a
// call only if the chain holds it, signed, as it was added, and no revocation of it (checked at
// each use); expired ones decide nothing. What was added or revoked since is read before a call
// that would ask, or any call when asked (the rows after the last one read: an index range).
// One thread.
class Grants final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxLive = 256;

    // signer: signs the grants this process adds, and its key is the one a grant must be signed with.
    Grants(AuditStore &chain, const Clock &clock, const ReceiptSigner &signer, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(Grants)

    // Everything the chain holds, read again; refresh(): what was written after the last row read.
    Status load();
    Status refresh();
    // Records the grant (created now, by its by) in the chain; refused when kMaxLive are live.
    Result<Grant> add(Grant grant);
    Status revoke(const QString &id, const QString &by);
    // Not expired and not revoked, newest first.
    QList<Grant> live() const;
    std::optional<Grant> find(const QString &id) const;
    // The live grant of this verdict that covers the call, as the chain holds it; refreshFirst:
    // what was written since is read first.
    std::optional<Grant> covering(Verdict verdict, const QString &tool, const QString &principal,
                                  const nlohmann::json &arguments, const QString &argsDigest,
                                  const QString &agentSession, bool refreshFirst);
    // A call it decided (the server's gate): Settings' count is read from the store (uses()).
    void noteUse(const QString &id);
    // How many calls it decided, as the audit log records them (their rule names it); -1 when
    // the store cannot be read.
    int uses(const Grant &grant) const;

Q_SIGNALS:
    void changed();

private:
    // Whether the chain holds the grant as added and no revocation of it.
    bool vouched(const Grant &grant);
    // The grant a chain row holds, when its signature is this console's and signs it.
    std::optional<Grant> signedGrant(const nlohmann::json &detail) const;

    AuditStore &m_chain;
    const Clock &m_clock;
    const ReceiptSigner &m_signer;
    QList<Grant> m_grants; // added, oldest first; revoked ones removed
    QHash<QString, int> m_uses;
    qint64 m_lastSeq = 0; // the last chain row read
    // SQLite's data version at that read: grants are added and revoked by other connections (the
    // window's, the phone's, another process), so while it stays the same there is nothing new.
    std::optional<qint64> m_readAtVersion;
};

} // namespace Countersign
