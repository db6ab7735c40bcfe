#pragma once

#include "config.h"
#include "gate.h"
#include "operation.h"
#include "result.h"
#include "serverkeys.h"

#include <QHash>
#include <QObject>

class QTimer;

#include <functional>
#include <memory>

namespace Countersign {

class ApprovalPage;
class AuditStore;
class Grants;
class Callers;
class CallSpans;
class Clock;
class CommandRunner;
class Database;
class Dispatcher;
class HookEndpoint;
class Tripwire;
class WorkspaceNet;
class HookService;
class HttpRoutes;
class HttpServer;
class LocalEndpoint;
class McpHttpEndpoint;
class OtlpExporter;
class ReceiptSigner;
class TicketSealer;
class TokenStore;
class ToolRegistry;
class Upstreams;
class UpstreamTrust;

// The server side composed from its rooms: its own database connection, the gate (server/gate), the
// tools (server/tools), the dispatcher and /mcp endpoint (server/mcp) and the HTTP listener
// (server/http). Lives in (and must be started from) the server thread. Talks to the approval
// queue only through its signals and wake().
class McpServer final : public QObject
{
    Q_OBJECT
public:
    // What the server is made of. The database connection is opened in start(), in the server
    // thread; the clock and any extra tools are injected.
    struct Setup final
    {
        Config config;
        QString databasePath;
        ServerKeys keys;
        const Clock *clock = nullptr; // required; must outlive the server (and be thread-safe)
        // Called with the registry each time the tools are built (start, configuration reload),
        // after the built-in ones: a test host adds its fixture tools here. Empty in the product.
        // Calling `changed` (later, on the server's thread) rebuilds them and tells the clients
        // when what tools/list answers changed.
        using ExtraTools = std::function<void(ToolRegistry &, const std::function<void()> &changed)>;
        ExtraTools extraTools;
        // Where `countersign --stdio` bridges connect (a local socket); none when empty.
        QString bridgeSocketPath;
        // This process among the instances sharing the store (AuditStore::setInstance); none: its
        // claims name no instance (tests).
        QString instanceId;
        QString instanceName; // Config::instanceName: recorded with each call it serves
        // Where the agents' allowed changes and the workspace tools' runs keep their files' previous
        // content for an undo
        // (SnapshotStore, bounded by Config::undoMegabytes and undoDays); none when empty.
        QString snapshotsPath;
        // Countersign's own files that the tripwire guards beside the standard protected set
        // (ProtectedSet): its configuration file, its keys.
        QStringList protectedFiles;
    };

    explicit McpServer(Setup setup, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(McpServer)
    ~McpServer() override;

    // Opens the database, builds the tools and listens (HTTP, and the bridges' socket when the
    // setup names one). Returns the bound port.
    Result<quint16> start();
    // Stops listening, drops held requests and closes the database (call in the server thread).
    void stop();
    // Before stop(), when quitting: accepts no new connection, refuses new calls, and lets the
    // tools running now end and be recorded (their clients still get the result). Returns how many
    // run; drained() follows when none does (at once if none did).
    int drain();

    const Dispatcher &dispatcher() const { return *m_dispatcher; }

    // A reloaded configuration: tools, rules, TTL and poll window follow it; the listen address,
    // key store and OTLP export only change with a restart. Calls in flight finish under the old one.
    void reconfigure(const Config &config);

public Q_SLOTS:
    void wake(const QString &nonce);
    // Emits upstreamsChanged with the upstreams as they are now (a window that just connected).
    void reportUpstreams();
    // Emits upstreamWideningHeld for each upstream whose change is held now (a window that just
    // connected).
    void reportHeldUpstreams();
    // The human accepted (or refused) the held change of an upstream's tools (UpstreamTrust).
    // digest: of the listing the human saw (UpstreamTrust::wideningHeld).
    void acceptUpstream(const QString &upstream, const QString &digest);
    void keepUpstream(const QString &upstream, const QString &digest);
    // A human looked at the tripwire's alarm: the connection's calls are judged as before.
    void releaseHold(const QString &connection, const QString &by);
    // The window added or revoked a "from now on" grant: the gate reads them again now.
    void reloadGrants();

Q_SIGNALS:
    void parked(const Countersign::Operation &operation);
    void retired(const QString &nonce);
    // How many agent calls wait on the card now (Gate::waiting).
    void waiting(const QString &nonce, int calls);
    // The agent's client answered the card's prompt itself (Gate::clientAnswered).
    void clientAnswered(const QString &nonce, const QString &action, qint64 ms);
    // Someone opened http://127.0.0.1:PORT/approvals/<nonce> (URL-mode elicitation).
    void revealRequested(const QString &nonce);
    void drained();
    void untrustedDecision(const QString &message);
    // The gate's durable steps (Gate::Step), emitted in the server thread.
    void stepRecorded(Countersign::Gate::Step step, const QString &nonce);
    // The upstreams' states and tools changed (Upstreams::status, as JSON text for the window).
    void upstreamsChanged(const QString &status);
    // An upstream changed its tools in a way that widens what runs without a human: held until
    // accepted (one line per change); or it is no longer held.
    void upstreamWideningHeld(const QString &upstream, const QStringList &widening, const QString &digest);
    void upstreamWideningCleared(const QString &upstream);
    // The tripwire put back what a call allowed with no card changed, and holds its connection
    // (HookService::tripwireFired); a held connection was released.
    void tripwireFired(const QString &connection, const QString &message);
    void holdReleased(const QString &connection);
    // A connection's token was accepted (at most once a second per connection).
    void requestFrom(const QString &connection, qint64 atMs);

private:
    void buildTools();
    // A digest of every tool's tools/list entry: whether a rebuild changed what clients see.
    std::size_t toolsDigest() const;
    void tellIfToolsChanged();
    // With "otlp" configured: a span per gated call, exported (server/telemetry).
    void startExport();

    Setup m_setup;
    std::unique_ptr<Database> m_database;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<AuditStore> m_audit;
    std::unique_ptr<TicketSealer> m_sealer;
    std::unique_ptr<ReceiptSigner> m_signer;
    Gate *m_gate = nullptr;
    Grants *m_grants = nullptr; // the gate's "from now on", read from the chain on this thread
    std::unique_ptr<OtlpExporter> m_exporter;
    CallSpans *m_spans = nullptr; // with m_exporter, when "otlp" is configured
    Upstreams *m_upstreams = nullptr;
    UpstreamTrust *m_trust = nullptr;
    HookService *m_hooks = nullptr;           // the agents' own tools, through their hooks
    std::shared_ptr<Tripwire> m_tripwire;     // on the files the gate protects, across reloads
    std::shared_ptr<WorkspaceNet> m_net;      // under the roots, across reloads
    std::unique_ptr<HookEndpoint> m_hookDoor; // their HTTP and local-socket door
    QTimer *m_rebuild = nullptr;              // coalesces the upstreams' tool changes
    QTimer *m_seen = nullptr;                 // tells the store this instance still runs
    std::size_t m_toolsDigest = 0;
    CommandRunner *m_runner = nullptr;
    std::unique_ptr<ToolRegistry> m_tools;
    std::unique_ptr<Dispatcher> m_dispatcher;
    std::unique_ptr<McpHttpEndpoint> m_endpoint;
    Callers *m_callers = nullptr; // who calls, by their tokens
    ApprovalPage *m_approvalPage = nullptr;
    std::unique_ptr<HttpRoutes> m_routes; // which door a path opens
    HttpServer *m_http = nullptr;
    LocalEndpoint *m_bridges = nullptr;
};

} // namespace Countersign
