#include "hookservice.h"

#include "commandeffects.h"
#include "commandjudge.h"

#include "auditstore.h"
#include "canonicaljson.h"
#include "claudesessionrecord.h"
#include "fileundo.h"
#include "gate.h"
#include "requestnames.h"
#include "visibletext.h"
#include "workspace.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <algorithm>

Q_LOGGING_CATEGORY(lcHooks, "countersign.hooks")

namespace Countersign {

using json = nlohmann::json;

namespace {

// The exit code a post-tool report gives, where the client's tool_response has one.
json exitCodeOf(const json &response)
{
    if (!response.is_object())
        return nullptr;
    for (const char *key : {"exit_code", "exitCode", "returncode"}) {
        if (const auto it = response.find(key); it != response.end() && it->is_number_integer())
            return *it;
    }
    return nullptr;
}

} // namespace

HookService::HookService(Gate &gate, AuditStore &store, QObject *parent)
    : QObject(parent), m_gate(gate), m_store(store)
{
    // A call whose report never comes (its client killed, a failure the client does not report)
    // is checked within a minute of its time running out, whether or not another call comes.
    auto *stale = new QTimer(this);
    stale->setInterval(60'000);
    connect(stale, &QTimer::timeout, this, &HookService::closeStale);
    stale->start();
}

void HookService::configure(Settings settings)
{
    m_settings = std::move(settings);
    m_tools.clear(); // built again with the new roots on the next call
}

std::shared_ptr<AgentTool> HookService::toolFor(AgentTool::Kind kind)
{
    auto &tool = m_tools[kind];
    if (!tool)
        tool = std::make_shared<AgentTool>(kind, m_settings.workspace, m_settings.countersignServers,
                                           m_settings.mode);
    return tool;
}

void HookService::handle(HookClient client, const Principal &who, Transport transport, const json &payload,
                         Answered done)
{
    auto call = HookCall::parse(client, payload);
    if (!call) {
        qCInfo(lcHooks) << "refused a hook payload from" << who.name << ":" << call.error();
        // The event is not known when the payload is unreadable: a deny in the pre-tool shape is
        // what every client reads as one (a post-tool hook ignores it).
        return done(HookAnswer::deny(
            client, HookCall::Event::Pre,
            QStringLiteral("Countersign refused the hook call: %1. Nothing was allowed.").arg(call.error())));
    }
    // A tool no matcher of Countersign's would ask about: allowed, and its report not kept.
    if (call.value().unasked)
        return done(call.value().event == HookCall::Event::Post
                        ? HookAnswer::recorded()
                        : HookAnswer::allow(client, call.value().event));
    if (call.value().event == HookCall::Event::Post)
        return after(call.value(), who, std::move(done));
    before(call.value(), who, transport, std::move(done));
}

QString HookService::reportKey(const Principal &who, const HookCall &call, const QString &argsDigest) const
{
    return QString::number(who.connectionId) + QLatin1Char('|') + HookClients::name(call.client) +
           (call.toolUseId.isEmpty() ? QStringLiteral("|args:") + argsDigest
                                     : QStringLiteral("|id:") + call.toolUseId);
}

void HookService::remember(const QString &key, Allowed allowed)
{
    allowed.order = ++m_order;
    m_allowed.insert(key, std::move(allowed));
    if (m_allowed.size() <= kMaxAwaitingReport)
        return;
    auto oldest = m_allowed.begin();
    for (auto it = m_allowed.begin(); it != m_allowed.end(); ++it) {
        if (it->order < oldest->order)
            oldest = it;
    }
    const Allowed evicted = *oldest;
    const QString evictedKey = oldest.key();
    m_allowed.erase(oldest);
    if (evicted.armed && m_settings.tripwire)
        tripped(evicted, m_settings.tripwire->disarm(evictedKey));
    if (evicted.netArmed && m_settings.net)
        m_settings.net->disarm(evictedKey); // its report will not be matched: its record is let go
}

HookCall HookService::asMcpCall(HookCall call) const
{
    // opencode names an MCP tool SERVER_TOOL, Cline SERVER__TOOL.
    const QString separator = call.client == HookClient::OpenCode ? QStringLiteral("_")
                              : call.client == HookClient::Cline  ? QStringLiteral("__")
                                                                  : QString();
    if (separator.isEmpty() || !m_settings.servesTool)
        return call;
    for (const QString &server : m_settings.countersignServers) {
        const QString prefix = server + separator;
        if (call.tool.startsWith(prefix) && m_settings.servesTool(call.tool.mid(prefix.size()))) {
            call.tool = QStringLiteral("mcp__%1__%2").arg(server, call.tool.mid(prefix.size()));
            break;
        }
    }
    return call;
}

void HookService::before(const HookCall &sent, const Principal &who, Transport transport, Answered done)
{
    closeStale();
    const HookCall call = asMcpCall(sent);
    auto arguments = AgentTool::arguments(call);
    if (!arguments)
        return done(HookAnswer::deny(
            call.client, call.event,
            QStringLiteral("Countersign refused the call: %1. Nothing was allowed.").arg(arguments.error())));
    const std::shared_ptr<AgentTool> tool = toolFor(AgentTool::kindOf(call.tool));
    AgentCall agentCall;
    agentCall.principal = who;
    agentCall.client = HookClients::name(call.client) + QStringLiteral(" (hook)");
    agentCall.arguments = arguments.value();
    agentCall.transport = transport;
    agentCall.held = m_held.value(who.name);
    agentCall.session = call.sessionId;
    // Only Claude Code's record is read (Gemini CLI and Qwen Code send a transcript_path of their own
    // format, elsewhere).
    if (call.client == HookClient::ClaudeCode && !call.transcriptPath.isEmpty())
        agentCall.preface = requestPreface(call, tool, arguments.value());
    // The undo store keeps its promise: with no room but what recent copies hold, a change that runs
    // with no card could not be undone, so the call asks (saying why) rather than drop one.
    if (agentCall.held.isEmpty() && m_settings.snapshots && m_settings.snapshots->full())
        agentCall.held =
            QStringLiteral("asks: the undo store is full (%1 MiB of copies younger than %2 hours, which are "
                           "never dropped to make room), so a change that runs with no card could not be "
                           "undone; raise undoMegabytes or lower undoKeepHours")
                .arg(m_settings.snapshots->totalBytes() >> 20)
                .arg(m_settings.snapshots->limits().keepMs / (3600 * 1000));
    // Answered before the client's own hook timeout: the setup writes one longer than the hold,
    // and a client whose timeout is fixed is answered 10 s before it.
    const int fixed = hookClientSpec(call.client).fixedTimeoutSeconds;
    agentCall.holdMs =
        fixed > 0 ? std::min<qint64>(m_settings.holdMs, (fixed - 10) * 1000LL) : m_settings.holdMs;
    const QString argsDigest = QString::fromLatin1(CanonicalJson::digest(arguments.value()));
    const QString key = reportKey(who, call, argsDigest);
    const QString path = QString::fromStdString(arguments.value().value("path", ""));
    const AgentTool::Kind kind = AgentTool::kindOf(call.tool);
    const bool reads = kind == AgentTool::Kind::Read;
    // Its own undo keeps what a write, an edit or a patch changes; the net takes the rest.
    const bool netted = !reads && kind != AgentTool::Kind::Write && kind != AgentTool::Kind::Edit &&
                        kind != AgentTool::Kind::Patch;
    // The call's policy, plan and undo list read its command line once, while it is decided here
    // (a call that waits for a card is read again when it is answered).
    const Shell::CommandEffects::Memo readOnce;
    // The files this session made itself: deleting one it left as it was loses no one's work.
    const QString session = who.name + QLatin1Char('\n') + call.sessionId;
    if (agentCall.held.isEmpty())
        agentCall.held = m_heldSessions.value(session);
    const CommandJudge::Scratch scratch(m_made.value(session));
    if (m_declined.any(session))
        triesAgain(session, who, tool->reaches(arguments.value()), agentCall);
    // The net is under a quiet call that is netted: what it overwrites in the roots is kept first.
    std::optional<CommandJudge::NetScope> underNet;
    // Only when every root is recorded and no other quiet call is in flight: the record is then
    // taken when this call is allowed, with what the files hold now (a shared, older record would
    // bring back what they held before a human's edit since).
    if (netted && m_settings.net && m_settings.net->skippedRoots().isEmpty() && !m_settings.net->armed())
        underNet.emplace();
    m_gate.judge(
        tool, agentCall,
        [self = QPointer<HookService>(this), client = call.client, event = call.event, key, argsDigest, path,
         tool, reads, netted, who = who.name, arguments = arguments.value(), session,
         done = std::move(done)](Gate::Judgement judgement) {
            if (judgement.declined && self)
                self->m_declined.declined(session, tool->reaches(arguments),
                                          tool->targetsOf(arguments).join(QStringLiteral(", ")),
                                          QDateTime::currentMSecsSinceEpoch());
            if (!judgement.allowed)
                return done(HookAnswer::deny(client, event, judgement.words));
            if (!self)
                return done(HookAnswer::deny(
                    client, event, QStringLiteral("Countersign is stopping. Nothing was allowed.")));
            Allowed allowed;
            allowed.nonce = judgement.nonce;
            allowed.approved = judgement.approved;
            allowed.argsDigest = argsDigest;
            allowed.path = path;
            allowed.connection = who;
            allowed.allowedMs = QDateTime::currentMSecsSinceEpoch();
            allowed.agent = HookClients::title(client);
            allowed.what = tool->targetsOf(arguments).join(QStringLiteral(", "));
            // What the files hold now, kept before the client may change them (measured again
            // now: what a deletion removes is what is there when it is allowed).
            if (const auto &snapshots = self->m_settings.snapshots) {
                const QStringList files = tool->writtenPaths(arguments);
                // A plan that said the change could be undone is held to it, whether a human
                // approved its card or a grant ran it: what can no longer be kept (a file swapped
                // or unreadable since) does not run. A call a rule allowed promised nothing.
                const bool promised = judgement.approved  ? self->promisedUndo(judgement.nonce)
                                      : judgement.granted ? self->grantPromisedUndo(judgement.nonce)
                                                          : false;
                if (files.isEmpty() && promised)
                    return done(HookAnswer::deny(
                        client, event,
                        QStringLiteral(
                            "Countersign could no longer keep a copy of what the command deletes or "
                            "overwrites, and its card said it could be undone. Nothing was allowed.")));
                for (const QString &file : files) {
                    auto kept = snapshots->keep(file);
                    if (!kept && !promised && (judgement.approved || !tool->needsUndo())) {
                        // A human approved this very change on its card, or a command's card
                        // said it may have no undo: it runs, with none.
                        qCWarning(lcHooks) << "a change runs with no undo:" << kept.error();
                        allowed.kept.clear();
                        break;
                    }
                    if (!kept) {
                        qCWarning(lcHooks) << "refused an allowed change:" << kept.error();
                        return done(HookAnswer::deny(
                            client, event,
                            QStringLiteral("Countersign could not keep what %1 holds now, so the change "
                                           "could not be undone: %2. Nothing was allowed.")
                                .arg(file, kept.error())));
                    }
                    allowed.kept.append(kept.value());
                }
            }
            // The tripwire: around a call that runs with no card, the protected files are watched;
            // a call a human approved may change the files it names.
            if (const auto &tripwire = self->m_settings.tripwire) {
                if (judgement.approved) {
                    tripwire->exempt(tool->writtenPaths(arguments));
                } else if (!reads) {
                    const auto between = tripwire->arm(key, QDateTime::currentMSecsSinceEpoch());
                    allowed.armed = true;
                    if (!between.isEmpty())
                        self->changedBetweenCalls(between);
                }
            }
            if (const auto &net = self->m_settings.net; net && netted && !judgement.approved) {
                net->arm(key, QDateTime::currentMSecsSinceEpoch());
                allowed.netArmed = true;
            }
            self->remember(key, std::move(allowed));
            done(HookAnswer::allow(client, event));
        });
}

std::shared_ptr<const CardPreface> HookService::requestPreface(const HookCall &call,
                                                               const std::shared_ptr<AgentTool> &tool,
                                                               const json &arguments)
{
    // Read only when a card is made: a quiet call never opens the record.
    return std::make_shared<CardPreface>([path = call.transcriptPath, session = call.sessionId,
                                          toolUseId = call.toolUseId, tool, arguments,
                                          title = HookClients::title(call.client)]() -> QString {
        if (auto checked =
                ClaudeSessionRecord::checkPath(path, session, ClaudeSessionRecord::claudeFolders());
            !checked) {
            qCInfo(lcHooks) << "not read:" << path.left(200) << ":" << checked.error();
            return {};
        }
        const auto request = ClaudeSessionRecord::requestBehind(path, toolUseId, kMaxRecordBytes);
        if (!request || request.value().text.trimmed().isEmpty())
            return {};
        // Only the words shown count as naming anything: the card says what it matched against.
        const QString shown = RequestNames::shown(request.value().text, kMaxRequestChars);
        QString words =
            QStringLiteral("%1's session record says you asked: \u201c%2\u201d.").arg(title, shown);
        const QStringList unnamed =
            RequestNames::unnamed(shown, tool->reaches(arguments),
                                  QString::fromStdString(arguments.value("cwd", "")), QDir::homePath());
        constexpr qsizetype kListed = 10;
        if (!unnamed.isEmpty())
            words += QStringLiteral(" Your request did not name %1%2.")
                         .arg(visibleText(unnamed.mid(0, kListed).join(QStringLiteral(", "))),
                              unnamed.size() > kListed
                                  ? QStringLiteral(" and %1 more").arg(unnamed.size() - kListed)
                                  : QString());
        return words;
    });
}

namespace {
// Whether the operation's plan promised copies of the files it changes (its blast radius's undo).
bool promisesCopies(const Operation &op)
{
    const json &blast = op.plan.blastRadius;
    const json undo = blast.is_object() ? blast.value("undo", json()) : json();
    return undo.is_object() && undo.contains("files");
}
} // namespace

bool HookService::promisedUndo(const QString &nonce)
{
    auto op = m_store.operation(nonce);
    if (!op || !op.value())
        return true; // unreadable: held to the stricter reading
    return promisesCopies(*op.value());
}

bool HookService::grantPromisedUndo(const QString &nonce)
{
    auto op = m_store.operation(nonce);
    if (!op || !op.value())
        return false; // a call a rule allowed with no record to read promised nothing
    return op.value()->rule.startsWith(QLatin1String("grant ")) && promisesCopies(*op.value());
}

void HookService::rememberMade(const QString &session, const QList<SnapshotStore::Kept> &kept)
{
    if (kept.isEmpty() || session.endsWith(QLatin1Char('\n')))
        return;
    if (!m_made.contains(session) && m_made.size() >= 256)
        m_made.erase(m_made.begin()); // a bound: the oldest sessions' files ask again
    QHash<QString, QString> &made = m_made[session];
    for (const SnapshotStore::Kept &k : kept) {
        if (!k.existed && made.size() < 4096)
            made.insert(k.path,
                        SnapshotStore::digestOf(k.path, AgentTool::kMaxFileBytes)); // made by this call
        else if (made.contains(k.path))
            made.insert(k.path, SnapshotStore::digestOf(
                                    k.path, AgentTool::kMaxFileBytes)); // changed again by the session itself
        if (made.value(k.path, QStringLiteral("x")).isEmpty())
            made.remove(k.path); // gone, or no longer a regular file
    }
}

void HookService::after(const HookCall &call, const Principal &who, Answered done)
{
    auto arguments = AgentTool::arguments(call);
    const QString argsDigest =
        arguments ? QString::fromLatin1(CanonicalJson::digest(arguments.value())) : QString();
    const QString key = reportKey(who, call, argsDigest);
    const auto found = m_allowed.constFind(key);
    json detail = {
        {"connection", who.name.toStdString()},
        {"agent", HookClients::name(call.client).toStdString()},
        {"tool", call.tool.toStdString()},
        {"toolUseId", call.toolUseId.toStdString()},
        {"argsDigest", argsDigest.toStdString()},
        {"failed", call.failed},
        {"exitCode", exitCodeOf(call.response)},
        {"outputSha256", CanonicalJson::sha256Hex(QByteArray::fromStdString(call.response.dump(
                                                      -1, ' ', false, json::error_handler_t::replace)))
                             .toStdString()}};
    QString problem;
    QString nonce;                   // the allowed call's operation, whose chain rows this report joins
    QList<Tripwire::Change> changes; // what the tripwire put back after it
    std::optional<Allowed> armed;
    // Only the report of the call itself ends its watch (one with other input leaves it armed,
    // checked when its report or its time comes).
    if (found != m_allowed.cend() && found->armed && m_settings.tripwire && found->argsDigest == argsDigest) {
        armed = *found;
        changes = m_settings.tripwire->disarm(key);
    }
    if (found == m_allowed.cend()) {
        problem = QStringLiteral("%1 reported running %2 (tool-use id %3), which Countersign never allowed")
                      .arg(HookClients::title(call.client), call.tool,
                           call.toolUseId.isEmpty() ? QStringLiteral("none") : call.toolUseId.left(64));
    } else if (found->argsDigest != argsDigest) {
        problem = QStringLiteral("%1 reported running %2 (tool-use id %3) with other input than was allowed")
                      .arg(HookClients::title(call.client), call.tool, call.toolUseId.left(64));
    } else {
        nonce = found->nonce;
        detail["nonce"] = found->nonce.toStdString();
        QList<SnapshotStore::Kept> kept = found->kept;
        json unkept = json::array();
        QSet<QString> nettedPaths;
        if (found->netArmed && m_settings.net) {
            // What the call changed in the roots, as the net found it; what the call kept itself
            // (a file outside the roots, or in a folder the net does not record) joins it.
            const WorkspaceNet::Outcome outcome = m_settings.net->disarm(key);
            QList<SnapshotStore::Kept> netted = outcome.kept;
            for (const SnapshotStore::Kept &own : kept) {
                if (std::none_of(netted.cbegin(), netted.cend(),
                                 [&](const SnapshotStore::Kept &k) { return k.path == own.path; }))
                    netted.append(own);
            }
            kept = netted;
            json changed = json::array();
            for (const SnapshotStore::Kept &k : outcome.kept)
                changed.push_back(k.path.toStdString());
            if (!changed.empty())
                detail["changed"] = changed;
            for (const QString &path : outcome.unkept)
                unkept.push_back(path.toStdString());
            for (const SnapshotStore::Kept &k : outcome.kept)
                nettedPaths.insert(k.path);
            if (outcome.sharedWith > 0)
                detail["recordSharedWith"] = outcome.sharedWith;
        }
        if (!kept.isEmpty()) {
            // A file the net found changed into something it cannot read back (a link, a pipe, a
            // file too large or with other hard links) is named with no undo, so that it never
            // stops the undo of the rest.
            json undo = json::array();
            for (json &item : FileUndo::record(kept)) {
                if (item.value("after", json()) == "unreadable" &&
                    nettedPaths.contains(QString::fromStdString(item.value("path", std::string()))))
                    unkept.push_back(item["path"]);
                else
                    undo.push_back(std::move(item));
            }
            if (!undo.empty())
                detail["undo"] = std::move(undo);
        }
        if (!unkept.empty())
            detail["changedWithoutCopy"] = unkept;
        rememberMade(who.name + QLatin1Char('\n') + call.sessionId, kept);
        if (!call.sessionId.isEmpty())
            detail["session"] = call.sessionId.left(200).toStdString();
        detail["startedMs"] = found->allowedMs;
        if (!found->path.isEmpty()) {
            const QString now = SnapshotStore::digestOf(found->path, AgentTool::kMaxFileBytes);
            detail["fileSha256"] = now.toStdString();
            auto op = !found->approved ? Result<std::optional<Operation>>(std::nullopt)
                                       : m_store.operation(found->nonce);
            const QString approved =
                op && op.value()
                    ? QString::fromStdString(op.value()->plan.blastRadius.value("afterSha256", ""))
                    : QString();
            if (!approved.isEmpty() && now != approved) {
                detail["fileMatchesPlan"] = false;
                problem = QStringLiteral("%1 changed %2, and the file is not what was approved")
                              .arg(HookClients::title(call.client), found->path);
            } else if (!approved.isEmpty()) {
                detail["fileMatchesPlan"] = true;
            }
        }
        m_allowed.remove(key);
    }
    if (!problem.isEmpty())
        detail["problem"] = problem.toStdString();
    if (!changes.isEmpty())
        detail["tripwire"] = changes.size();
    const QString event =
        problem.isEmpty() ? QStringLiteral("agent-tool-ran") : QStringLiteral("agent-tool-flagged");
    if (auto recorded =
            nonce.isEmpty() ? m_store.recordEvent(event, detail) : m_store.recordEvent(event, nonce, detail);
        !recorded)
        qCWarning(lcHooks) << "the report of" << call.tool << "was not recorded:" << recorded.error();
    else
        qCInfo(lcHooks) << "recorded" << event << call.tool << call.toolUseId << "for" << who.name;
    if (!problem.isEmpty()) {
        qCWarning(lcHooks) << problem;
        Q_EMIT flagged(problem);
    }
    if (armed)
        tripped(*armed, changes);
    done(HookAnswer::recorded());
}

void HookService::closeStale()
{
    if (m_settings.net)
        m_settings.net->forgetStale(QDateTime::currentMSecsSinceEpoch() - kStaleMs);
    if (!m_settings.tripwire || !m_settings.tripwire->armed())
        return;
    const auto stale = m_settings.tripwire->disarmStale(QDateTime::currentMSecsSinceEpoch() - kStaleMs);
    for (const auto &[key, changes] : stale) {
        auto found = m_allowed.find(key);
        if (found == m_allowed.end())
            continue;
        found->armed = false;
        tripped(*found, changes);
    }
}

} // namespace Countersign
