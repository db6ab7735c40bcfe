// The gate and the client: whether to send a console-mode card's URL to the client (and which
// clients answer such prompts on their own), its answers noted, and a client-mode card decided by
// the client's own confirmation (elicitation) instead of the window. The flow is in gate.cpp.
#include "gate.h"

#include "auditstore.h"
#include "clock.h"
#include "gateinternal.h"

#include <QLoggingCategory>
#include <QPointer>

namespace Countersign {

using json = nlohmann::json;
using GateInternal::remember;

// The card's URL is offered to a client that declared URL mode, for a console-mode card, unless
// this connection's client has shown that it answers such prompts on its own (an answer faster
// than a person reads: a headless client's cancel, Codex's decline): to it, the prompt only adds a
// round trip. Its answer never decides the card either way (clientDecision).
bool Gate::mayPromptUrl(const RequestPtr &request, const Operation &op) const
{
    if (op.approvalMode == ApprovalMode::Client || !request->canOpenPage ||
        m_settings.approvalsUrlBase.isEmpty() || request->failsOnPageRound)
        return false;
    const auto quiet = m_noPrompt.constFind(request->principal.name);
    return quiet == m_noPrompt.cend() || !quiet->contains(clientOf(request));
}

// Per connection, the last kMaxQuietClients client names not to prompt: one connection's clients
// (the names are its own to choose) never crowd out another's.
void Gate::stopPrompting(const RequestPtr &request, const char *why)
{
    QStringList &quiet = m_noPrompt[request->principal.name];
    const QString client = clientOf(request);
    if (quiet.contains(client))
        return;
    qCInfo(lcGate) << "the client" << client << "of" << request->principal.name << why
                   << ": not prompted again";
    if (quiet.size() >= kMaxQuietClients)
        quiet.removeFirst();
    quiet.append(client);
}

QString Gate::clientOf(const RequestPtr &request)
{
    return request->clientName.left(kMaxClientName);
}

// A client's answer to the prompt a console-mode card's call sent it: noted on the card; one that
// came faster than a person could answer marks the client as answering on its own. An answer to no
// prompt on record (sent again on a later round, or never asked for), a client-mode card's answer
// (that tool's approval: clientDecision) and an action that is none of the three are noted nowhere.
void Gate::noteAnswer(const RequestPtr &request, const Operation &op, const ClientAnswer &answer)
{
    const QString &action = answer.action;
    if (op.approvalMode == ApprovalMode::Client ||
        (action != QLatin1String("accept") && action != QLatin1String("decline") &&
         action != QLatin1String("cancel")))
        return;
    const QString &nonce = op.nonce;
    const auto asked = m_promptedMs.find(nonce);
    if (asked == m_promptedMs.end())
        return;
    const qint64 ms = m_clock.nowMs() - *asked;
    m_promptedMs.erase(asked);
    if (ms < kSelfAnswerMs)
        stopPrompting(request, "answered the card's prompt faster than a person could");
    Q_EMIT clientAnswered(nonce, action, ms);
}

// A client's answer (an ElicitResult) as a decision. A console-mode card is the human's at the
// console alone: whatever the client answers (several answer prompts on their own, headless ones
// cancel at once) leaves it waiting in the window (docs/design.md: authority lives in the console).
// A client-mode tool's form is that tool's approval: its typed confirmation approves and a decline
// declines; a cancel (dismissed, in the spec, not refused) decides nothing. A confirmation typed
// wrong decides nothing and sets notice.
std::optional<Decision> Gate::clientDecision(const Operation &op, const ClientAnswer &answer,
                                             const QString &connection, QString &notice) const
{
    if (op.approvalMode != ApprovalMode::Client)
        return std::nullopt; // noted on the card (noteAnswer); the card stays with the console
    const QString by = QStringLiteral("client:%1").arg(connection);
    if (answer.action == QLatin1String("decline"))
        return Decision{Operation::Status::Declined, by, QStringLiteral("declined in the client"),
                        m_clock.nowMs()};
    if (answer.action != QLatin1String("accept"))
        return std::nullopt;
    const json &typed = answer.typed;
    if (!typed.is_string() || QString::fromStdString(typed.get<std::string>()) != op.confirmationText()) {
        notice = GateOutcome::mismatchNotice(op.confirmationText());
        return std::nullopt;
    }
    return Decision{Operation::Status::Approved, by, QStringLiteral("typed confirmation"), m_clock.nowMs()};
}

Status Gate::recordClientDecision(const QString &nonce, const Decision &decision)
{
    auto inForce = m_store.decide(nonce, decision);
    if (!inForce)
        return failure(inForce.error());
    if (inForce.value().by == decision.by && inForce.value().outcome == decision.outcome)
        Q_EMIT stepRecorded(Step::Decided, nonce); // this answer decided (another one may have won)
    Q_EMIT retired(nonce);
    return success();
}

// A retry's inputResponses: a decision is recorded and the retry judged again.
bool Gate::takeClientAnswer(const RequestPtr &request, const Ticket &ticket, const Operation &op,
                            GateDone &done, QString &notice)
{
    const std::optional<ClientAnswer> &answer =
        op.approvalMode == ApprovalMode::Client ? request->confirmAnswer : request->pageAnswer;
    if (!answer)
        return false;
    noteAnswer(request, op, *answer);
    const std::optional<Decision> decision = clientDecision(op, *answer, request->principal.name, notice);
    if (!decision)
        return false;
    if (auto recorded = recordClientDecision(ticket.nonce, *decision); !recorded) {
        done(storeFailure(recorded.error()));
        return true;
    }
    evaluate(request, ticket, std::move(done), false);
    return true;
}

// A 2025-era call brings no retry to carry the client's answer. Where its transport can ask the
// client (elicitation/create on the call's stream or connection), the typed-confirmation form
// (client mode, form declared) or the card's URL (console mode, URL declared) is asked while the
// call is held; an answer that decides is recorded like a retry's and wakes the held call. A
// confirmation typed wrong is asked again, up to kConfirmRounds times per call.
void Gate::askInClient(const RequestPtr &request, const Ticket &ticket, const Operation &op,
                       const QString &notice, int round)
{
    if (!request->ask)
        return;
    ClientPrompt prompt{ClientPrompt::Kind::Confirm, op, notice, QString()};
    if (op.approvalMode == ApprovalMode::Client && request->canConfirm)
        prompt.kind = ClientPrompt::Kind::Confirm;
    else if (mayPromptUrl(request, op))
        prompt =
            ClientPrompt{ClientPrompt::Kind::OpenPage, op, notice, m_settings.approvalsUrlBase + op.nonce};
    else
        return;
    if (op.approvalMode != ApprovalMode::Client)
        remember(m_promptedMs, op.nonce, m_clock.nowMs());
    qCInfo(lcGate) << "asking the client about" << op.nonce << "to"
                   << (prompt.kind == ClientPrompt::Kind::Confirm ? "confirm it" : "open its page");
    request->ask(prompt, [self = QPointer<Gate>(this), request, ticket, op,
                          round](std::optional<ClientAnswer> answer) {
        if (!self || !answer)
            return; // an error answer decides nothing: the card waits in the window
        self->noteAnswer(request, op, *answer);
        QString mismatch;
        const std::optional<Decision> decision =
            self->clientDecision(op, *answer, request->principal.name, mismatch);
        if (!decision) {
            if (!mismatch.isEmpty() && round < kConfirmRounds)
                self->askInClient(request, ticket, op, mismatch, round + 1);
            return;
        }
        if (auto recorded = self->recordClientDecision(ticket.nonce, *decision); !recorded)
            qCWarning(lcGate) << "the client's answer for" << ticket.nonce
                              << "was not recorded:" << recorded.error();
        self->wake(ticket.nonce);
    });
}

} // namespace Countersign
