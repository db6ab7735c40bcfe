// The gate, end to end (docs/design.md): a call is judged by the policy, planned, minted into a
// sealed ticket and parked as a card; its retry is checked, held for the human, and an approved
// one re-planned, claimed and run exactly once with a signed receipt. The words the agent reads
// are in gatereplies.cpp, the receipt in receiptbody.cpp, the holding in retryholder.cpp, the
// client's own prompts and confirmations in gateclient.cpp, the run itself in gaterun.cpp, the
// waiting for the human (holds, wakes, deadlines) in gatewait.cpp.
#include "gate.h"

#include "auditstore.h"
#include "clock.h"
#include "gatedaction.h"
#include "gateinternal.h"
#include "grants.h"
#include "receipt.h"
#include "retryholder.h"
#include "ticketsealer.h"

#include <QCryptographicHash>
#include <QLoggingCategory>
#include <QPointer>

#include <sodium.h>

Q_LOGGING_CATEGORY(lcGate, "countersign.gate")

namespace Countersign {

namespace {

using json = nlohmann::json;
using GateInternal::remember;
using Kind = GateOutcome::Kind;

QString randomNonce()
{
    unsigned char bytes[16];
    randombytes_buf(bytes, sizeof bytes);
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(bytes), sizeof bytes).toHex());
}

bool sameDigest(const QString &a, const QString &b)
{
    const QByteArray x = a.toLatin1(), y = b.toLatin1();
    return x.size() == y.size() &&
           sodium_memcmp(x.constData(), y.constData(), static_cast<size_t>(x.size())) == 0;
}

} // namespace

Gate::Gate(AuditStore &store, const Clock &clock, const TicketSealer &sealer, const ReceiptSigner &signer,
           Policy policy, Settings settings, QObject *parent)
    : QObject(parent), m_store(store), m_clock(clock), m_sealer(sealer), m_signer(signer),
      m_policy(std::move(policy)), m_settings(std::move(settings)), m_holder(new RetryHolder(clock, this))
{
    m_poll.setInterval(200);
    connect(&m_poll, &QTimer::timeout, this, &Gate::pollDecisions);
    connect(m_holder, &RetryHolder::heldChanged, this, &Gate::waiting);
    connect(this, &Gate::retired, this, &Gate::forget); // expired or superseded here
}

Gate::~Gate() = default;

qint64 Gate::nowMs() const
{
    return m_clock.nowMs();
}

int Gate::heldCount() const
{
    return m_holder->count();
}

void Gate::reconfigure(Policy policy, const Settings &times)
{
    m_policy = std::move(policy);
    m_settings.ttlMs = times.ttlMs;
    m_settings.pollWindowMs = times.pollWindowMs;
    m_settings.legacyHoldMs = times.legacyHoldMs;
    m_settings.progressHoldMs = times.progressHoldMs;
    m_settings.unseenLimitMs = times.unseenLimitMs;
}

void Gate::drain()
{
    m_draining = true;
    if (m_applying == 0)
        Q_EMIT idle();
}

GateOutcome Gate::storeFailure(const QString &error)
{
    qCWarning(lcGate) << "store failure:" << error;
    return GateOutcome::refused(Kind::StoreFailure, error);
}

// 1. A tools/call arrives: a first call, or a retry bringing back its ticket.
void Gate::submit(GateCallPtr call, GateDone done)
{
    if (m_draining)
        return done(GateOutcome::refused(Kind::Quitting));
    if (call->isRetry())
        retry(call, std::move(done));
    else
        firstPass(call, std::move(done));
}

// 1'. A call that is not an MCP request: the same flow from the policy on, held on its own request
// while its card waits; its outcome becomes a judgement. Only a run (allowed by a rule or a grant,
// or approved and claimed once) whose action succeeded is allowed.
void Gate::judge(const std::shared_ptr<GatedAction> &action, const AgentCall &call, Judged done)
{
    GateDone answer = [done = std::move(done)](GateOutcome outcome) {
        Judgement judgement;
        judgement.allowed = outcome.ranOk();
        if (outcome.kind == Kind::Ran) {
            judgement.nonce = outcome.nonce;
            judgement.approved = outcome.approved;
            judgement.granted = outcome.granted;
        }
        judgement.declined = outcome.kind == Kind::Declined;
        judgement.words = outcome.kind == Kind::BadTicket || outcome.kind == Kind::NeedsClientForm
                              ? QStringLiteral("Countersign: %1. Nothing was allowed.").arg(outcome.words())
                              : outcome.words();
        done(std::move(judgement));
    };
    submit(GateCall::from(action, call, m_clock.nowMs()), std::move(answer));
}

PolicyDecision Gate::decide(const GateCall &request) const
{
    const GatedAction::Default fallback = request.action->byDefault(request.arguments);
    PolicyDecision decision =
        m_policy.evaluate(request.action->name(), request.arguments, fallback.verdict, request.paths);
    if (decision.ruleIndex < 0 && !fallback.why.isEmpty())
        decision.rule += QStringLiteral(" (%1)").arg(fallback.why);
    // The human's "deny from now on" stands over what the rules and the defaults allow.
    if (m_grants && decision.verdict != Verdict::Deny) {
        if (const auto grant =
                m_grants->covering(Verdict::Deny, request.action->name(), request.principal.name,
                                   request.arguments, request.argsDigest, request.session, true)) {
            decision = PolicyDecision{Verdict::Deny, -1, grant->ruleText(),
                                      QStringLiteral("you chose to deny this from now on")};
            return decision;
        }
    }
    if (!request.held.isEmpty() && decision.verdict == Verdict::Allow) {
        decision.verdict = Verdict::Ask;
        decision.ruleIndex = -1;
        decision.rule = request.held;
    }
    return decision;
}

// 2. Policy decides: deny answers now, allow runs now unless the same call's card waits, ask goes
// on to 3. The plan.
void Gate::firstPass(const RequestPtr &request, GateDone done)
{
    const PolicyDecision verdict = decide(*request);
    if (verdict.verdict == Verdict::Deny) {
        const qint64 now = m_clock.nowMs();
        const Operation op = request->operation(
            randomNonce(),
            Plan::settledByRule(request->action->name(), request->action->targetsOf(request->arguments)),
            verdict.rule, now, now, Operation::Status::Denied);
        if (auto stored = m_store.recordOperation(op); !stored)
            return done(storeFailure(stored.error()));
        Q_EMIT stepRecorded(Step::Denied, op.nonce);
        Q_EMIT opened(op, *request);
        return done(GateOutcome::denied(verdict));
    }
    // The same call again while its card waits (an agent retrying without the ticket, or calling
    // again after it stopped waiting): it joins that card, instead of stacking a second one. A card
    // approved while no call waited on it is run by this call (an approval is never stranded). So
    // does a call the policy now allows (a rule or an upstream's annotations changed since the
    // card was made): the card's decision is final for its call, which never runs past it.
    auto same = m_store.awaitingLike(request->principal.name, request->action->name(), request->argsDigest);
    if (!same)
        return done(storeFailure(same.error()));
    if (!same.value().isEmpty())
        return join(request, same.value(), QString(), std::move(done));
    if (verdict.verdict == Verdict::Allow)
        return runAllowed(request, verdict.rule, std::move(done));
    QPointer<Gate> self(this);
    request->action->plan(request->arguments, [self, request, done = std::move(done)](Result<Plan> plan) {
        if (!self)
            return;
        if (!plan)
            return done(GateOutcome::refused(Kind::PlanFailed, plan.error()));
        Plan noted = request->noted(std::move(plan).value());
        if (const auto grant = self->granted(*request, noted))
            return self->runAllowed(request, *grant, done, std::move(noted));
        self->park(request, std::move(noted), done, {});
    });
}

// Only a call nothing marks (a held session, a call that tries again what was declined) whose plan
// loses nothing that cannot be taken back: a grant never lets an irreversible loss run unseen.
std::optional<QString> Gate::granted(const GateCall &request, const Plan &plan)
{
    if (!m_grants || !m_connectionIssued || !request.held.isEmpty() || !request.note.isEmpty() ||
        plan.isIrreversible() || plan.risk >= Risk::High || Grant::runsChangedCode(plan) ||
        m_policy.peopleFor(plan.risk) > 1) // one person's grant never stands for two people's review
        return std::nullopt;
    const auto grant = m_grants->covering(Verdict::Allow, request.action->name(), request.principal.name,
                                          request.arguments, request.argsDigest, request.session, true);
    if (!grant)
        return std::nullopt;
    // Made for this connection's current token, not one revoked since and given again by name.
    const auto issued = m_connectionIssued(request.principal);
    if (!issued || *issued > grant->createdMs)
        return std::nullopt;
    m_grants->noteUse(grant->id);
    qCInfo(lcGate) << "granted" << request.action->name() << "for" << request.principal.name << "by grant"
                   << grant->id;
    return grant->ruleText();
}

// A call joins a card that is already parked (same connection, tool and arguments): a pending
// one is answered as its own card would be; an approved one that no call ran yet is judged as its
// ticket's retry would be (re-planned, claimed, run once).
void Gate::join(const RequestPtr &request, const QString &nonce, const QString &notice, GateDone done)
{
    auto stored = m_store.operation(nonce);
    if (!stored) {
        qCCritical(lcGate) << "refusing to join" << nonce << ":" << stored.error();
        Q_EMIT untrustedDecision(
            QStringLiteral("Nothing was run for %1: %2").arg(request->action->name(), stored.error()));
        return done(storeFailure(stored.error()));
    }
    if (!stored.value())
        return done(GateOutcome::refused(Kind::Superseded));
    const Operation &op = *stored.value();
    if (op.status == Operation::Status::Approved) {
        // No sealed ticket comes with a fresh call: the stored card (its expiry above all) must be
        // the one the verified chain records before its approval runs anything.
        if (auto verified = m_store.verifiedCard(op); !verified) {
            qCCritical(lcGate) << "refusing to join" << op.nonce << ":" << verified.error();
            Q_EMIT untrustedDecision(
                QStringLiteral("Nothing was run for %1: %2").arg(request->action->name(), verified.error()));
            return done(storeFailure(verified.error()));
        }
        qCInfo(lcGate) << "joined approved card" << op.nonce << op.tool << "for" << op.principal;
        return evaluate(request, ticketFor(op, request->clientName), std::move(done), true);
    }
    if (op.status != Operation::Status::Pending)
        return done(GateOutcome::refused(Kind::Superseded));
    qCInfo(lcGate) << "joined card" << op.nonce << op.tool << "for" << op.principal;
    answerCard(request, op, notice, std::move(done));
}

// The answer to a call whose card waits: input_required with a ticket for the card; a 2025-era
// call has no ticket to bring back, so it waits for the human on its own request.
void Gate::answerCard(const RequestPtr &request, const Operation &op, const QString &notice, GateDone done)
{
    const Ticket ticket = ticketFor(op, request->clientName);
    if (request->heldOnRequest)
        return evaluate(request, ticket, std::move(done), true);
    // The same call again, fresh, while the card's prompt to this client is unanswered: the client
    // dropped the round it could not take (Codex in its 2026 mode fails the call on a URL request)
    // and is not prompted again.
    if (!request->isRetry()) {
        if (m_promptedMs.contains(op.nonce)) {
            m_promptedMs.remove(op.nonce);
            stopPrompting(request, "called again instead of answering the card's prompt");
        }
        remember(m_rounds, op.nonce, 0); // a fresh call: the client's rounds start again
    }
    // The agent is seen on the card (its client comes back within a retry interval, or has gone
    // when it does not: ApprovalQueue::agentOf).
    Q_EMIT waiting(op.nonce, m_holder->count(op.nonce));
    const bool prompt = mayPromptUrl(request, op);
    if (prompt)
        remember(m_promptedMs, op.nonce, m_clock.nowMs());
    done(GateOutcome::pending(op, m_sealer.seal(ticket),
                              prompt ? m_settings.approvalsUrlBase + op.nonce : QString(), notice));
}

// The requestState to hand back: the retry's own, or (a first call that joined a card) a new one.
QString Gate::sealedFor(const RequestPtr &request, const Ticket &ticket) const
{
    if (request->isRetry())
        return QString::fromStdString(request->ticket->get<std::string>());
    return m_sealer.seal(ticket);
}

Ticket Gate::ticketFor(const Operation &op, const QString &client)
{
    Ticket ticket;
    ticket.sub = op.principal;
    ticket.client = client;
    ticket.op = op.tool;
    ticket.argsDigest = op.argsDigest;
    ticket.planDigest = op.planDigest;
    ticket.nonce = op.nonce;
    ticket.iat = op.createdMs;
    ticket.exp = op.expiresMs;
    return ticket;
}

// 4. Mint the ticket, store the pending operation, park the card, answer input_required.
void Gate::park(const RequestPtr &request, Plan plan, GateDone done, const QString &supersedes)
{
    const ApprovalMode mode = m_policy.approvalFor(plan.risk);
    if (mode == ApprovalMode::Client && !request->canConfirm)
        return done(GateOutcome::refused(Kind::NeedsClientForm, request->action->name()));
    auto waiting = m_store.pendingCount(request->principal.name);
    if (!waiting)
        return done(storeFailure(waiting.error()));
    if (waiting.value() >= kMaxPendingPerConnection)
        return done(GateOutcome::tooManyPending(request->principal.name, waiting.value()));

    const qint64 now = m_clock.nowMs();
    const QString rule = decide(*request).rule;
    // The user's words, read when a card is made and only then (a call a rule or a grant lets
    // through never reads them).
    if (plan.request.isEmpty() && request->preface)
        plan.request = request->preface->text();
    Operation op = request->operation(randomNonce(), std::move(plan), rule, now,
                                      now + std::max(m_settings.ttlMs, m_settings.unseenLimitMs),
                                      Operation::Status::Pending);
    op.approvalMode = mode;
    op.supersedes = supersedes;
    op.review.people = m_policy.peopleFor(op.plan.risk);
    op.review.ownerBarred = m_policy.ownConnectionBarred(op.plan.risk);
    op.review.owner = request->principal.owner;
    if (supersedes.isEmpty()) {
        auto stored = m_store.recordCard(op);
        if (!stored)
            return done(storeFailure(stored.error()));
        if (stored.value() != op.nonce) // an identical call parked first while this one planned
            return join(request, stored.value(), QString(), std::move(done));
    } else {
        auto replaced = m_store.replace(op);
        if (!replaced)
            return done(storeFailure(replaced.error()));
        if (!replaced.value()) // another retry ran it or replaced it first: converge on that
            return joinReplacement(request, supersedes, std::move(done));
        Q_EMIT retired(supersedes);
    }
    qCInfo(lcGate) << "card" << op.nonce << op.tool << "for" << op.principal;
    Q_EMIT stepRecorded(Step::Minted, op.nonce);
    Q_EMIT opened(op, *request);
    Q_EMIT parked(op);
    answerCard(request, op, supersedes.isEmpty() ? QString() : GateOutcome::supersededNotice(),
               std::move(done));
}

// A card superseded by a re-plan: a retry of its ticket is handed the replacement card (one per
// ticket, however many retries race), or told it was superseded when that one is settled too.
void Gate::joinReplacement(const RequestPtr &request, const QString &nonce, GateDone done)
{
    auto claim = m_store.claimOf(nonce);
    if (!claim)
        return done(storeFailure(claim.error()));
    if (claim.value()) // claimed by another retry between its re-plan and ours: its run stands
        return done(claim.value()->finishedMs
                        ? GateOutcome::ran(nonce, claim.value()->result, true)
                        : GateOutcome::claimed(Kind::OutcomeUnknown, claim.value()->claimedMs));
    auto replacement = m_store.replacementOf(nonce);
    if (!replacement)
        return done(storeFailure(replacement.error()));
    if (replacement.value().isEmpty())
        return done(GateOutcome::refused(Kind::Superseded));
    join(request, replacement.value(), GateOutcome::supersededNotice(), std::move(done));
}

// A rule allowed it: recorded and claimed like an approved run, but with no ticket or card.
void Gate::runAllowed(const RequestPtr &request, const QString &rule, GateDone done, std::optional<Plan> plan)
{
    if (m_draining) // the plan ended after the quit began: start nothing new
        return done(GateOutcome::refused(Kind::Quitting));
    const qint64 now = m_clock.nowMs();
    const bool granted = plan.has_value();
    const Operation op = request->operation(
        randomNonce(),
        plan ? std::move(*plan)
             : Plan::settledByRule(request->action->name(), request->action->targetsOf(request->arguments)),
        rule, now, now, Operation::Status::Allowed);
    // A read a rule allowed changes nothing: losing its record to a power cut (never to a crash of
    // the app) costs no outcome, and sparing its two fsyncs halves its time through the gate.
    const Durability durability = request->action->readsOnly() ? Durability::Relaxed : Durability::Synced;
    if (auto stored = m_store.recordClaimed(op, durability); !stored)
        return done(storeFailure(stored.error()));
    Q_EMIT stepRecorded(Step::Claimed, op.nonce);
    Q_EMIT opened(op, *request);
    ++m_applying;
    QPointer<Gate> self(this);
    request->action->applyRecorded(
        request->arguments, op.plan, recorderFor(op.nonce),
        [self, nonce = op.nonce, durability, granted, done = std::move(done)](json result) {
            if (self)
                self->recordEnd(nonce, result, durability);
            done(GateOutcome::ran(nonce, std::move(result), false, granted));
            if (self)
                self->applyEnded();
        });
}

// 6. The retry: the ticket opens, and names this tool, this connection and these arguments.
void Gate::retry(const RequestPtr &request, GateDone done)
{
    const nlohmann::json &state = *request->ticket;
    if (!state.is_string())
        return done(GateOutcome::refused(Kind::BadTicket, QStringLiteral("it must be a string")));
    auto opened = m_sealer.open(QString::fromStdString(state.get<std::string>()));
    if (!opened)
        return done(
            GateOutcome::refused(Kind::BadTicket, QStringLiteral("it is not a ticket this server issued")));
    const Ticket &ticket = opened.value();
    if (ticket.op != request->action->name())
        return done(GateOutcome::refused(
            Kind::BadTicket, QStringLiteral("it was issued for another tool (%1)").arg(ticket.op)));
    if (ticket.sub != request->principal.name)
        return done(
            GateOutcome::refused(Kind::BadTicket, QStringLiteral("it was issued to another connection")));
    if (!sameDigest(ticket.argsDigest, request->argsDigest))
        return done(GateOutcome::refused(
            Kind::BadTicket, QStringLiteral("the arguments differ from the ones it was issued for")));
    evaluate(request, ticket, std::move(done), true);
}

// 6, then 7. Where the ticket stands: run already claimed (converge), expired, superseded,
// decided (declined, approved), or pending (the client's answer, then held for the human).
void Gate::evaluate(const RequestPtr &request, const Ticket &ticket, GateDone done, bool mayHold)
{
    if (request->isCancelled()) // a task its client cancelled: its card, if any, waits on
        return done(GateOutcome::refused(Kind::CancelledByClient));
    auto claim = m_store.claimOf(ticket.nonce);
    if (!claim)
        return done(storeFailure(claim.error()));
    if (claim.value()) {
        if (claim.value()->finishedMs)
            return done(GateOutcome::ran(ticket.nonce, claim.value()->result, true));
        if (auto running = m_running.find(ticket.nonce); running != m_running.end()) {
            running->append(std::move(done));
            return;
        }
        const Claim &c = *claim.value();
        if (!c.instance.isEmpty() && c.instance != m_store.instance()) { // another instance's run
            const qint64 window = request->heldOnRequest ? m_settings.legacyHoldMs : m_settings.pollWindowMs;
            return awaitRemoteRun(request, ticket, c, m_clock.nowMs() + (mayHold ? window : 0),
                                  std::move(done));
        }
        return done(GateOutcome::claimed(Kind::OutcomeUnknown, c.claimedMs));
    }

    // The card as the verified chain records it (mode, risk, review rules, expiry), or nothing runs.
    auto stored = m_store.operation(ticket.nonce);
    if (!stored) {
        qCCritical(lcGate) << "refusing" << ticket.nonce << ":" << stored.error();
        Q_EMIT untrustedDecision(
            QStringLiteral("Nothing was run for %1: %2").arg(request->action->name(), stored.error()));
        return done(storeFailure(stored.error()));
    }
    if (!stored.value())
        return done(GateOutcome::refused(Kind::BadTicket,
                                         QStringLiteral("its operation is not in this server's records")));
    const Operation &op = *stored.value();

    // Only a decision the audit chain holds under a signed checkpoint counts: a row written around
    // the store (another process) is refused, and nothing runs on it.
    auto decision = m_store.verifiedDecision(ticket.nonce);
    if (!decision) {
        qCCritical(lcGate) << "refusing" << ticket.nonce << ":" << decision.error();
        Q_EMIT untrustedDecision(
            QStringLiteral("Nothing was run for %1: %2").arg(request->action->name(), decision.error()));
        return done(storeFailure(decision.error()));
    }
    const qint64 now = m_clock.nowMs();
    const qint64 deadline = deadlineOf(ticket);
    if (!decision.value() && op.status == Operation::Status::Pending && now >= deadline) {
        auto expired =
            m_store.decide(ticket.nonce, Decision{Operation::Status::Expired, QStringLiteral("server"),
                                                  QStringLiteral("the ticket expired"), now});
        if (!expired)
            return done(storeFailure(expired.error()));
        Q_EMIT retired(ticket.nonce);
        decision = std::optional<Decision>(expired.value());
    }
    if (op.status == Operation::Status::Superseded)
        return joinReplacement(request, ticket.nonce, std::move(done));

    if (decision.value()) {
        const Decision &d = *decision.value();
        if (d.outcome == Operation::Status::Declined)
            return done(GateOutcome::declined(d));
        // The sealed expiry (or nearer, once seen), not the row's.
        if (d.outcome == Operation::Status::Approved && now < deadline)
            return runApproved(request, ticket, d, op.plan.request, std::move(done));
        // Approved in time but its agent came back after: timed out now (as the sweep would at
        // the seal), so that the same call asks again with a new card instead of joining this one.
        if (d.outcome == Operation::Status::Approved && op.status == Operation::Status::Approved) {
            if (auto lapsed = m_store.timeOutApproval(ticket.nonce); !lapsed)
                return done(storeFailure(lapsed.error()));
            Q_EMIT retired(ticket.nonce);
        }
        return done(GateOutcome::expired(d, m_settings.ttlMs));
    }

    QString notice;
    if (takeClientAnswer(request, ticket, op, done, notice))
        return;
    if (request->heldOnRequest) {
        if (!mayHold)
            return done(GateOutcome::stillPending(op));
        askInClient(request, ticket, op, QString(), 1);
        // A task is held until the card is decided or its ticket expires: its client polls the
        // task rather than waiting on this request.
        const qint64 limit = request->holdMs          ? *request->holdMs
                             : request->task          ? deadline - now
                             : !request->getsProgress ? m_settings.legacyHoldMs
                                                      : m_settings.progressHoldMs;
        return hold(request, ticket, std::min(limit, deadline - now), std::move(done));
    }
    if (!mayHold || !notice.isEmpty()) {
        // The official SDKs give up after kClientRounds input_required rounds with an error their
        // model cannot act on: the last round the client would take says, in words, to call again,
        // and that call joins this card (an approval meanwhile waits for it).
        const int rounds = m_rounds.value(op.nonce) + 1;
        remember(m_rounds, op.nonce, rounds);
        if (rounds >= kClientRounds - 1) {
            m_rounds.remove(op.nonce);
            return done(GateOutcome::stillPending(op));
        }
        return done(GateOutcome::pending(op, sealedFor(request, ticket), QString(), notice));
    }
    // A round whose transport sends progress notes is held as long as a 2025-era one that gets
    // them (Claude Code resets its idle limit on progress); without them, the poll window.
    const qint64 window = request->getsProgress ? m_settings.progressHoldMs : m_settings.pollWindowMs;
    hold(request, ticket, std::min(window, deadline - now), std::move(done));
}

} // namespace Countersign
