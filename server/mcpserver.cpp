#include "mcpserver.h"

#include "approvalpage.h"
#include "auditstore.h"
#include "callers.h"
#include "callspans.h"
#include "clock.h"
#include "commandaction.h"
#include "commandrunner.h"
#include "database.h"
#include "dispatcher.h"
#include "gate.h"
#include "gatedtool.h"
#include "grants.h"
#include "hookclients.h"
#include "hookendpoint.h"
#include "hookservice.h"
#include "httproutes.h"
#include "httpserver.h"
#include "jsonrpc.h"
#include "localendpoint.h"
#include "mcphttpendpoint.h"
#include "otlpexporter.h"
#include "receipt.h"
#include "snapshotstore.h"
#include "statustool.h"
#include "ticketsealer.h"
#include "tokenstore.h"
#include "tool.h"
#include "toolregistry.h"
#include "tooltasks.h"
#include "tripwire.h"
#include "upstreams.h"
#include "upstreamtrust.h"
#include "workspace.h"
#include "workspacenet.h"
#include "workspacetools.h"

#include <QDateTime>
#include <QDir>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>
#include <QUrl>

Q_LOGGING_CATEGORY(lcServer, "countersign.server")

namespace Countersign {

namespace {

// The gate's times from the configuration (the approvals URL is set once the server listens).
Gate::Settings gateTimes(const Config &config)
{
    Gate::Settings times;
    times.ttlMs = config.ttlSeconds() * 1000LL;
    times.pollWindowMs = config.pollWindowSeconds() * 1000LL;
    times.legacyHoldMs = config.legacyHoldSeconds() * 1000LL;
    times.progressHoldMs = config.progressHoldSeconds() * 1000LL;
    times.unseenLimitMs = config.cardUnseenLimitSeconds() * 1000LL;
    return times;
}

} // namespace

McpServer::McpServer(Setup setup, QObject *parent) : QObject(parent), m_setup(std::move(setup))
{
    Q_ASSERT(m_setup.clock);
}

McpServer::~McpServer()
{
    stop();
}

Result<quint16> McpServer::start()
{
    auto db = Database::open(m_setup.databasePath);
    if (!db)
        return failure(db.error());
    m_database = std::move(db).value();
    const Clock &clock = *m_setup.clock;
    m_tokens = std::make_unique<TokenStore>(*m_database, clock);
    // Who calls, by their tokens; each connection's requests told to the window at most once a
    // second (Connections).
    m_callers = new Callers(*m_tokens, this);
    connect(m_callers, &Callers::requestFrom, this, &McpServer::requestFrom);
    m_signer = std::make_unique<ReceiptSigner>(m_setup.keys.signingSeed);
    m_audit = std::make_unique<AuditStore>(*m_database, clock, m_signer.get());
    if (!m_setup.instanceId.isEmpty())
        m_audit->setInstance(m_setup.instanceId, m_setup.instanceName);
    m_sealer = std::make_unique<TicketSealer>(m_setup.keys.ticketKey, m_setup.keys.kid);
    if (!m_sealer->isValid())
        return failure(QStringLiteral("the ticket key is unusable"));
    m_runner = new CommandRunner(this);
    m_gate = new Gate(*m_audit, clock, *m_sealer, *m_signer, m_setup.config.policy(),
                      gateTimes(m_setup.config), this);
    m_gate->setConnectionCheck(std::bind_front(&Callers::isStillActive, m_callers));
    m_grants = new Grants(*m_audit, clock, *m_signer, this);
    if (auto loaded = m_grants->load(); !loaded)
        return failure(QStringLiteral("the grants in the audit log cannot be read: %1").arg(loaded.error()));
    m_gate->setGrants(m_grants);
    m_gate->setConnectionIssued(std::bind_front(&Callers::issuedMs, m_callers));
    // A store other instances share: this one tells them it runs (a claim of a gone instance is
    // "outcome unknown", one of a live instance is awaited), and hears what they write. A SQLite
    // file has one console: neither is needed, and no write every 2 s wakes its disk.
    if (m_database->dialect() == Database::Dialect::Postgres) {
        if (auto seen = m_audit->seen(); !seen)
            return failure(seen.error());
        m_seen = new QTimer(this);
        m_seen->setInterval(int(AuditStore::kInstanceSeenEveryMs));
        connect(m_seen, &QTimer::timeout, this, [this] {
            if (auto seen = m_audit->seen(); !seen)
                qCWarning(lcServer) << "cannot tell the store this instance runs:" << seen.error();
        });
        m_seen->start();
        if (auto listening = m_database->onChange(m_gate, [gate = m_gate] { gate->storeChanged(); });
            !listening)
            qCWarning(lcServer) << listening.error() << "(held retries poll every 200 ms instead)";
    }
    connect(m_gate, &Gate::parked, this, &McpServer::parked);
    connect(m_gate, &Gate::retired, this, &McpServer::retired);
    connect(m_gate, &Gate::waiting, this, &McpServer::waiting);
    connect(m_gate, &Gate::clientAnswered, this, &McpServer::clientAnswered);
    connect(m_gate, &Gate::stepRecorded, this, &McpServer::stepRecorded);
    connect(m_gate, &Gate::idle, this, &McpServer::drained);
    connect(m_gate, &Gate::untrustedDecision, this, &McpServer::untrustedDecision);
    if (m_setup.config.otlp().isEnabled())
        startExport();

    m_hooks = new HookService(*m_gate, *m_audit, this);
    connect(m_hooks, &HookService::flagged, this, &McpServer::untrustedDecision);
    connect(m_hooks, &HookService::tripwireFired, this, &McpServer::tripwireFired);
    connect(m_hooks, &HookService::holdReleased, this, &McpServer::holdReleased);
    m_tools = std::make_unique<ToolRegistry>();
    // What the human accepted of each upstream's tools: a change that widens is held for them.
    m_trust = new UpstreamTrust(*m_audit, this);
    if (auto loaded = m_trust->load(); !loaded)
        return failure(
            QStringLiteral("cannot read the upstream tools accepted before: %1").arg(loaded.error()));
    connect(m_trust, &UpstreamTrust::wideningHeld, this, &McpServer::upstreamWideningHeld);
    connect(m_trust, &UpstreamTrust::wideningCleared, this, &McpServer::upstreamWideningCleared);
    m_upstreams = new Upstreams(*m_trust, this);
    // Upstream tool changes come in bursts (every upstream starting, an upstream flooding
    // list_changed): the tools are rebuilt at most every 250 ms, and the clients told only when
    // what tools/list answers actually changed.
    m_rebuild = new QTimer(this);
    m_rebuild->setSingleShot(true);
    m_rebuild->setInterval(250);
    connect(m_rebuild, &QTimer::timeout, this, [this] {
        if (!m_tools)
            return;
        buildTools();
        tellIfToolsChanged();
        reportUpstreams(); // the window's list of their tools
    });
    connect(m_upstreams, &Upstreams::toolsChanged, this, [this] {
        if (!m_rebuild->isActive())
            m_rebuild->start();
    });
    connect(m_trust, &UpstreamTrust::changed, this, [this] {
        if (!m_rebuild->isActive())
            m_rebuild->start();
    });
    connect(m_upstreams, &Upstreams::statusChanged, this, &McpServer::reportUpstreams);
    m_upstreams->configure(m_setup.config.upstreams());
    buildTools();
    m_toolsDigest = toolsDigest();
    m_dispatcher = std::make_unique<Dispatcher>(
        *m_tools,
        Dispatcher::ServerInfo{QStringLiteral("countersign"), QStringLiteral(COUNTERSIGN_VERSION),
                               QStringLiteral("Countersign gates destructive tools behind a human's "
                                              "approval in its desktop window. A gated tool answers "
                                              "input_required until the human decides; keep retrying "
                                              "with the requestState it returns.")});
    m_dispatcher->setContent(m_upstreams);
    m_dispatcher->setTasks(std::make_shared<ToolTasks>(std::bind_front(&Clock::nowMs, &clock)));
    m_hookDoor = std::make_unique<HookEndpoint>(*m_hooks);
    if (!m_setup.bridgeSocketPath.isEmpty()) {
        m_bridges = new LocalEndpoint(*m_dispatcher, m_callers->authenticator(), this);
        m_bridges->setHookHandler(std::bind_front(&HookEndpoint::serveLine, m_hookDoor.get()));
        if (auto listening = m_bridges->listen(m_setup.bridgeSocketPath); !listening)
            return failure(listening.error());
    }
    m_endpoint = std::make_unique<McpHttpEndpoint>(*m_dispatcher);
    m_endpoint->setConnectionCheck(std::bind_front(&Callers::isActive, m_callers));
    m_approvalPage = new ApprovalPage(this);
    connect(m_approvalPage, &ApprovalPage::revealRequested, this, &McpServer::revealRequested);
    // The doors, set once: a request goes from its connection to its door without coming back here.
    m_routes = std::make_unique<HttpRoutes>(*m_callers, &McpHttpEndpoint::serverRefusal);
    m_routes->addAgentDoor("/mcp", std::bind_front(&McpHttpEndpoint::serve, m_endpoint.get()));
    m_routes->addAgentDoor(HookEndpoint::kPath, std::bind_front(&HookEndpoint::serve, m_hookDoor.get()));
    m_routes->addPage(ApprovalPage::kPath, std::bind_front(&ApprovalPage::serve, m_approvalPage));
    m_http =
        new HttpServer(m_routes->router(), &McpHttpEndpoint::serverRefusal, HttpConnection::Timeouts{}, this);
    m_http->setVoucher(std::bind_front(&Callers::vouches, m_callers));
    auto port = m_http->listen(m_setup.config.listenHost(), m_setup.config.listenPort());
    if (port)
        m_gate->setApprovalsUrlBase(QStringLiteral("http://127.0.0.1:%1%2")
                                        .arg(port.value())
                                        .arg(QLatin1String(ApprovalPage::kPath)));
    return port;
}

void McpServer::startExport()
{
    const OtlpSpec &otlp = m_setup.config.otlp();
    OtlpExporter::Settings settings;
    settings.endpoint = QUrl(otlp.endpoint);
    settings.headers = otlp.headers;
    settings.resource = {{QStringLiteral("service.name"), otlp.serviceName},
                         {QStringLiteral("service.version"), QStringLiteral(COUNTERSIGN_VERSION)}};
    if (!m_setup.instanceId.isEmpty())
        settings.resource.append({QStringLiteral("service.instance.id"), m_setup.instanceId});
    settings.scopeVersion = QStringLiteral(COUNTERSIGN_VERSION);
    m_exporter = std::make_unique<OtlpExporter>(std::move(settings));
    m_spans = new CallSpans(
        *m_audit, *m_setup.clock,
        [exporter = m_exporter.get()](OtlpSpan span) { exporter->submit(std::move(span)); }, this);
    m_spans->follow(m_gate);
    qCInfo(lcServer).noquote() << "exporting a span per gated call to"
                               << QUrl(otlp.endpoint).toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
}

void McpServer::buildTools()
{
    m_tools->clear();
    m_tools->add(std::make_unique<StatusTool>(QStringLiteral(COUNTERSIGN_VERSION)));
    for (const ActionSpec &spec : m_setup.config.actions())
        m_tools->add(std::make_unique<GatedTool>(std::make_shared<CommandAction>(spec, *m_runner), *m_gate));
    auto workspace = std::make_shared<const Workspace>(m_setup.config.workspaceRoots());
    // One store of what changes overwrote, for the undo of the workspace tools and the agents' own.
    auto snapshots = m_setup.snapshotsPath.isEmpty()
                         ? nullptr
                         : std::make_shared<SnapshotStore>(
                               m_setup.snapshotsPath,
                               SnapshotStore::Limits{qint64(m_setup.config.undoMegabytes()) << 20,
                                                     qint64(m_setup.config.undoDays()) * 24 * 3600 * 1000,
                                                     qint64(m_setup.config.undoKeepHours()) * 3600 * 1000});
    if (snapshots)
        // A copy that goes is said when it goes, not when someone reaches for it.
        snapshots->setDropped([self = QPointer<McpServer>(this)](int copies, qint64 bytes) {
            if (self)
                Q_EMIT self->untrustedDecision(
                    QStringLiteral("The undo store dropped %1 kept cop%2 (%3 KiB), the oldest first, to stay "
                                   "under undoMegabytes and undoDays: the changes they kept can no longer be "
                                   "undone.")
                        .arg(copies)
                        .arg(copies == 1 ? QStringLiteral("y") : QStringLiteral("ies"))
                        .arg(bytes >> 10));
        });
    if (!workspace->isEmpty())
        WorkspaceTools::addTo(*m_tools, workspace, *m_runner, *m_gate, snapshots);
    if (m_upstreams)
        m_upstreams->addTo(*m_tools, *m_gate, *m_runner, workspace);
    if (!m_tripwire)
        m_tripwire = std::make_shared<Tripwire>();
    QStringList guarded = m_setup.protectedFiles;
    const QString home = QDir::homePath();
    for (const HookClientSpec &spec : kHookClients) {
        for (const std::string_view file : {spec.settingsFile, spec.secondFile}) {
            if (!file.empty())
                guarded << home + QLatin1Char('/') + QString::fromUtf8(file.data(), qsizetype(file.size()));
        }
    }
    m_tripwire->setProtected(ProtectedSet::standard(home, m_setup.config.workspaceRoots(), guarded));
    m_tripwire->setKeeper([snapshots](const QString &path) {
        if (!snapshots)
            return QString();
        auto kept = snapshots->keep(path);
        return kept && kept.value().existed ? kept.value().sha256 : QString();
    });
    // The net records the roots where they lead: a revert opens no link on its way.
    QStringList realRoots;
    for (const QString &root : m_setup.config.workspaceRoots()) {
        const QString real = QDir(root).canonicalPath();
        realRoots << (real.isEmpty() ? root : real);
    }
    if (!m_net)
        m_net = std::make_shared<WorkspaceNet>(realRoots, snapshots);
    else
        m_net->configure(realRoots, snapshots);
    if (m_hooks)
        m_hooks->configure(HookService::Settings{
            workspace,
            {QStringLiteral("countersign"), QStringLiteral("cs")},
            m_setup.config.hookHoldSeconds() * 1000LL,
            m_setup.config.mode(),
            snapshots,
            [tools = m_tools.get()](const QString &name) { return tools->find(name) != nullptr; },
            m_tripwire,
            snapshots ? m_net : nullptr});
    if (m_setup.extraTools)
        m_setup.extraTools(*m_tools, [self = QPointer<McpServer>(this)] {
            if (self && !self->m_rebuild->isActive())
                self->m_rebuild->start();
        });
}

// Clients hear of a change to what tools/list answers, on every transport; a rebuild that changed
// nothing is not a change.
void McpServer::tellIfToolsChanged()
{
    const std::size_t digest = toolsDigest();
    if (digest == m_toolsDigest)
        return;
    m_toolsDigest = digest;
    if (m_bridges)
        m_bridges->notifyToolsChanged();
    if (m_endpoint)
        m_endpoint->notifyToolsChanged();
}

std::size_t McpServer::toolsDigest() const
{
    std::string all;
    for (const Tool *tool : m_tools->tools())
        all += JsonRpc::encode(tool->descriptor()).toStdString();
    return std::hash<std::string>{}(all);
}

void McpServer::reportUpstreams()
{
    if (m_upstreams)
        Q_EMIT upstreamsChanged(QString::fromStdString(m_upstreams->status(m_setup.config.policy()).dump()));
}

void McpServer::reconfigure(const Config &config)
{
    const QString host = m_setup.config.listenHost();
    const quint16 port = m_setup.config.listenPort();
    if (config.otlp() != m_setup.config.otlp())
        qCWarning(lcServer) << "the otlp setting changed: it applies at the next start";
    m_setup.config = config;
    m_setup.config.overrideListen(host, port);
    if (!m_tools)
        return; // not started yet: start() uses it
    if (m_upstreams)
        m_upstreams->configure(m_setup.config.upstreams());
    buildTools();
    tellIfToolsChanged();
    reportUpstreams(); // the rules behind each upstream tool's decision may have changed
    m_gate->reconfigure(m_setup.config.policy(), gateTimes(m_setup.config));
}

void McpServer::wake(const QString &nonce)
{
    if (m_gate)
        m_gate->wake(nonce);
    if (m_spans)
        m_spans->check(nonce);
}

int McpServer::drain()
{
    if (m_http)
        m_http->stopListening();
    if (m_bridges)
        m_bridges->stopListening();
    if (!m_gate) {
        Q_EMIT drained();
        return 0;
    }
    const int running = m_gate->runningCount();
    m_gate->drain();
    return running;
}

void McpServer::reportHeldUpstreams()
{
    if (!m_trust)
        return;
    for (const QString &upstream : m_trust->heldUpstreams())
        Q_EMIT upstreamWideningHeld(upstream, m_trust->held(upstream), m_trust->heldDigest(upstream));
}

void McpServer::acceptUpstream(const QString &upstream, const QString &digest)
{
    if (m_trust)
        m_trust->accept(upstream, digest);
}

void McpServer::keepUpstream(const QString &upstream, const QString &digest)
{
    if (m_trust)
        m_trust->keep(upstream, digest);
}

void McpServer::releaseHold(const QString &connection, const QString &by)
{
    if (!m_hooks)
        return;
    if (auto released = m_hooks->release(connection, by); !released)
        qCInfo(lcServer) << "no hold released:" << released.error();
}

void McpServer::reloadGrants()
{
    if (!m_grants)
        return;
    if (auto loaded = m_grants->load(); !loaded)
        qCWarning(lcServer) << "the grants could not be read again:" << loaded.error();
}

void McpServer::stop()
{
    // First: ending the upstreams answers what still waits on them ("outcome unknown" for a call
    // in flight), and those answers go through the dispatcher, the gate and the open connections.
    delete m_upstreams;
    m_upstreams = nullptr;
    delete m_trust;
    m_trust = nullptr;
    if (m_endpoint)
        m_endpoint->endStreams(); // written before the connections close, and flushed with them
    delete m_http;                // closes connections; held requests are dropped with them
    m_http = nullptr;
    m_routes.reset();
    delete m_bridges;
    m_bridges = nullptr;
    m_endpoint.reset();
    m_hookDoor.reset();
    delete m_approvalPage;
    m_approvalPage = nullptr;
    m_dispatcher.reset();
    m_tools.reset();
    delete m_runner; // kills running commands without reporting: an unfinished claim stays unfinished
    m_runner = nullptr;
    delete m_gate;
    m_gate = nullptr;
    delete m_grants;
    m_grants = nullptr;
    // The calls still open are exported as they stand, then what waits is posted (bounded).
    delete m_spans;
    m_spans = nullptr;
    m_exporter.reset();
    m_signer.reset();
    m_sealer.reset();
    m_audit.reset();
    delete m_callers; // the gate asked it whether a caller is still active
    m_callers = nullptr;
    m_tokens.reset();
    m_database.reset();
}

} // namespace Countersign
