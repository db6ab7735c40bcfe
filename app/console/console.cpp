#include "console.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "auditview.h"
#include "cardsightings.h"
#include "clientinstaller.h"
#include "commandline.h"
#include "config.h"
#include "configguard.h"
#include "configwatcher.h"
#include "connectionspage.h"
#include "consoleinstance.h"
#include "consolereports.h"
#include "database.h"
#include "declinesview.h"
#include "fileundo.h"
#include "grants.h"
#include "hookscommand.h"
#include "keyloader.h"
#include "mainwindow.h"
#include "mcpserver.h"
#include "phoneapprovals.h"
#include "phonepanel.h"
#include "serverthread.h"
#include "settingspage.h"
#include "settingstext.h"
#include "snapshotstore.h"
#include "storefollow.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QEvent>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QSet>
#include <QTemporaryFile>
#include <QThread>
#include <QTimer>
#include <QUrl>
#include <QWindow>

#include <cstdio>
#include <optional>

namespace Countersign {

namespace {

// Every decision is recorded in the data folder before anything runs, so a folder that cannot take
// a write (read-only, full) is refused at start-up with the reason, rather than call by call.
Status checkWritable(const QString &dataDir)
{
    QTemporaryFile probe(QDir(dataDir).filePath(QStringLiteral(".write-probe-XXXXXX")));
    const QByteArray block(64 * 1024, '\0');
    if (!probe.open() || probe.write(block) != block.size() || !probe.flush())
        return failure(
            QStringLiteral("the data folder %1 is not writable (%2); Countersign records every decision "
                           "there before anything runs, and will not start without it")
                .arg(dataDir, probe.errorString()));
    return success();
}

// The configuration file, with the address --listen names in place of the file's.
Result<Config> loadConfigWithListen(const CommandLine &cl)
{
    auto config = Config::load(cl.configPath);
    if (!config)
        return failure(config.error());
    if (cl.listen) {
        auto listen = Config::parseListen(*cl.listen);
        if (!listen)
            return failure(listen.error());
        config.value().overrideListen(listen.value().first, listen.value().second);
    }
    return config;
}

// The data folder, made if missing and kept to its owner, and refused if it cannot take a write.
Status prepareDataFolder(const QString &dataDir)
{
    if (!QDir().mkpath(dataDir))
        return failure(QStringLiteral("cannot create the data folder %1").arg(dataDir));
    QFile::setPermissions(dataDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (auto writable = checkWritable(dataDir); !writable)
        return failure(writable.error());
    return success();
}

// Says once on stderr that the window is on screen (exposed): the start-up benchmark
// (tests/bench/startup.mjs) times the process up to this line.
class ShownAnnouncer final : public QObject
{
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *window = qobject_cast<QWindow *>(watched);
        if (event->type() == QEvent::Expose && window && window->isExposed()) {
            std::fprintf(stderr, "countersign: window shown\n");
            std::fflush(stderr);
            window->removeEventFilter(this);
        }
        return false;
    }
};

// Runs the last process claimed and never saw end: the human hears of each once.
QString interruptedWarning(const QList<AuditStore::Interrupted> &runs)
{
    QStringList items;
    for (const AuditStore::Interrupted &run : runs)
        items << QStringLiteral("%1%2, claimed at %3 UTC")
                     .arg(run.tool, run.target.isEmpty() ? QString() : QStringLiteral(" on ") + run.target,
                          QDateTime::fromMSecsSinceEpoch(run.claimedMs, Qt::UTC)
                              .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    const QString what =
        runs.size() == 1
            ? QStringLiteral("A tool run was interrupted when Countersign stopped, so its outcome is "
                             "unknown (it is never run again); check its target before asking again")
            : QStringLiteral("%1 tool runs were interrupted when Countersign stopped, so their outcome "
                             "is unknown (they are never run again); check their targets before "
                             "asking again")
                  .arg(runs.size());
    return what + QStringLiteral(": ") + items.join(QStringLiteral("; "));
}

// Server → queue: cards parked and retired; queue → server: decisions that wake held retries.
void connectQueue(McpServer *server, ApprovalQueue *queue)
{
    QObject::connect(server, &McpServer::parked, queue, &ApprovalQueue::park);
    QObject::connect(server, &McpServer::retired, queue, &ApprovalQueue::retire);
    QObject::connect(server, &McpServer::waiting, queue, &ApprovalQueue::setWaiting);
    QObject::connect(server, &McpServer::clientAnswered, queue, &ApprovalQueue::noteClientAnswer);
    QObject::connect(server, &McpServer::revealRequested, queue, &ApprovalQueue::reveal);
    // Shown where the queue's store errors show: stderr and the top of the window.
    QObject::connect(server, &McpServer::untrustedDecision, queue, &ApprovalQueue::storeError);
    QObject::connect(queue, &ApprovalQueue::decided, server, &McpServer::wake);
}

// Hands the configuration the guard lets through to the server, in the server's thread.
void followConfig(ConfigGuard *guard, McpServer *server)
{
    QObject::connect(guard, &ConfigGuard::applied, server, &McpServer::reconfigure);
}

} // namespace

// A thread that is waited for before it is deleted.
struct JoinedThread
{
    void operator()(QThread *thread) const
    {
        thread->wait();
        delete thread;
    }
};

// The log is checked at every start (links, signatures, tables against the chain) in a thread of
// its own, over its own read-only connection: a log of 100,000 operations takes seconds, and the
// window must not wait for it. Tampering by another process shows on stderr and at the top of the
// window (when there is one; context outlives the thread's report).
QThread *verifyLogInBackground(const QString &databasePath, const QByteArray &publicKey, MainWindow *window,
                               QObject *context)
{
    QPointer<MainWindow> shown(window);
    QThread *thread = QThread::create([databasePath, publicKey, shown, context] {
        QString problem;
        {
            auto db = Database::open(databasePath, Database::Access::ReadOnly);
            SystemClock clock;
            if (!db) {
                problem = QStringLiteral("the audit log cannot be verified: %1").arg(db.error());
            } else {
                AuditStore reader(*db.value(), clock, nullptr);
                auto chain = reader.verifyChain(publicKey);
                if (!chain)
                    problem = QStringLiteral("the audit log cannot be verified: %1").arg(chain.error());
                else if (!chain.value().problem.isEmpty())
                    problem = QStringLiteral("the audit log was altered outside Countersign: %1 (see "
                                             "countersign audit verify)")
                                  .arg(chain.value().problem);
            }
        }
        if (problem.isEmpty())
            return;
        QMetaObject::invokeMethod(
            context,
            [problem, shown] {
                std::fprintf(stderr, "countersign: warning: %s\n", qPrintable(oneLine(problem)));
                std::fflush(stderr);
                if (shown)
                    shown->addWarning(oneLine(problem));
            },
            Qt::QueuedConnection);
    });
    thread->start();
    return thread;
}

// Declared in the order they are built; destroyed in reverse (the window first, the database last).
struct Console::Parts
{
    ServerKeys keys;
    QString url;
    std::unique_ptr<ConfigWatcher> watcher;
    std::unique_ptr<Database> db;
    SystemClock clock;
    std::unique_ptr<ReceiptSigner> signer; // checkpoints the audit chain at each decision
    std::unique_ptr<AuditStore> store;
    std::unique_ptr<ApprovalQueue> queue;
    std::unique_ptr<Grants> grants;           // "from now on", made in the window (the gate reads its own)
    std::unique_ptr<CardSightings> sightings; // whether the cards were seen, in the window or on a phone
    std::unique_ptr<ConfigGuard> guard;
    std::unique_ptr<PhoneApprovals> phone; // the phone's listener, beside the window
    std::unique_ptr<TokenStore> tokens;
    std::unique_ptr<ClientInstaller> clientInstaller; // Connections' Set up and Remove of the agents
    std::unique_ptr<SnapshotStore> snapshots;         // the audit view's Revert reads what was kept
    std::unique_ptr<FileUndo> undo;
    std::unique_ptr<ServerThread> server;
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<QThread, JoinedThread> verifier; // the start's log check; waited for first
};

Console::Console() : m_parts(std::make_unique<Parts>()) {}
Console::~Console() = default;

void Console::showWindow()
{
    if (MainWindow *w = m_parts->window.get()) {
        w->showNormal();
        w->raise();
        w->activateWindow();
    }
}

QString Console::url() const
{
    return m_parts->url;
}

ApprovalQueue &Console::queue()
{
    return *m_parts->queue;
}

MainWindow *Console::window() const
{
    return m_parts->window.get();
}

void Console::finishRunningTools()
{
    Parts &p = *m_parts;
    McpServer *server = p.server ? p.server->server() : nullptr;
    if (!server)
        return;
    QEventLoop loop;
    QObject::connect(server, &McpServer::drained, &loop, &QEventLoop::quit);
    int running = 0;
    QMetaObject::invokeMethod(
        server, [&running, server] { running = server->drain(); }, Qt::BlockingQueuedConnection);
    if (running == 0)
        return;
    std::fprintf(
        stderr,
        "countersign: quitting once the %d tool run(s) in progress end and are recorded; quit again to "
        "stop them now\n",
        running);
    std::fflush(stderr);
    if (p.window)
        p.window->setWindowTitle(QCoreApplication::translate(
            "main", "Countersign (quitting: %n tool run(s) to finish)", nullptr, running));
    loop.exec();
}

Result<std::unique_ptr<Console>> Console::start(const CommandLine &cl, const Hooks &hooks)
{
    std::unique_ptr<Console> console(new Console);
    Parts &p = *console->m_parts;
    auto config = loadConfigWithListen(cl);
    if (!config)
        return failure(config.error());
    if (auto prepared = prepareDataFolder(cl.dataDir); !prepared)
        return failure(prepared.error());
    if (auto loaded = console->loadKeys(config.value(), cl.dataDir); !loaded)
        return failure(loaded.error());

    p.watcher = std::make_unique<ConfigWatcher>(cl.configPath, config.value());
    QObject::connect(p.watcher.get(), &ConfigWatcher::rejected, p.watcher.get(), [](const QString &reason) {
        std::fprintf(stderr, "countersign: configuration refused: %s\n", qPrintable(reason));
    });

    // The console side: its own database connection and the approval queue.
    const QString databasePath = config.value().storeLocation(cl.dataDir);
    if (auto opened = console->openQueue(config.value(), databasePath); !opened)
        return failure(opened.error());
    auto instanceId = console->claimInstance(cl.dataDir);
    if (!instanceId)
        return failure(instanceId.error());
    auto interruptedText = console->warnOfInterruptedRuns();
    if (!interruptedText)
        return failure(interruptedText.error());
    QObject::connect(p.queue.get(), &ApprovalQueue::storeError, p.queue.get(), [](const QString &error) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(error));
    });
    if (p.db->dialect() == Database::Dialect::Postgres)
        followSharedStore(*p.db, p.queue.get());
    else
        followSqliteFile(*p.db, p.queue.get());
    const QString stillRefused = console->startGuard(config.value(), cl);

    if (auto served = console->startServer(config.value(), cl, hooks, databasePath, instanceId.value());
        !served)
        return failure(served.error());
    // Approve from my phone: on when the configuration names its address, following it after.
    p.phone = std::make_unique<PhoneApprovals>(*p.queue, *p.store, p.clock, cl.dataDir);
    p.phone->setSightings(p.sightings.get());
    p.phone->setGrants(p.grants.get());
    (void)p.phone->apply(p.guard->inForce());
    QObject::connect(p.guard.get(), &ConfigGuard::applied, p.phone.get(),
                     [phone = p.phone.get()](const Config &c) { (void)phone->apply(c); });

    if (cl.mode == CommandLine::Mode::Window) {
        console->openWindow(config.value(), cl, interruptedText.value(), stillRefused);
        console->wireWindow(cl);
    }
    p.verifier.reset(
        verifyLogInBackground(databasePath, p.signer->publicKey(), p.window.get(), p.queue.get()));
    return console;
}

Status Console::loadKeys(const Config &config, const QString &dataDir)
{
    Parts &p = *m_parts;
    auto keys = loadServerKeys(config, dataDir);
    if (!keys)
        return failure(QStringLiteral("cannot load the server keys: %1").arg(keys.error()));
    p.keys = keys.value();
    if (!p.keys.warning.isEmpty())
        std::fprintf(stderr, "countersign: warning: %s%s\n", qPrintable(p.keys.warning),
                     p.keys.warningDetail.isEmpty()
                         ? ""
                         : qPrintable(QStringLiteral(" (%1)").arg(p.keys.warningDetail)));
    return success();
}

Status Console::openQueue(const Config &config, const QString &databasePath)
{
    Parts &p = *m_parts;
    auto db = Database::open(databasePath);
    if (!db)
        return failure(db.error());
    p.db = std::move(db).value();
    p.signer = std::make_unique<ReceiptSigner>(p.keys.signingSeed);
    p.store = std::make_unique<AuditStore>(*p.db, p.clock, p.signer.get());
    p.queue = std::make_unique<ApprovalQueue>(*p.store, p.clock);
    if (!config.person().isEmpty())
        p.queue->setPerson(config.person());
    if (auto restored = p.queue->restore(); !restored)
        return failure(restored.error());
    p.grants = std::make_unique<Grants>(*p.store, p.clock, *p.signer);
    p.sightings = std::make_unique<CardSightings>(*p.queue, *p.store, p.clock);
    p.sightings->configure(config);
    if (auto loaded = p.grants->load(); !loaded)
        return failure(QStringLiteral("the grants in the audit log cannot be read: %1").arg(loaded.error()));
    return success();
}

Result<QString> Console::claimInstance(const QString &dataDir)
{
    Parts &p = *m_parts;
    // This process among the instances sharing the store. The one before it on this data folder
    // is gone for certain (one console per folder): its unfinished claims are reported below, not
    // awaited as runs still going.
    const QString instanceFile = QDir(dataDir).filePath(QStringLiteral("instance"));
    if (QFile previous(instanceFile); previous.open(QIODevice::ReadOnly)) {
        if (auto forgot = p.store->forget(QString::fromLatin1(previous.readAll().trimmed())); !forgot)
            return failure(forgot.error());
    }
    const QString instanceId = QString::number(QRandomGenerator::system()->generate64(), 16) +
                               QString::number(QRandomGenerator::system()->generate64(), 16);
    if (QSaveFile current(instanceFile);
        !current.open(QIODevice::WriteOnly) || current.write(instanceId.toLatin1()) < 0 || !current.commit())
        return failure(QStringLiteral("cannot write %1").arg(instanceFile));
    return instanceId;
}

Result<QString> Console::warnOfInterruptedRuns()
{
    Parts &p = *m_parts;
    // Before this process's server runs anything, so every unfinished claim of this folder is a
    // past one (another live instance's are not).
    auto interrupted = p.store->reportInterrupted();
    if (!interrupted)
        return failure(interrupted.error());
    const QString interruptedText =
        interrupted.value().isEmpty() ? QString() : interruptedWarning(interrupted.value());
    if (!interruptedText.isEmpty())
        std::fprintf(stderr, "countersign: warning: %s\n", qPrintable(interruptedText));
    return interruptedText;
}

QString Console::startGuard(const Config &config, const CommandLine &cl)
{
    Parts &p = *m_parts;
    // A reloaded configuration passes the guard: what widens the policy waits for the human.
    p.guard = std::make_unique<ConfigGuard>(config, *p.store,
                                            cl.mode == CommandLine::Mode::Window
                                                ? ConfigGuard::Widening::AskInWindow
                                                : ConfigGuard::Widening::HeldForWindow);
    QObject::connect(p.watcher.get(), &ConfigWatcher::reloaded, p.guard.get(), &ConfigGuard::offer);
    reportConfigChanges(p.guard.get());
    QString stillRefused; // for the window, made in openWindow()
    const QMetaObject::Connection atStart =
        QObject::connect(p.guard.get(), &ConfigGuard::refusedStillInFile, p.guard.get(),
                         [&stillRefused](const PolicyChange &change, const QString &sourcePath) {
                             stillRefused = stillRefusedText(change, sourcePath);
                         });
    // Before the server starts: what it runs first is the configuration accepted last.
    p.guard->setBaselineFile(QDir(cl.dataDir).filePath(QStringLiteral("policy-accepted.json")));
    p.guard->recordStart();
    QObject::disconnect(atStart);
    return stillRefused;
}

Status Console::startServer(const Config &config, const CommandLine &cl, const Hooks &hooks,
                            const QString &databasePath, const QString &instanceId)
{
    Parts &p = *m_parts;
    // Bridges (`countersign --stdio`) reach this console's server over a local socket.
    // Where to listen is the file's (or --listen's), not policy: it is not held with a widening.
    Config serving = p.guard->inForce();
    serving.overrideListen(config.listenHost(), config.listenPort());
    const McpServer::Setup setup{serving,
                                 databasePath,
                                 p.keys,
                                 &p.clock,
                                 hooks.extraTools,
                                 ConsoleInstance::bridgePath(cl.dataDir),
                                 instanceId,
                                 config.instanceName(),
                                 SnapshotStore::folderIn(cl.dataDir),
                                 {cl.configPath, QDir(cl.dataDir).filePath(QStringLiteral("keys")),
                                  QDir(cl.dataDir).filePath(QStringLiteral("receipt-public-key"))}};
    p.server = std::make_unique<ServerThread>(setup);
    auto port = p.server->start([&p, &hooks](McpServer *s) {
        connectQueue(s, p.queue.get());
        followConfig(p.guard.get(), s);
        reportUpstreamChanges(s, p.guard.get());
        if (hooks.wireServer)
            hooks.wireServer(s);
    });
    if (!port)
        return failure(port.error());
    p.url = QStringLiteral("http://127.0.0.1:%1/mcp").arg(port.value());
    std::fprintf(stderr, "countersign: listening on %s\n", qPrintable(p.url));
    std::fflush(stderr);
    return success();
}

void Console::openWindow(const Config &config, const CommandLine &cl, const QString &interruptedText,
                         const QString &stillRefused)
{
    Parts &p = *m_parts;
    p.tokens = std::make_unique<TokenStore>(*p.db, p.clock);
    p.window = std::make_unique<MainWindow>(
        MainWindow::Services{*p.queue, p.clock, *p.store, *p.tokens, p.db->connectionName()});
    p.window->setListenUrl(p.url, QStringList{QCoreApplication::applicationFilePath()} + cl.stdioArguments);
    p.clientInstaller =
        std::make_unique<ClientInstaller>(*p.tokens, hookPlace(cl.dataDir, p.url.left(p.url.size() - 4)));
    p.window->setClientInstaller(p.clientInstaller.get());
    p.snapshots = std::make_unique<SnapshotStore>(
        SnapshotStore::folderIn(cl.dataDir),
        SnapshotStore::Limits{qint64(p.guard->inForce().undoMegabytes()) << 20,
                              qint64(p.guard->inForce().undoDays()) * 24 * 3600 * 1000,
                              qint64(p.guard->inForce().undoKeepHours()) * 3600 * 1000});
    p.undo = std::make_unique<FileUndo>(*p.store, *p.snapshots);
    p.window->setUndo(p.undo.get(), config.person().isEmpty() ? QStringLiteral("console")
                                                              : QStringLiteral("console:") + config.person());
    p.window->setGrants(p.grants.get(), p.queue->reviewer());
    p.window->setSightings(p.sightings.get());
    p.window->setConfig(p.guard->inForce(), cl.configPath,
                        settingsText(p.guard->inForce(), cl, p.keys, p.url));
    if (!p.keys.warning.isEmpty())
        p.window->addWarning(p.keys.warning);
    if (!interruptedText.isEmpty())
        p.window->addWarning(interruptedText);
    if (!stillRefused.isEmpty())
        p.window->addWarning(oneLine(stillRefused));
}

void Console::wireWindow(const CommandLine &cl)
{
    Parts &p = *m_parts;
    MainWindow *w = p.window.get();
    QObject::connect(p.watcher.get(), &ConfigWatcher::rejected, w, &MainWindow::setConfigProblem);
    QObject::connect(p.watcher.get(), &ConfigWatcher::reloaded, w, &MainWindow::clearConfigProblem);
    w->setPaths(QFileInfo(cl.configPath).absoluteFilePath(), QDir(cl.dataDir).absolutePath());
    QObject::connect(p.guard.get(), &ConfigGuard::applied, w,
                     [w, cl, keys = p.keys, url = p.url](const Config &c) {
                         w->setConfig(c, cl.configPath, settingsText(c, cl, keys, url));
                     });
    // A widening accepted or kept out: the fields show what is in force, not what was typed.
    QObject::connect(p.guard.get(), &ConfigGuard::pendingChanged, w,
                     [w, cl, keys = p.keys, url = p.url, guard = p.guard.get()] {
                         if (!guard->hasPending())
                             w->setConfig(guard->inForce(), cl.configPath,
                                          settingsText(guard->inForce(), cl, keys, url));
                     });
    w->followConfigChanges(*p.guard);
    PhonePanel *phonePanel = w->settingsPage()->phonePanel();
    phonePanel->setPhone(&p.phone->pairing(), &p.phone->devices(),
                         [phone = p.phone.get()](const QString &id) { return phone->revoke(id); });
    phonePanel->setListening(p.phone->url(), p.phone->fingerprint(), p.phone->problem(), p.phone->renewal());
    QObject::connect(p.phone.get(), &PhoneApprovals::changed, phonePanel,
                     [phonePanel, phone = p.phone.get()](const QString &url, const QString &problem) {
                         phonePanel->setListening(url, phone->fingerprint(), problem, phone->renewal());
                     });
    QObject::connect(p.server->server(), &McpServer::upstreamsChanged, w, &MainWindow::setUpstreams);
    QObject::connect(p.server->server(), &McpServer::requestFrom, w->connectionsPage(),
                     &ConnectionsPage::setLastRequest);
    QMetaObject::invokeMethod(p.server->server(), &McpServer::reportUpstreams, Qt::QueuedConnection);
    QObject::connect(p.server->server(), &McpServer::upstreamWideningHeld, w,
                     &MainWindow::showUpstreamWidening);
    QObject::connect(p.server->server(), &McpServer::upstreamWideningCleared, w,
                     &MainWindow::clearUpstreamWidening);
    QObject::connect(w, &MainWindow::upstreamAccepted, p.server->server(), &McpServer::acceptUpstream);
    QObject::connect(w, &MainWindow::upstreamKept, p.server->server(), &McpServer::keepUpstream);
    QObject::connect(p.server->server(), &McpServer::tripwireFired, w, &MainWindow::showTripwireAlarm);
    QObject::connect(p.server->server(), &McpServer::holdReleased, w, &MainWindow::clearTripwireAlarm);
    QObject::connect(w, &MainWindow::holdReleaseRequested, p.server->server(), &McpServer::releaseHold);
    // A grant made or revoked in the window decides the next call at once.
    QObject::connect(p.grants.get(), &Grants::changed, p.server->server(), &McpServer::reloadGrants);
    QMetaObject::invokeMethod(p.server->server(), &McpServer::reportHeldUpstreams, Qt::QueuedConnection);
    // Calls a rule settles reach the audit log without a card: the view reads them too.
    QObject::connect(p.server->server(), &McpServer::stepRecorded, w->auditView(), &AuditView::refreshSoon);
    QObject::connect(p.server->server(), &McpServer::stepRecorded, w->declinesView(),
                     &DeclinesView::refreshSoon);
    // What the Declines view and the Settings page write is read at once, and judged by the guard
    // as any edit of the file.
    QObject::connect(w->declinesView(), &DeclinesView::ruleWritten, p.watcher.get(),
                     &ConfigWatcher::checkNow);
    QObject::connect(w->settingsPage(), &SettingsPage::fileWritten, p.watcher.get(),
                     &ConfigWatcher::checkNow);
    w->showTab(cl.show);
    (void)w->winId(); // creates the native window now, so the announcer sees its first expose
    w->windowHandle()->installEventFilter(new ShownAnnouncer(w));
    w->show();
}

} // namespace Countersign
