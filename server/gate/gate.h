#pragma once

#include "gatecall.h"
#include "gatedaction.h"
#include "gateoutcome.h"
#include "operation.h"
#include "policy.h"
#include "receiptbody.h"
#include "writetransaction.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <memory>

namespace Countersign {

class AuditStore;
class Clock;
class Grants;
class ReceiptSigner;
class RetryHolder;
class TicketSealer;
struct Ticket;

// The approval gate (docs/design.md, "The gate, end to end"), in the server thread. A first call is
// judged by the policy; "ask" plans, mints a sealed single-use ticket, stores the pending operation,
// parks a card (parked()) and answers Pending with the sealed ticket (the MCP door's
// input_required), or holds a call that waits on its own request. A retry must bring that ticket
// back for the same tool, connection and arguments; it is held up to the poll window while the
// human decides, then answered by the decision. Every answer is a GateOutcome: the gate knows no
// protocol (the doors shape its outcomes: server/mcpgate, server/hooks). An approved ticket is re-planned (a
// changed plan supersedes the card and starts a fresh one), claimed in SQLite, run once, and answered with a
// signed receipt; every later retry gets the stored result of that one run.
//
// One type over several files, on purpose: its definitions are cut by the phase of the flow, so
// that each reads in one sitting: gate.cpp (policy, plan, mint, retry, evaluate, top to bottom),
// gateclient.cpp (the client's own prompts and confirmations), gaterun.cpp (the claimed run),
// gatewait.cpp (held for the human: holds, wakes, deadlines); gateinternal.h is what they share.
class Gate final : public QObject
{
    Q_OBJECT
public:
    struct Settings final
    {
        qint64 ttlMs = 300'000;
        qint64 pollWindowMs = 20'000;
        QString approvalsUrlBase; // "http://127.0.0.1:PORT/approvals/" once the server listens
        // How long a 2025-era call is held for the human before it is answered "still pending"
        // (under the common 60 s client timeouts).
        qint64 legacyHoldMs = 50'000;
        // How long a call that gets progress notifications (it sent a progress token, and its
        // transport sends them) is held, in either era (a 2026-07-28 round instead of the poll
        // window): clients that keep waiting on progress wait longer.
        qint64 progressHoldMs = 240'000;
        // How long a card waits for a human who has not seen it (cardUnseenLimitSeconds): its
        // ticket is sealed for the longer of this and ttlMs, and ttlMs count from the card's first
        // sighting (the chain's card-seen event). 0: ttlMs count from when the card is made.
        qint64 unseenLimitMs = 0;
    };

    Gate(AuditStore &store, const Clock &clock, const TicketSealer &sealer, const ReceiptSigner &signer,
         Policy policy, Settings settings, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(Gate)
    ~Gate() override;

    void setApprovalsUrlBase(const QString &base) { m_settings.approvalsUrlBase = base; }
    // The human's "from now on" (Grants): a deny grant denies a call it covers whatever the rules
    // allow (a rule's deny stays a deny), an allow grant runs a call that would ask once its plan
    // is known and can be taken back, unless the call's session is held or it tries again what
    // was declined. Unset: none.
    void setGrants(Grants *grants) { m_grants = grants; }
    // When a connection's current token was given: an allow grant made before a token was given
    // again under the same name (revoked, then added) lets nothing through. Unset: none applies.
    void setConnectionIssued(std::function<std::optional<qint64>(const Principal &)> issued)
    {
        m_connectionIssued = std::move(issued);
    }
    // Whether a connection is still active, asked before an approved call is claimed (a call held
    // while its connection was revoked runs nothing); unset: every connection is.
    void setConnectionCheck(std::function<bool(const Principal &)> active)
    {
        m_connectionActive = std::move(active);
    }
    // A configuration reload: new calls follow the new policy and times; tickets already issued
    // keep their expiry.
    void reconfigure(Policy policy, const Settings &times);
    // The gate's door: a call, whichever door it came through (the MCP door, server/mcpgate, makes
    // one of a tools/call; judge() of an agent's hook call), answered once with its outcome. A
    // first call is judged by the policy; a retry brings back its ticket.
    void submit(GateCallPtr call, GateDone done);
    // An agent's own tool, through its hook: submitted, and its outcome answered as a judgement.
    // The action's apply runs nothing there: it is the agent's client that runs the call, when and
    // only when the judgement allows it.
    struct Judgement final
    {
        bool allowed = false;
        bool approved = false; // a human approved it (its receipt is signed); else a rule or the default
        QString nonce;         // an allowed call's operation (its audit row, and its receipt when approved)
        QString words;         // why not, for the agent (declined and why, still waiting, refused)
        bool declined = false; // a human declined its card
        bool granted = false;  // allowed by the human's grant ("from now on"), not by a rule
    };
    using Judged = std::function<void(Judgement)>;
    void judge(const std::shared_ptr<GatedAction> &action, const AgentCall &call, Judged done);

    // Now, on the gate's clock (when a call reached it).
    qint64 nowMs() const;
    int heldCount() const;
    // Tools running now (approved or allowed by a rule), claimed and not yet recorded as ended.
    int runningCount() const { return m_applying; }
    // Quitting: from now on every new call is refused (nothing recorded, nothing run), and idle()
    // is emitted once no tool runs (at once if none does). Runs in flight end and are recorded as
    // usual, so their outcome is known rather than "unknown" after the restart.
    void drain();

    // More waiting cards than this from one connection and its next call is refused: an agent in
    // a loop must not bury the human in cards.
    static constexpr int kMaxPendingPerConnection = 50;
    // More calls than this from one connection held at once (on cards, retries of one card
    // included) and the next is answered at once, to call again: held requests keep their HTTP
    // connections busy, and one token must not fill every connection slot with them.
    static constexpr int kMaxHeldPerConnection = 32;
    // How many times a 2025-era call is asked for a typed confirmation that keeps coming back wrong.
    static constexpr int kConfirmRounds = 3;
    // An answer to the card's prompt sooner than this after it was asked is the client's own.
    static constexpr qint64 kSelfAnswerMs = 1000;
    static constexpr int kMaxRemembered = 16384;
    // Per connection, how many of its clients are remembered as not to prompt, and how much of a
    // client's name (its own choice) is kept.
    static constexpr int kMaxQuietClients = 8;
    static constexpr int kMaxClientName = 128;
    // How many Pending rounds (input_required) the official SDKs' clients take for one call before they fail
    // it (TypeScript and Python: 10).
    static constexpr int kClientRounds = 10;

    // _meta key of the receipt on a complete result.
    static constexpr const char *kReceiptMetaKey = ReceiptBody::kMetaKey;

    // The durable steps of a gated call, each emitted by stepRecorded() right after it is in
    // SQLite and before the next one starts: Minted (pending operation stored, input_required not
    // yet sent), Decided (a decision this gate recorded itself: a client's confirmation or
    // decline), Claimed (the single run claimed, the tool not yet started), Applied (the tool
    // returned, its result not yet stored) and Finished (result stored, not yet sent); Denied
    // (a rule denied it: the operation stored, the denial not yet sent).
    enum class Step { Minted, Decided, Claimed, Applied, Finished, Denied };
    Q_ENUM(Step)

public Q_SLOTS:
    // A decision on this operation was stored (by the console, in this process): answer the
    // retries held for it now rather than at the next poll.
    void wake(const QString &nonce);
    // The store changed (another instance sharing it wrote): held retries are judged at once
    // rather than at the next poll.
    void storeChanged() { pollDecisions(); }

Q_SIGNALS:
    void parked(const Countersign::Operation &operation);
    // Settled by the server (expired, superseded, confirmed in the client): the card must go.
    void retired(const QString &nonce);
    void stepRecorded(Countersign::Gate::Step step, const QString &nonce);
    // For a trace of each call (server/telemetry), after stepRecorded of the same step: the call
    // as recorded when it reached the gate (denied or allowed by a rule, or parked as a card, a
    // replacement card included) with the request that brought it; and a run's end, with whether
    // its result is an error (emitted whether or not the result could be stored).
    void opened(const Countersign::Operation &operation, const Countersign::GateCall &call);
    void runEnded(const QString &nonce, bool isError);
    // The agent's client answered a console-mode card's prompt (action: accept, decline or cancel;
    // ms after it was asked). It decides nothing; the card may say so.
    void clientAnswered(const QString &nonce, const QString &action, qint64 ms);
    // How many calls are held waiting for the human's decision on the card nonce changed (0: no
    // agent waits on it now; its next identical call still finds it).
    void waiting(const QString &nonce, int calls);
    // Draining, and no tool runs any more.
    void idle();
    // A decision in the database that the audit chain does not hold (written around the store):
    // nothing ran on it; the words are for the window.
    void untrustedDecision(const QString &message);

private:
    using RequestPtr = GateCallPtr;

    // The policy's decision for a call, its rule in words naming where a default came from.
    PolicyDecision decide(const GateCall &request) const;

    // The steps of the flow, in the order a call meets them (gate.cpp reads top to bottom).
    void firstPass(const RequestPtr &request, GateDone done);
    void park(const RequestPtr &request, Plan plan, GateDone done, const QString &supersedes);
    // plan: the plan an allow grant ran it under (its audit row shows it); a rule's allow has none.
    void runAllowed(const RequestPtr &request, const QString &rule, GateDone done,
                    std::optional<Plan> plan = std::nullopt);
    // The allow grant that runs this call, planned, with no card (setGrants).
    std::optional<QString> granted(const GateCall &request, const Plan &plan);
    void join(const RequestPtr &request, const QString &nonce, const QString &notice, GateDone done);
    void answerCard(const RequestPtr &request, const Operation &op, const QString &notice, GateDone done);
    void hold(const RequestPtr &request, const Ticket &ticket, qint64 windowMs, GateDone done);
    // When the card can no longer be decided: its sealed ticket's end, or nearer, ttlMs after a
    // human first saw it (the chain's card-seen event: a sighting never reaches past the seal).
    qint64 deadlineOf(const Ticket &ticket) const;
    // The end of the card's time to decide, from its first sighting in the chain; nothing while
    // no one has seen it.
    std::optional<qint64> seenDecideBy(const QString &nonce) const;
    std::optional<Decision> clientDecision(const Operation &op, const ClientAnswer &answer,
                                           const QString &connection, QString &notice) const;
    Status recordClientDecision(const QString &nonce, const Decision &decision);
    void askInClient(const RequestPtr &request, const Ticket &ticket, const Operation &op,
                     const QString &notice, int round);
    void joinReplacement(const RequestPtr &request, const QString &nonce, GateDone done);
    static Ticket ticketFor(const Operation &op, const QString &client);
    bool mayPromptUrl(const RequestPtr &request, const Operation &op) const;
    static QString clientOf(const RequestPtr &request);
    void stopPrompting(const RequestPtr &request, const char *why);
    void forget(const QString &nonce);
    void noteAnswer(const RequestPtr &request, const Operation &op, const ClientAnswer &answer);
    QString sealedFor(const RequestPtr &request, const Ticket &ticket) const;
    void retry(const RequestPtr &request, GateDone done);
    void evaluate(const RequestPtr &request, const Ticket &ticket, GateDone done, bool mayHold);
    // A pending ticket's retry that brought the client's answer: true when it settled the card
    // (evaluated again), false to go on waiting (notice set when the typed name did not match).
    bool takeClientAnswer(const RequestPtr &request, const Ticket &ticket, const Operation &op,
                          GateDone &done, QString &notice);
    // shownRequest: the user's words on the approved card (its Plan::request), kept as they were.
    void runApproved(const RequestPtr &request, const Ticket &ticket, const Decision &decision,
                     const QString &shownRequest, GateDone done);
    void execute(const RequestPtr &request, const Ticket &ticket, const Decision &decision, const Plan &plan,
                 GateDone done);
    // A claimed run returned: its result (a receipt included, if any) is stored as its end.
    static constexpr int kRemoteRunPollMs = 200;
    void awaitRemoteRun(const RequestPtr &request, const Ticket &ticket, const Claim &claim,
                        qint64 deadlineMs, GateDone done);
    // Rows an action puts in the chain under its operation while it runs (GatedAction::applyRecorded).
    GatedAction::Recorder recorderFor(const QString &nonce);
    void recordEnd(const QString &nonce, const nlohmann::json &result,
                   Durability durability = Durability::Synced);
    void applyEnded();
    void pollDecisions();
    // Logs a store failure and answers it: nothing runs without its record.
    static GateOutcome storeFailure(const QString &error);

    AuditStore &m_store;
    const Clock &m_clock;
    const TicketSealer &m_sealer;
    const ReceiptSigner &m_signer;
    Policy m_policy;
    Settings m_settings;
    std::function<bool(const Principal &)> m_connectionActive;
    Grants *m_grants = nullptr;
    std::function<std::optional<qint64>(const Principal &)> m_connectionIssued;
    RetryHolder *m_holder = nullptr;
    QHash<QString, QList<GateDone>> m_running; // nonce -> retries waiting for the run in flight
    QTimer m_poll; // decisions written by another process reach held retries through SQLite
    QHash<QString, qint64> m_promptedMs; // nonce -> when the card's URL was last offered
    QHash<QString, int> m_rounds;        // nonce -> input_required rounds answered since the last fresh call
    // connection -> its clients not to prompt (they answer prompts on their own, or drop them)
    QHash<QString, QStringList> m_noPrompt;
    QHash<QString, int> m_heldBy;          // connection -> its calls held now
    QHash<QString, qint64> m_seenDecideBy; // nonce -> when its time to decide ends, once seen
    int m_applying = 0;
    bool m_draining = false;
};

} // namespace Countersign
