#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QStringList>

#include <map>
#include <string>

namespace Countersign {

class AuditStore;

// What the human has accepted of each upstream's tools, so that an upstream cannot widen the policy
// by changing what it says about itself. Per tool: whether it says readOnlyHint (which makes it run
// without a card when no rule or setting says otherwise), whether it says destructiveHint, and its
// input schema (by digest). Each time an upstream lists its tools they are judged against that:
//   - a change that only narrows (readOnlyHint dropped, destructiveHint added, a new tool that
//     asks) is taken at once, and recorded ("upstream-narrowed"); a tool no longer listed keeps
//     what was accepted of it;
//   - one that widens (readOnlyHint added, destructiveHint dropped, a new read-only or
//     non-destructive tool, a changed schema of a tool that runs without a card) is held: the tool keeps its
//     accepted standing (a new one asks) until the human accepts in the window ("upstream-widening-held",
//     then "upstream-widened-accepted" or "upstream-widened-rejected"). A refusal holds until the upstream
//     changes again.
// An upstream seen for the first time is taken as it lists itself: adding it to the configuration
// was the human's decision (the configuration guard holds that widening). The accepted tools are
// kept in the audit log ("upstream-tools-accepted"), so a change made while Countersign was
// stopped is judged at the next start. Lives in the server thread, with the server's AuditStore.
class UpstreamTrust final : public QObject
{
    Q_OBJECT
public:
    // How a tool is taken now: what the gate and the policy see of its annotations.
    struct Standing final
    {
        bool readOnly = false;
        bool destructive = true;
        QString held; // why its listed annotations are not taken yet; empty when they are
    };

    explicit UpstreamTrust(AuditStore &store, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(UpstreamTrust)

    // Reads what was accepted, from the audit log.
    Status load();
    // Judges an upstream's tools as listed now (the tools/list entries); records and reports what
    // changed. Call each time its tools are read.
    void judge(const QString &upstream, const nlohmann::json &tools);
    // What a tool's tools/list entry says of itself (its annotations, the spec's defaults applied).
    static Standing claimed(const nlohmann::json &tool);
    // A tool's standing, as the last judge() left it (a tool never judged: as if new).
    Standing standing(const QString &upstream, const QString &tool) const;
    // The widening waiting for the human, one line per change; empty when none.
    QStringList held(const QString &upstream) const;
    // The upstreams whose change is held and not refused.
    QStringList heldUpstreams() const;

    // The listing a held widening is of (wideningHeld's digest); empty when none is held.
    QString heldDigest(const QString &upstream) const;

public Q_SLOTS:
    // The human accepted (or refused) the listing the banner showed (its digest): nothing happens
    // when the upstream lists something else by now.
    void accept(const QString &upstream, const QString &digest);
    void keep(const QString &upstream, const QString &digest);

Q_SIGNALS:
    // An upstream's change widens and is held (widening: one line per change; digest: of that
    // listing, for accept and keep), or no longer is.
    void wideningHeld(const QString &upstream, const QStringList &widening, const QString &digest);
    void wideningCleared(const QString &upstream);
    // What is accepted changed: the tools must be built again.
    void changed();

private:
    struct Profile final
    {
        bool readOnly = false;
        bool destructive = true;
        std::string schema; // digest of the inputSchema
        bool operator==(const Profile &) const = default;
    };
    using Profiles = std::map<QString, Profile>;

    static Profiles profilesOf(const nlohmann::json &tools);
    static std::string digestOf(const Profiles &profiles);
    void recordAccepted();
    void record(const QString &event, const nlohmann::json &detail);

    AuditStore &m_store;
    std::map<QString, Profiles> m_accepted;
    std::map<QString, Profiles> m_listed;
    std::map<QString, QStringList> m_held;       // the widening of what is listed now
    std::map<QString, std::string> m_heldDigest; // the listing that widening is of
    std::map<QString, std::string> m_refused;    // a listing the human refused
};

} // namespace Countersign
