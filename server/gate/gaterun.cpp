// The gate's run of an approved or allowed call: exactly once, under its claim, with the plan the
// card showed handed to the action and a recorder bound to its operation; its end recorded with the
// receipt; and the wait for a run another instance sharing the store claimed. The flow is in gate.cpp.
#include "gate.h"

#include "auditstore.h"
#include "canonicaljson.h"
#include "clock.h"
#include "gatedaction.h"
#include "gateinternal.h"
#include "receipt.h"
#include "toolresult.h"

#include <QLoggingCategory>
#include <QPointer>

namespace Countersign {

using json = nlohmann::json;
using GateInternal::remember;
using Kind = GateOutcome::Kind;

// A run another live instance claimed: the retry polls the store for its end until the deadline,
// then is told to come back (2026-07-28: input_required again; 2025: a text saying so). The
// instance found gone meanwhile ended the run unrecorded: "outcome unknown".
void Gate::awaitRemoteRun(const RequestPtr &request, const Ticket &ticket, const Claim &c, qint64 deadlineMs,
                          GateDone done)
{
    if (c.finishedMs)
        return done(GateOutcome::ran(ticket.nonce, c.result, true));
    auto alive = m_store.isAlive(c.instance);
    if (!alive)
        return done(storeFailure(alive.error()));
    if (!alive.value())
        return done(GateOutcome::claimed(Kind::OutcomeUnknown, c.claimedMs));
    if (m_clock.nowMs() < deadlineMs) {
        QTimer::singleShot(
            kRemoteRunPollMs, this, [this, request, ticket, deadlineMs, done = std::move(done)]() mutable {
                auto claim = m_store.claimOf(ticket.nonce);
                if (!claim || !claim.value())
                    return done(storeFailure(
                        claim ? QStringLiteral("the claim on %1 is gone").arg(ticket.nonce) : claim.error()));
                awaitRemoteRun(request, ticket, *claim.value(), deadlineMs, std::move(done));
            });
        return;
    }
    if (request->heldOnRequest)
        return done(GateOutcome::claimed(Kind::RunningElsewhere, c.claimedMs));
    auto op = m_store.operation(ticket.nonce);
    if (!op || !op.value())
        return done(storeFailure(op ? QStringLiteral("operation %1 is gone").arg(ticket.nonce) : op.error()));
    const QString sealed = sealedFor(request, ticket);
    done(GateOutcome::pending(*op.value(), sealed, QString(), QString()));
}

// 6. Approved: the world may have moved since the card was shown. Plan again; a different plan
// supersedes the card and starts a fresh one, and only the plan approved runs.
void Gate::runApproved(const RequestPtr &request, const Ticket &ticket, const Decision &decision,
                       const QString &shownRequest, GateDone done)
{
    QPointer<Gate> self(this);
    request->action->plan(request->arguments, [self, request, ticket, decision, shownRequest,
                                               done = std::move(done)](Result<Plan> plan) {
        if (!self)
            return;
        if (!plan)
            return done(GateOutcome::refused(Kind::ReplanFailed, plan.error()));
        Plan noted = request->noted(std::move(plan).value());
        // The user's words as the approved card showed them: never read again.
        noted.request = shownRequest;
        if (noted.digest() != ticket.planDigest) {
            qCInfo(lcGate) << "plan drift for" << ticket.nonce << ": superseded";
            return self->park(request, noted, done, ticket.nonce);
        }
        self->execute(request, ticket, decision, noted, done);
    });
}

// 7. Claim before acting, then run once; 8. the result carries a signed receipt.
void Gate::execute(const RequestPtr &request, const Ticket &ticket, const Decision &decision,
                   const Plan &plan, GateDone done)
{
    // A held retry woken, or a re-plan ended, after the quit began: the approval stays for the
    // next start; nothing new starts now.
    if (m_draining)
        return done(GateOutcome::refused(Kind::Quitting));
    // A call held while its connection was revoked: revoking locks the agent out, approved or not.
    if (m_connectionActive && !m_connectionActive(request->principal))
        return done(GateOutcome::refused(Kind::ConnectionRevoked, request->principal.name));
    if (request->isCancelled()) // the task was cancelled while it was re-planned: the approval waits
        return done(GateOutcome::refused(Kind::CancelledByClient));
    auto claimed = m_store.claim(ticket.nonce);
    if (!claimed)
        return done(storeFailure(claimed.error()));
    if (!claimed.value()) // another retry claimed it first: converge on its run
        return evaluate(request, ticket, std::move(done), false);
    const qint64 consumedMs = m_clock.nowMs();
    auto head = m_store.head();
    const json auditHead =
        head ? json{{"seq", head.value().seq}, {"hash", head.value().hash.toStdString()}} : json();
    m_running[ticket.nonce].append(std::move(done));
    qCInfo(lcGate) << "running" << ticket.nonce << ticket.op;
    Q_EMIT stepRecorded(Step::Claimed, ticket.nonce);
    ++m_applying;
    QPointer<Gate> self(this);
    // The receipt names the diff the human approved (the plan's digest binds it too).
    const QString diffDigest =
        plan.diff.isEmpty() ? QString() : QString::fromLatin1(CanonicalJson::sha256Hex(plan.diff.toUtf8()));
    request->action->applyRecorded(
        request->arguments, plan, recorderFor(ticket.nonce),
        [self, ticket, decision, consumedMs, auditHead, diffDigest](json result) {
            if (!self)
                return;
            const json body = ReceiptBody::make(ticket, decision, consumedMs, self->m_clock.nowMs(), result,
                                                auditHead, diffDigest);
            result = ReceiptBody::attach(std::move(result), self->m_signer.sign(body));
            self->recordEnd(ticket.nonce, result);
            const QList<GateDone> waiting = self->m_running.take(ticket.nonce);
            for (const GateDone &d : waiting)
                d(GateOutcome::ran(ticket.nonce, result, true));
            self->applyEnded();
        });
}

GatedAction::Recorder Gate::recorderFor(const QString &nonce)
{
    return [self = QPointer<Gate>(this), nonce](const QString &event, const json &detail) {
        if (!self)
            return;
        if (auto recorded = self->m_store.recordEvent(event, nonce, detail); !recorded)
            qCWarning(lcGate) << "cannot record" << event << "for" << nonce << recorded.error();
    };
}

void Gate::recordEnd(const QString &nonce, const json &result, Durability durability)
{
    Q_EMIT stepRecorded(Step::Applied, nonce);
    Q_EMIT runEnded(nonce, ToolResult::failed(result));
    if (auto finished = m_store.finishClaim(nonce, result, durability); !finished)
        qCWarning(lcGate) << "cannot store the result of" << nonce << finished.error();
    else
        Q_EMIT stepRecorded(Step::Finished, nonce);
}

void Gate::applyEnded()
{
    if (--m_applying == 0 && m_draining)
        Q_EMIT idle();
}

} // namespace Countersign
