#include "gate.h"

#include "auditstore.h"
#include "canonicaljson.h"
#include "clock.h"
#include "gatedaction.h"
#include "jsonrpc.h"
#include "receipt.h"
#include "ticketsealer.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QPointer>

#include <sodium.h>

Q_LOGGING_CATEGORY(lcGate, "countersign.gate")

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr const char *kConfirmKey = "confirm";   // inputRequests key of the client-mode form
constexpr const char *kApprovalKey = "approval"; // inputRequests key of the URL-mode elicitation

ProtocolError invalidState(const QString &why)
{
    // The same words and data as the SDK's own codec, plus the reason in our words.
    return ProtocolError{JsonRpc::kInvalidParams,
                         QStringLiteral("Invalid or expired requestState: %1").arg(why),
                         {{"reason", "invalid_request_state"}}};
}

QString randomNonce()
{
    unsigned char bytes[16];
    randombytes_buf(bytes, sizeof bytes);
    return QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(bytes), sizeof bytes).toHex());
}

json settledResult(const QString &text, const char *decision, const Decision &d)
{
    json result = textResult(text, true);
    result["structuredContent"] = {{"decision", decision},
                                   {"decidedBy", d.by.toStdString()},
                                   {"reason", d.reason.toStdString()},
                                   {"decidedAt", d.atMs}};
    return result;
}

// The elicitation capability as declared in this request's envelope.
struct ElicitationModes final
{
    bool form = false;
    bool url = false;
};

ElicitationModes elicitationModes(const Envelope &envelope)
{
    const auto e = envelope.clientCapabilities.find("elicitation");
    if (e == envelope.clientCapabilities.end() || !e->is_object())
        return {};
    const bool form = e->empty() || e->contains("form"); // a bare {} means form
    return {form, e->contains("url")};
}

// A bare ElicitResult from inputResponses[key], if the client sent one.
std::optional<json> inputResponse(const json &params, const char *key)
{
    const auto responses = params.find("inputResponses");
    if (responses == params.end() || !responses->is_object())
        return std::nullopt;
    const auto r = responses->find(key);
    if (r == responses->end() || !r->is_object() || r->contains("method") || r->contains("result"))
        return std::nullopt; // absent, or wrapped (the SDK drops those too)
    return *r;
}

} // namespace

struct Gate::Request final
{
    std::shared_ptr<GatedAction> action;
    json arguments;
    json params;
    Principal principal;
    Envelope envelope;
    QString argsDigest;
};

Gate::Gate(AuditStore &store, const Clock &clock, const TicketSealer &sealer, const ReceiptSigner &signer,
           Policy policy, Settings settings, QObject *parent)
    : QObject(parent), m_store(store), m_clock(clock), m_sealer(sealer), m_signer(signer),
      m_policy(std::move(policy)), m_settings(std::move(settings))
{
    m_poll.setInterval(200);
    connect(&m_poll, &QTimer::timeout, this, &Gate::pollDecisions);
}

Gate::~Gate()
{
    for (auto &[id, waiter] : m_waiters)
        delete waiter.timer;
}

ToolReply Gate::quitting()
{
    return textResult(
        QStringLiteral("Countersign is quitting: nothing was run for this call. Call again once "
                       "Countersign is running."),
        true);
}

ToolReply Gate::storeFailure(const QString &error)
{
    qCWarning(lcGate) << "store failure:" << error;
    return textResult(
        QStringLiteral("Countersign could not record this call (%1). Nothing was run.").arg(error), true);
}

void Gate::reconfigure(Policy policy, qint64 ttlMs, qint64 pollWindowMs)
{
    m_policy = std::move(policy);
    m_settings.ttlMs = ttlMs;
    m_settings.pollWindowMs = pollWindowMs;
}

void Gate::drain()
{
    m_draining = true;
    if (m_applying == 0)
        Q_EMIT idle();
}

void Gate::recordEnd(const QString &nonce, const json &result)
{
    Q_EMIT stepRecorded(Step::Applied, nonce);
    if (auto finished = m_store.finishClaim(nonce, result); !finished)
        qCWarning(lcGate) << "cannot store the result of" << nonce << finished.error();
    else
        Q_EMIT stepRecorded(Step::Finished, nonce);
}

void Gate::applyEnded()
{
    if (--m_applying == 0 && m_draining)
        Q_EMIT idle();
}

void Gate::call(const std::shared_ptr<GatedAction> &action, const ToolCall &call, ToolDone done)
{
    if (m_draining)
        return done(quitting());
    auto request = std::make_shared<Request>();
    request->action = action;
    request->arguments = call.arguments;
    request->params = call.params;
    request->principal = call.context.principal;
    request->envelope = call.request.envelope;
    request->argsDigest = QString::fromLatin1(CanonicalJson::digest(call.arguments));
    if (call.params.contains("requestState"))
        retry(request, std::move(done));
    else
        firstPass(request, std::move(done));
}

// ---- first pass ------------------------------------------------------------------------------

Operation Gate::settledByRule(const Request &request, const QString &rule, Operation::Status status) const
{
    Operation op;
    op.nonce = randomNonce();
    op.tool = request.action->name();
    op.principal = request.principal.name;
    op.clientInfo = request.envelope.clientInfo.is_object() ? request.envelope.clientInfo : json::object();
    op.arguments = request.arguments;
    op.argsDigest = request.argsDigest;
    op.plan.title = op.tool;
    op.plan.risk = Risk::Low;
    op.planDigest = op.plan.digest();
    op.rule = rule;
    op.traceparent = request.envelope.traceparent;
    op.createdMs = op.expiresMs = m_clock.nowMs();
    op.status = status;
    return op;
}

void Gate::firstPass(const RequestPtr &request, ToolDone done)
{
    const QString name = request->action->name();
    const PolicyDecision verdict =
        m_policy.evaluate(name, request->arguments, request->action->defaultVerdict(request->arguments));
    if (verdict.verdict == Verdict::Allow)
        return runAllowed(request, verdict.rule, std::move(done));
    if (verdict.verdict == Verdict::Deny) {
        const Operation op = settledByRule(*request, verdict.rule, Operation::Status::Denied);
        if (auto stored = m_store.recordOperation(op); !stored)
            return done(storeFailure(stored.error()));
        return done(textResult(QStringLiteral("Denied by Countersign policy (%1)%2. Nothing was run.")
                                   .arg(verdict.rule, verdict.reason.isEmpty()
                                                          ? QString()
                                                          : QStringLiteral(": %1").arg(verdict.reason)),
                               true));
    }
    QPointer<Gate> self(this);
    request->action->plan(request->arguments, [self, request, done = std::move(done)](Result<Plan> plan) {
        if (!self)
            return;
        if (!plan)
            return done(
                textResult(QStringLiteral("Countersign could not plan this call: %1. Nothing was run.")
                               .arg(plan.error()),
                           true));
        self->park(request, std::move(plan).value(), done, {});
    });
}

void Gate::park(const RequestPtr &request, Plan plan, ToolDone done, const QString &supersedes)
{
    const ApprovalMode mode = m_policy.approvalFor(plan.risk);
    if (mode == ApprovalMode::Client && !elicitationModes(request->envelope).form)
        return done(
            ProtocolError{JsonRpc::kMissingRequiredClientCapability,
                          QStringLiteral("%1 needs a typed confirmation in the client's form: declare the "
                                         "elicitation form capability")
                              .arg(request->action->name()),
                          {{"requiredCapabilities", {{"elicitation", {{"form", json::object()}}}}}}});
    auto waiting = m_store.pendingCount(request->principal.name);
    if (!waiting)
        return done(storeFailure(waiting.error()));
    if (waiting.value() >= kMaxPendingPerConnection)
        return done(
            textResult(QStringLiteral("Refused: connection \"%1\" already has %2 approvals waiting. Wait for "
                                      "the human to work through them before asking for more.")
                           .arg(request->principal.name)
                           .arg(waiting.value()),
                       true));
    const qint64 now = m_clock.nowMs();
    Ticket ticket;
    ticket.sub = request->principal.name;
    ticket.client = QString::fromStdString(request->envelope.clientInfo.is_object()
                                               ? request->envelope.clientInfo.value("name", std::string())
                                               : std::string());
    ticket.op = request->action->name();
    ticket.argsDigest = request->argsDigest;
    ticket.planDigest = plan.digest();
    ticket.nonce = randomNonce();
    ticket.iat = now;
    ticket.exp = now + m_settings.ttlMs;

    Operation op;
    op.nonce = ticket.nonce;
    op.tool = ticket.op;
    op.principal = ticket.sub;
    op.clientInfo = request->envelope.clientInfo.is_object() ? request->envelope.clientInfo : json::object();
    op.arguments = request->arguments;
    op.argsDigest = ticket.argsDigest;
    op.planDigest = ticket.planDigest;
    op.plan = std::move(plan);
    op.approvalMode = mode;
    op.rule =
        m_policy.evaluate(op.tool, op.arguments, request->action->defaultVerdict(request->arguments)).rule;
    op.traceparent = request->envelope.traceparent;
    op.createdMs = now;
    op.expiresMs = ticket.exp;
    op.supersedes = supersedes;
    op.status = Operation::Status::Pending;
    if (auto stored = m_store.recordOperation(op); !stored)
        return done(storeFailure(stored.error()));
    if (!supersedes.isEmpty()) {
        if (auto s = m_store.supersede(supersedes, op.nonce); !s)
            qCWarning(lcGate) << "cannot mark" << supersedes << "superseded:" << s.error();
        Q_EMIT retired(supersedes);
    }
    qCInfo(lcGate) << "card" << op.nonce << op.tool << "for" << op.principal;
    Q_EMIT stepRecorded(Step::Minted, op.nonce);
    Q_EMIT parked(op);
    const QString notice =
        supersedes.isEmpty()
            ? QString()
            : QStringLiteral("The plan changed after it was approved, so that approval no longer "
                             "holds. A new card waits for a decision.");
    done(inputRequired(op, m_sealer.seal(ticket), request->envelope, true, notice));
}

void Gate::runAllowed(const RequestPtr &request, const QString &rule, ToolDone done)
{
    if (m_draining) // the plan ended after the quit began: start nothing new
        return done(quitting());
    const Operation op = settledByRule(*request, rule, Operation::Status::Allowed);
    if (auto stored = m_store.recordOperation(op); !stored)
        return done(storeFailure(stored.error()));
    auto claimed = m_store.claim(op.nonce);
    if (!claimed || !claimed.value())
        return done(storeFailure(claimed ? QStringLiteral("claim refused") : claimed.error()));
    Q_EMIT stepRecorded(Step::Claimed, op.nonce);
    ++m_applying;
    QPointer<Gate> self(this);
    request->action->apply(request->arguments, [self, nonce = op.nonce, done = std::move(done)](json result) {
        if (self)
            self->recordEnd(nonce, result);
        done(std::move(result));
        if (self)
            self->applyEnded();
    });
}

// ---- retry -----------------------------------------------------------------------------------

void Gate::retry(const RequestPtr &request, ToolDone done)
{
    const auto state = request->params.find("requestState");
    if (!state->is_string())
        return done(invalidState(QStringLiteral("it must be a string")));
    auto opened = m_sealer.open(QString::fromStdString(state->get<std::string>()));
    if (!opened)
        return done(invalidState(QStringLiteral("it is not a ticket this server issued")));
    const Ticket &ticket = opened.value();
    if (ticket.op != request->action->name())
        return done(invalidState(QStringLiteral("it was issued for another tool (%1)").arg(ticket.op)));
    if (ticket.sub != request->principal.name)
        return done(invalidState(QStringLiteral("it was issued to another connection")));
    if (sodium_memcmp(ticket.argsDigest.toLatin1().constData(), request->argsDigest.toLatin1().constData(),
                      static_cast<size_t>(std::min(ticket.argsDigest.size(), request->argsDigest.size()))) !=
            0 ||
        ticket.argsDigest.size() != request->argsDigest.size())
        return done(invalidState(QStringLiteral("the arguments differ from the ones it was issued for")));
    evaluate(request, ticket, std::move(done), true);
}

void Gate::evaluate(const RequestPtr &request, const Ticket &ticket, ToolDone done, bool mayHold)
{
    // A run already claimed: every retry converges on it, and none runs the tool again.
    auto claim = m_store.claimOf(ticket.nonce);
    if (!claim)
        return done(storeFailure(claim.error()));
    if (claim.value()) {
        if (claim.value()->finishedMs)
            return done(claim.value()->result);
        if (auto running = m_running.find(ticket.nonce); running != m_running.end()) {
            running->append(std::move(done));
            return;
        }
        return done(textResult(
            QStringLiteral(
                "Outcome unknown: this approved call was claimed to run at %1, but Countersign stopped "
                "before recording how it ended, so it may or may not have run. It was not run again. "
                "Check its target before asking for a new approval.")
                .arg(QDateTime::fromMSecsSinceEpoch(claim.value()->claimedMs, Qt::UTC)
                         .toString(Qt::ISODateWithMs)),
            true));
    }

    auto stored = m_store.operation(ticket.nonce);
    if (!stored)
        return done(storeFailure(stored.error()));
    if (!stored.value())
        return done(invalidState(QStringLiteral("its operation is not in this server's records")));
    const Operation &op = *stored.value();

    auto decision = m_store.decision(ticket.nonce);
    if (!decision)
        return done(storeFailure(decision.error()));
    const qint64 now = m_clock.nowMs();
    if (!decision.value() && op.status == Operation::Status::Pending && now >= ticket.exp) {
        auto expired =
            m_store.decide(ticket.nonce, Decision{Operation::Status::Expired, QStringLiteral("server"),
                                                  QStringLiteral("the ticket expired"), now});
        if (!expired)
            return done(storeFailure(expired.error()));
        Q_EMIT retired(ticket.nonce);
        decision = std::optional<Decision>(expired.value());
    }
    if (op.status == Operation::Status::Superseded)
        return done(
            textResult(QStringLiteral("This approval was superseded: the plan changed after the card was "
                                      "shown, and a new card was made. Nothing was run with this ticket."),
                       true));

    if (decision.value()) {
        const Decision &d = *decision.value();
        switch (d.outcome) {
        case Operation::Status::Declined:
            return done(settledResult(
                d.reason.isEmpty()
                    ? QStringLiteral("Declined by %1. Nothing was run.").arg(d.by)
                    : QStringLiteral("Declined by %1: %2. Nothing was run.").arg(d.by, d.reason),
                "declined", d));
        case Operation::Status::Approved:
            if (now < ticket.exp)
                return runApproved(request, ticket, d, std::move(done));
            [[fallthrough]];
        default:
            return done(
                settledResult(QStringLiteral("Approval expired: the ticket's %1 s passed before the call was "
                                             "approved and retried. Nothing was run; call the tool again for "
                                             "a new approval card.")
                                  .arg(m_settings.ttlMs / 1000),
                              "expired", d));
        }
    }

    // Pending. An answer from the client can decline; only a client-mode tool's typed confirmation
    // can approve.
    const QString sealed = QString::fromStdString(request->params.at("requestState").get<std::string>());
    QString notice;
    const char *key = op.approvalMode == ApprovalMode::Client ? kConfirmKey : kApprovalKey;
    if (const auto answer = inputResponse(request->params, key)) {
        const std::string action = answer->value("action", std::string());
        const QString by = QStringLiteral("client:%1").arg(request->principal.name);
        if (action == "decline" || action == "cancel") {
            auto d = m_store.decide(
                ticket.nonce,
                Decision{
                    Operation::Status::Declined, by,
                    QStringLiteral("%1 in the client").arg(action == "decline" ? "declined" : "cancelled"),
                    now});
            if (!d)
                return done(storeFailure(d.error()));
            Q_EMIT stepRecorded(Step::Decided, ticket.nonce);
            Q_EMIT retired(ticket.nonce);
            return evaluate(request, ticket, std::move(done), false);
        }
        if (op.approvalMode == ApprovalMode::Client && action == "accept") {
            const json content = answer->value("content", json::object());
            const json typed = content.is_object() ? content.value(kConfirmKey, json()) : json();
            const QString expected = op.plan.targets.isEmpty() ? op.tool : op.plan.targets.first();
            if (typed.is_string() && QString::fromStdString(typed.get<std::string>()) == expected) {
                auto d = m_store.decide(ticket.nonce, Decision{Operation::Status::Approved, by,
                                                               QStringLiteral("typed confirmation"), now});
                if (!d)
                    return done(storeFailure(d.error()));
                Q_EMIT stepRecorded(Step::Decided, ticket.nonce);
                Q_EMIT retired(ticket.nonce);
                return evaluate(request, ticket, std::move(done), false);
            }
            notice = QStringLiteral("The name typed did not match \"%1\".").arg(expected);
        }
    }
    if (!mayHold || !notice.isEmpty())
        return done(inputRequired(op, sealed, request->envelope, false, notice));
    const qint64 window = std::min(m_settings.pollWindowMs, ticket.exp - now);
    // Woken by a decision or at the end of the window, the retry is judged again, without holding.
    hold(ticket.nonce, window,
         [self = QPointer<Gate>(this), request, ticket, done = std::move(done)]() mutable {
             if (self)
                 self->evaluate(request, ticket, std::move(done), false);
         });
}

void Gate::runApproved(const RequestPtr &request, const Ticket &ticket, const Decision &decision,
                       ToolDone done)
{
    // The world may have moved since the card was shown: plan again, and run only the plan approved.
    QPointer<Gate> self(this);
    request->action->plan(
        request->arguments, [self, request, ticket, decision, done = std::move(done)](Result<Plan> plan) {
            if (!self)
                return;
            if (!plan)
                return done(
                    textResult(QStringLiteral("Approved, but Countersign could not check the plan again: %1. "
                                              "Nothing was run; retry to try again.")
                                   .arg(plan.error()),
                               true));
            if (plan.value().digest() != ticket.planDigest) {
                qCInfo(lcGate) << "plan drift for" << ticket.nonce << ": superseded";
                return self->park(request, std::move(plan).value(), done, ticket.nonce);
            }
            self->execute(request, ticket, decision, done);
        });
}

void Gate::execute(const RequestPtr &request, const Ticket &ticket, const Decision &decision, ToolDone done)
{
    // A held retry woken, or a re-plan ended, after the quit began: the approval stays for the
    // next start; nothing new starts now.
    if (m_draining)
        return done(quitting());
    auto claimed = m_store.claim(ticket.nonce);
    if (!claimed)
        return done(storeFailure(claimed.error()));
    if (!claimed.value()) // another retry claimed it first: converge on its run
        return evaluate(request, ticket, std::move(done), false);
    const qint64 consumedMs = m_clock.nowMs();
    m_running[ticket.nonce].append(std::move(done));
    qCInfo(lcGate) << "running" << ticket.nonce << ticket.op;
    Q_EMIT stepRecorded(Step::Claimed, ticket.nonce);
    ++m_applying;
    QPointer<Gate> self(this);
    request->action->apply(request->arguments, [self, request, ticket, decision, consumedMs](json result) {
        if (!self)
            return;
        result = self->receipt(request, ticket, decision, consumedMs, result);
        self->recordEnd(ticket.nonce, result);
        const QList<ToolDone> waiting = self->m_running.take(ticket.nonce);
        for (const ToolDone &d : waiting)
            d(result);
        self->applyEnded();
    });
}

json Gate::receipt(const RequestPtr &request, const Ticket &ticket, const Decision &decision,
                   qint64 consumedMs, const json &result) const
{
    json body = {{"v", 1},
                 {"type", "countersign.receipt"},
                 {"tool", ticket.op.toStdString()},
                 {"connection", ticket.sub.toStdString()},
                 {"client", ticket.client.toStdString()},
                 {"nonce", ticket.nonce.toStdString()},
                 {"argsDigest", ticket.argsDigest.toStdString()},
                 {"planDigest", ticket.planDigest.toStdString()},
                 {"decision", "approved"},
                 {"approver", decision.by.toStdString()},
                 {"decidedAt", decision.atMs},
                 {"mintedAt", ticket.iat},
                 {"expiresAt", ticket.exp},
                 {"consumedAt", consumedMs},
                 {"finishedAt", m_clock.nowMs()},
                 {"outcome", result.value("isError", false) ? "failed" : "succeeded"},
                 {"resultDigest", CanonicalJson::digest(result).toStdString()}};
    Q_UNUSED(request)
    json out = result;
    json meta = out.value("_meta", json::object());
    meta[kReceiptMetaKey] = m_signer.sign(std::move(body));
    out["_meta"] = std::move(meta);
    return out;
}

json Gate::inputRequired(const Operation &op, const QString &sealed, const Envelope &envelope,
                         bool firstRound, const QString &notice) const
{
    json result = {{"resultType", "input_required"}, {"requestState", sealed.toStdString()}};
    const ElicitationModes modes = elicitationModes(envelope);
    const QString lead = notice.isEmpty() ? QString() : notice + QLatin1Char(' ');
    if (op.approvalMode == ApprovalMode::Client) {
        const QString target = op.plan.targets.isEmpty() ? op.tool : op.plan.targets.first();
        result["inputRequests"][kConfirmKey] = {
            {"method", "elicitation/create"},
            {"params",
             {{"mode", "form"},
              {"message", (lead + QStringLiteral("%1\nType \"%2\" to confirm.").arg(op.plan.prompt, target))
                              .toStdString()},
              {"requestedSchema",
               {{"type", "object"},
                {"properties",
                 {{kConfirmKey,
                   {{"type", "string"},
                    {"title", QStringLiteral("Type %1 to confirm").arg(target).toStdString()}}}}},
                {"required", json::array({kConfirmKey})}}}}}};
    } else if (firstRound && modes.url && !m_settings.approvalsUrlBase.isEmpty()) {
        result["inputRequests"][kApprovalKey] = {
            {"method", "elicitation/create"},
            {"params",
             {{"mode", "url"},
              {"message",
               (lead +
                QStringLiteral("Approve or decline \"%1\" in the Countersign window.").arg(op.plan.title))
                   .toStdString()},
              {"url", (m_settings.approvalsUrlBase + op.nonce).toStdString()}}}};
    }
    // Otherwise a requestState-only round: the client retries, and the retry is held for the human.
    return result;
}

// ---- holding retries -------------------------------------------------------------------------

void Gate::hold(const QString &nonce, qint64 ms, std::function<void()> resume)
{
    const quint64 id = ++m_nextWaiter;
    auto *timer = new QTimer(this);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, this, [this, id] { finishWaiter(id); });
    m_waiters.emplace(id, Waiter{nonce, std::move(resume), timer});
    timer->start(static_cast<int>(std::clamp<qint64>(ms, 0, 24LL * 3600 * 1000)));
    if (!m_poll.isActive())
        m_poll.start();
}

void Gate::finishWaiter(quint64 id)
{
    auto it = m_waiters.find(id);
    if (it == m_waiters.end())
        return;
    Waiter waiter = std::move(it->second);
    m_waiters.erase(it);
    waiter.timer->stop();
    waiter.timer->deleteLater();
    waiter.resume();
}

void Gate::wake(const QString &nonce)
{
    QList<quint64> ids;
    for (const auto &[id, waiter] : m_waiters) {
        if (waiter.nonce == nonce)
            ids.append(id);
    }
    for (quint64 id : ids)
        finishWaiter(id);
}

void Gate::pollDecisions()
{
    if (m_waiters.empty()) {
        m_poll.stop();
        return;
    }
    QSet<QString> nonces;
    for (const auto &[id, waiter] : m_waiters)
        nonces.insert(waiter.nonce);
    for (const QString &nonce : nonces) {
        auto op = m_store.operation(nonce);
        if (op && op.value() && op.value()->status != Operation::Status::Pending) {
            Q_EMIT retired(nonce);
            wake(nonce);
        }
    }
}

} // namespace Countersign
