#pragma once

#include "agenttool.h"
#include "callchannel.h"
#include "declinedintents.h"
#include "gatecall.h"
#include "hookcall.h"
#include "principal.h"
#include "snapshotstore.h"
#include "tripwire.h"
#include "workspacenet.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <map>
#include <memory>

namespace Countersign {

class AuditStore;
class Gate;
struct AgentCall;
class Workspace;

// The agents' pre- and post-tool hooks, whatever carried them (Claude Code's HTTP hook, the
// `countersign hook CLIENT` shim on the local socket). Before a tool runs, the call goes through
// the gate as an AgentTool and the hook is answered allow only when the gate ran its allow: a rule
// allowed it, or a human approved this call's card (one approval, one call). Everything else is a
// deny with the words the agent reads: declined and why, still waiting (before the client's own
// hook timeout, which lets calls through), a bad payload, a store failure. After the tool ran, the
// report is matched to its allow by the client's tool-use id and the input's digest and its outcome
// put in the audit chain; a report that matches nothing, or a file that is not what was approved,
// is flagged. Before a write, edit or patch is allowed, its files' previous content is kept, and the
// report names it in the chain under the operation's nonce, for an undo (FileUndo); a call whose
// files cannot be kept is refused. Around every call allowed with no card (a read by the agent's own
// read tool aside), the tripwire (Tripwire) watches the files the gate protects: a change no card
// approved is put back when the call's report comes (or, when none comes, within a minute of kStaleMs), said
// in the audit chain and the window, and the connection is held: its next calls all ask, whatever
// the rules allow, until a human releases it in the window. Before a shell command (or another tool
// that is not a read, a write, an edit or a patch) runs with no card, the net (WorkspaceNet) records
// the roots; its report names every file it changed there, with an undo (FileUndo).
class HookService final : public QObject
{
    Q_OBJECT
public:
    HookService(Gate &gate, AuditStore &store, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(HookService)

    struct Settings final
    {
        std::shared_ptr<const Workspace> workspace;
        QStringList countersignServers = {QStringLiteral("countersign"), QStringLiteral("cs")};
        // How long a call is held for the human before the hook answers "still waiting", under the
        // clients' hook timeouts (the setup writes 600 s; Gemini CLI reads milliseconds).
        qint64 holdMs = 570'000;
        // What the agents' tools may do with no card when no rule decides.
        GateMode mode = GateMode::Standard;
        // Where an allowed write's, edit's or patch's files keep their previous content for an undo
        // (FileUndo); null: nothing is kept.
        std::shared_ptr<SnapshotStore> snapshots;
        // Whether this console's MCP server serves a tool of this name: opencode names an MCP tool
        // "<server>_<tool>", so its plugin's call of "countersign_write_file" is this console's own
        // write_file (gated as an MCP call already) only when the server is one of
        // countersignServers and the rest a tool it serves. Unset: none is.
        std::function<bool(const QString &)> servesTool;
        // The tripwire on the protected files; null: none. Kept across reconfigurations (the
        // calls in flight keep their record).
        std::shared_ptr<Tripwire> tripwire;
        // The net under the roots (WorkspaceNet): a shell command, an MCP tool or another tool allowed
        // with no card has what it changed in the roots recorded, for an undo; null: none.
        std::shared_ptr<WorkspaceNet> net;
    };
    void configure(Settings settings);

    using Answered = std::function<void(HookAnswer)>;
    // payload: the hook's JSON as the client sent it; transport: how it came (HookEndpoint). done is
    // called once.
    void handle(HookClient client, const Principal &who, Transport transport, const nlohmann::json &payload,
                Answered done);

    // How much of an agent's session record is read back for the user's request, and how much of
    // the request its card shows.
    static constexpr qint64 kMaxRecordBytes = 8 * 1024 * 1024;
    static constexpr qsizetype kMaxRequestChars = 300;
    // Allowed calls whose post-tool report has not come, per connection, at most this many kept.
    static constexpr int kMaxAwaitingReport = 1024;
    // A call allowed with no card whose report has not come this long after is taken as ended
    // (the client stopped, or reports no failure): the tripwire checks at the next call.
    static constexpr qint64 kStaleMs = 15LL * 60 * 1000;

    // The connections held now (the tripwire fired on one of their calls), each with why.
    QHash<QString, QString> held() const { return m_held; }
    // A human looked: the connection's calls are judged as before again (recorded in the chain).
    Status release(const QString &connection, const QString &by);

Q_SIGNALS:
    // A post-tool report for a call that was never allowed, or a file that differs from the approved
    // diff: the words are for the window.
    void flagged(const QString &message);
    // The tripwire put back what a call allowed with no card changed: the connection is held, and
    // the words (naming the call and each file) are for the window's alarm.
    void tripwireFired(const QString &connection, const QString &message);
    // A held connection was released.
    void holdReleased(const QString &connection);

private:
    struct Allowed final
    {
        QString nonce;
        QString argsDigest;
        QString afterSha256;   // a write or edit: the file as approved
        bool approved = false; // by a human (its card's plan names the file as approved)
        QString path;
        QList<SnapshotStore::Kept> kept; // what the files held before the call, for its undo
        qint64 order = 0;
        bool armed = false;    // the tripwire watches it (it runs with no card)
        bool netArmed = false; // the net recorded the roots before it
        QString connection;    // who, and what, for the alarm
        qint64 allowedMs = 0;  // when it was allowed (its turn's pauses are measured from it)
        QString agent;
        QString what;
    };
    void before(const HookCall &call, const Principal &who, Transport transport, Answered done);
    void after(const HookCall &call, const Principal &who, Answered done);
    std::shared_ptr<AgentTool> toolFor(AgentTool::Kind kind);
    // What the user asked, said first on the call's card: the latest request in the agent's session
    // record (Claude Code's transcript_path, checked: ClaudeSessionRecord::checkPath), and the paths
    // the call reaches that it never named (RequestNames).
    static std::shared_ptr<const CardPreface> requestPreface(const HookCall &call,
                                                             const std::shared_ptr<AgentTool> &tool,
                                                             const nlohmann::json &arguments);
    QString reportKey(const Principal &who, const HookCall &call, const QString &argsDigest) const;
    void remember(const QString &key, Allowed allowed);
    // An opencode or Cline call of this console's own MCP tool, under its MCP name (Settings::servesTool).
    HookCall asMcpCall(HookCall call) const;
    // Whether the approved card of this operation said a copy is kept before it runs.
    bool promisedUndo(const QString &nonce);
    // Whether a call an allow grant ran was planned with a copy kept (its plan's "undo"): it is held
    // to it as an approved card is.
    bool grantPromisedUndo(const QString &nonce);
    // The tripwire found changes after the call of this allow (its report came, or never will):
    // recorded under its operation, said in the window, and its connection held.
    void tripped(const Allowed &allowed, const QList<Tripwire::Change> &changes);
    // Calls allowed with no card whose report never came: checked as if it had.
    void closeStale();
    // The protected set changed while no quiet call ran: recorded and said, not put back.
    void changedBetweenCalls(const QList<Tripwire::Change> &changes);
    // A call that reaches what a human declined of its session: it asks and its card says so; after
    // two declines the session is held (every call of it asks) until its connection is released.
    void triesAgain(const QString &session, const Principal &who, const QStringList &reaches,
                    AgentCall &call);
    // What a session's call made or changed again, as the net and its own undo found it.
    void rememberMade(const QString &session, const QList<SnapshotStore::Kept> &kept);

    Gate &m_gate;
    AuditStore &m_store;
    Settings m_settings;
    std::map<AgentTool::Kind, std::shared_ptr<AgentTool>> m_tools;
    QHash<QString, Allowed> m_allowed; // reportKey -> the allow it is waiting to hear about
    QHash<QString, QString> m_held; // connection -> why its calls ask (the tripwire fired, or it came back)
    QHash<QString, QString> m_heldSessions; // connection + session -> why its calls ask (it came back)
    DeclinedIntents m_declined;             // connection + session -> what a human declined of it
    // connection + session -> the files its calls made -> their SHA-256 as its last call left them
    QHash<QString, QHash<QString, QString>> m_made;
    qint64 m_order = 0;
};

} // namespace Countersign
