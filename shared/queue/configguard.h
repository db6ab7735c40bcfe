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
// when accepted in the window (accept() or keepCurrent()). With no window to ask in it is held,
// and the configuration in force stays. The same holds across restarts: at start, the file is
// compared with the configuration accepted last (the audit log's "policy-in-force"), and a
// widening waits as a live edit does while the one accepted last runs; a widening refused in the
// window stays refused until the file changes again. Every policy change is recorded in the
// audit log: "policy-narrowed", "policy-widened-accepted", "policy-widened-rejected",
// "policy-widening-waiting" (found, and waiting or held). Lives in the console's thread, with the
// console's AuditStore.
class ConfigGuard final : public QObject
{
    Q_OBJECT
public:
    enum class Widening {
        AskInWindow,   // held as pending until accept() or keepCurrent()
        HeldForWindow, // no window (headless, stdio): set aside and recorded; a window console accepts it
    };

    ConfigGuard(Config inForce, AuditStore &audit, Widening widening, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ConfigGuard)
    ~ConfigGuard() override;

    const Config &inForce() const { return m_inForce; }
    // Also keeps the configuration in force in path, this data folder's own copy, which at start is
    // the baseline before the store's record: a file that switches to a fresh store, or another
    // instance sharing a team store, cannot stand in for what was accepted here. Call before
    // recordStart().
    void setBaselineFile(const QString &path) { m_baselineFile = path; }
    // The widening configuration waiting for the human, and how it differs from the one in force.
    bool hasPending() const { return m_pending.has_value(); }
    const PolicyChange &pendingChange() const { return m_pendingChange; }
    QString pendingSource() const { return m_pending ? m_pending->sourcePath() : QString(); }
    // When the file waiting was changed, and since when the configuration in force has been in
    // force, in words ("" when neither is known).
    const QString &pendingWhen() const { return m_pendingWhen; }

public Q_SLOTS:
    // A configuration read from the file. Replaces whatever was pending: the file changed again.
    void offer(const Countersign::Config &config);
    // Applies the pending configuration once its acceptance is in the audit log (a store error
    // leaves it pending, and says so through storeError).
    void accept();
    // Records the refusal and drops the pending configuration: the one in force stays until the
    // file changes again.
    void keepCurrent();
    // At start, before the server runs anything: compares the configuration read from the file
    // with the one accepted last. A narrowing is recorded and applies; a widening puts the one
    // accepted last back in force (read inForce() after) and waits, as a live edit does, unless
    // it was refused in the window and the file has not changed since (refusedStillInFile).
    void recordStart();

Q_SIGNALS:
    // The configuration now in force: for the server and the settings page.
    void applied(const Countersign::Config &config);
    // A widening configuration started or stopped waiting for the human (read hasPending()).
    void pendingChanged();
    // No window to ask in: a widening configuration was set aside; the one in force stays.
    void heldForWindow(const Countersign::PolicyChange &change, const QString &sourcePath);
    // At start: the file still holds a widening the human refused; the one accepted last runs.
    void refusedStillInFile(const Countersign::PolicyChange &change, const QString &sourcePath);
    void storeError(const QString &message);

private:
    bool record(const QString &event, const PolicyChange &change, const QString &sourcePath, bool withDecider,
                const nlohmann::json &more = nlohmann::json::object());
    // Holds a widening configuration: pending in the window, or set aside with no window.
    void hold(Config config, const PolicyChange &change, const QString &when, bool atStart);
    void apply(Config config);
    void recordInForce();

    Config m_inForce;
    AuditStore &m_audit;
    Widening m_widening = Widening::AskInWindow;
    std::optional<Config> m_pending;
    PolicyChange m_pendingChange;
    QString m_pendingWhen;
    QString m_baselineFile;
};

} // namespace Countersign
