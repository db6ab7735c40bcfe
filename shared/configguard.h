#pragma once

#include "config.h"
#include "policychange.h"

#include <QObject>

#include <optional>

namespace Countersign {

class AuditStore;

// The configuration in force, and a reloaded one that widens what runs without a human, held until
// the human accepts it. offer() takes each configuration read from the file and compares it with
// the one in force (PolicyChange): a change that only narrows, or changes nothing the policy
// depends on, applies at once; a change that widens, even in part, applies only whole and only
// when accepted: in the window (accept() or keepCurrent()), or, with no window to ask in, at the
// next start. Every policy change is recorded in the audit log: "policy-narrowed",
// "policy-widened-accepted", "policy-widened-rejected", "policy-widening-waiting" (no window).
// Lives in the console's thread, with the console's AuditStore.
class ConfigGuard final : public QObject
{
    Q_OBJECT
public:
    enum class Widening {
        AskInWindow,    // held as pending until accept() or keepCurrent()
        WaitForRestart, // set aside (and recorded): the file is read again at the next start
    };

    ConfigGuard(Config inForce, AuditStore &audit, Widening widening, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ConfigGuard)
    ~ConfigGuard() override;

    const Config &inForce() const { return m_inForce; }
    // The widening configuration waiting for the human, and how it differs from the one in force.
    bool hasPending() const { return m_pending.has_value(); }
    const PolicyChange &pendingChange() const { return m_pendingChange; }
    QString pendingSource() const { return m_pending ? m_pending->sourcePath() : QString(); }

public Q_SLOTS:
    // A configuration read from the file. Replaces whatever was pending: the file changed again.
    void offer(const Countersign::Config &config);
    // Applies the pending configuration once its acceptance is in the audit log (a store error
    // leaves it pending, and says so through storeError).
    void accept();
    // Records the refusal and drops the pending configuration: the one in force stays until the
    // file changes again.
    void keepCurrent();
    // At start: compares the configuration in force with the last one the audit log holds
    // ("policy-in-force", written whenever the configuration in force changes). A widening made
    // while Countersign was stopped is recorded ("policy-widened-at-start") and reported through
    // widenedWhileStopped; it is in force, as the file says.
    void recordStart();

Q_SIGNALS:
    // The configuration now in force: for the server and the settings page.
    void applied(const Countersign::Config &config);
    // A widening configuration started or stopped waiting for the human (read hasPending()).
    void pendingChanged();
    // No window to ask in: a widening configuration was set aside until the next start.
    void waitingForRestart(const Countersign::PolicyChange &change, const QString &sourcePath);
    void storeError(const QString &message);
    void widenedWhileStopped(const Countersign::PolicyChange &change, const QString &sourcePath);

private:
    bool record(const QString &event, const PolicyChange &change, const QString &sourcePath,
                bool withDecider);
    void apply(Config config);
    void recordInForce();

    Config m_inForce;
    AuditStore &m_audit;
    Widening m_widening = Widening::AskInWindow;
    std::optional<Config> m_pending;
    PolicyChange m_pendingChange;
};

} // namespace Countersign
