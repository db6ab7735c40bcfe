// The composition root: reads the command line, builds the services, starts the server thread
// and shows the window.
#include "approvalqueue.h"
#include "auditcommand.h"
#include "auditstore.h"
#include "commandline.h"
#include "config.h"
#include "configwatcher.h"
#include "database.h"
#include "keyloader.h"
#include "mainwindow.h"
#include "mcpserver.h"
#include "serverthread.h"
#include "stdiotransport.h"
#include "systemclock.h"
#include "tokencommand.h"
#include "tokenstore.h"
#include "unixsignals.h"

#include <QApplication>
#include <QDir>
#include <QFile>

#include <cstdio>
#include <memory>

using namespace Countersign;

namespace {

int fail(const QString &message)
{
    std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
    return 1;
}

// Server → queue: cards parked and retired; queue → server: decisions that wake held retries.
void connectQueue(McpServer *server, ApprovalQueue *queue)
{
    QObject::connect(server, &McpServer::parked, queue, &ApprovalQueue::park);
    QObject::connect(server, &McpServer::retired, queue, &ApprovalQueue::retire);
    QObject::connect(server, &McpServer::revealRequested, queue, &ApprovalQueue::reveal);
    QObject::connect(queue, &ApprovalQueue::decided, server, &McpServer::wake);
}

// The Settings page: the effective configuration and policy, read-only.
QString settingsText(const Config &config, const CommandLine &cl, const ServerKeys &keys)
{
    nlohmann::json actions = nlohmann::json::array();
    for (const ActionSpec &a : config.actions())
        actions.push_back({{"name", a.name.toStdString()},
                           {"risk", riskName(a.risk).toStdString()},
                           {"plan", a.plan.join(QLatin1Char(' ')).toStdString()},
                           {"apply", a.apply.join(QLatin1Char(' ')).toStdString()}});
    const nlohmann::json effective = {{"configFile", cl.configPath.toStdString()},
                                      {"dataFolder", cl.dataDir.toStdString()},
                                      {"listen", QStringLiteral("%1:%2").arg(config.listenHost()).arg(config.listenPort()).toStdString()},
                                      {"ttlSeconds", config.ttlSeconds()},
                                      {"pollWindowSeconds", config.pollWindowSeconds()},
                                      {"keys", keys.storedIn.toStdString()},
                                      {"actions", actions},
                                      {"policy", config.policy().toJson()}};
    return QCoreApplication::translate("main", "The effective configuration (edit the configuration file to change it; "
                                               "it is reloaded when saved):\n\n") +
           QString::fromStdString(effective.dump(2));
}

} // namespace

int main(int argc, char **argv)
{
    std::unique_ptr<QCoreApplication> app = CommandLine::needsWidgets(argc, argv)
                                                ? std::make_unique<QApplication>(argc, argv)
                                                : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
    const CommandLine cl = CommandLine::parse(*app);

    if (cl.mode == CommandLine::Mode::Command) {
        const QString noun = cl.command.first();
        if (noun == QLatin1String("token"))
            return runTokenCommand(cl.dataDir, cl.command);
        if (noun == QLatin1String("audit"))
            return runAuditCommand(cl);
        return runReceiptCommand(cl);
    }

    quitOnTerminationSignals(app.get());
    auto config = Config::load(cl.configPath);
    if (!config)
        return fail(config.error());
    if (cl.listen) {
        auto listen = Config::parseListen(*cl.listen);
        if (!listen)
            return fail(listen.error());
        config.value().overrideListen(listen.value().first, listen.value().second);
    }

    if (!QDir().mkpath(cl.dataDir))
        return fail(QStringLiteral("cannot create the data folder %1").arg(cl.dataDir));
    QFile::setPermissions(cl.dataDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    auto keys = loadServerKeys(config.value(), cl.dataDir);
    if (!keys)
        return fail(QStringLiteral("cannot load the server keys: %1").arg(keys.error()));
    if (!keys.value().warning.isEmpty())
        std::fprintf(stderr, "countersign: warning: %s\n", qPrintable(keys.value().warning));

    ConfigWatcher watcher(cl.configPath, config.value());
    QObject::connect(&watcher, &ConfigWatcher::rejected, &watcher, [](const QString &reason) {
        std::fprintf(stderr, "countersign: configuration refused: %s\n", qPrintable(reason));
    });
    // Hands a reloaded configuration to the server in its own thread.
    const auto followConfig = [&watcher](McpServer *server) {
        QObject::connect(&watcher, &ConfigWatcher::reloaded, server, [server](const Config &reloaded) {
            server->reconfigure(reloaded);
            std::fprintf(stderr, "countersign: configuration reloaded from %s\n", qPrintable(reloaded.sourcePath()));
        });
    };

    // The console side: its own database connection, the approval queue.
    const QString databasePath = QDir(cl.dataDir).filePath(QStringLiteral("countersign.db"));
    auto consoleDb = Database::open(databasePath);
    if (!consoleDb)
        return fail(consoleDb.error());
    SystemClock clock;
    AuditStore consoleStore(*consoleDb.value(), clock);
    ApprovalQueue queue(consoleStore, clock);
    if (auto restored = queue.restore(); !restored)
        return fail(restored.error());
    QObject::connect(&queue, &ApprovalQueue::storeError, &queue,
                     [](const QString &error) { std::fprintf(stderr, "countersign: %s\n", qPrintable(error)); });

    if (cl.mode == CommandLine::Mode::Stdio) {
        McpServer server(config.value(), databasePath, keys.value());
        connectQueue(&server, &queue);
        followConfig(&server);
        if (auto started = server.start(false); !started)
            return fail(started.error());
        StdioTransport transport(server.dispatcher(), Principal{0, QStringLiteral("stdio")});
        QObject::connect(&transport, &StdioTransport::finished, app.get(), &QCoreApplication::quit);
        transport.start();
        return app->exec();
    }

    ServerThread server(config.value(), databasePath, keys.value());
    auto port = server.start([&](McpServer *s) {
        connectQueue(s, &queue);
        followConfig(s);
    });
    if (!port)
        return fail(port.error());
    const QString url = QStringLiteral("http://127.0.0.1:%1/mcp").arg(port.value());
    std::fprintf(stderr, "countersign: listening on %s\n", qPrintable(url));
    std::fflush(stderr);

    std::unique_ptr<TokenStore> consoleTokens;
    std::unique_ptr<MainWindow> window;
    if (cl.mode == CommandLine::Mode::Window) {
        consoleTokens = std::make_unique<TokenStore>(*consoleDb.value(), clock);
        window = std::make_unique<MainWindow>(
            MainWindow::Services{queue, clock, consoleStore, *consoleTokens, consoleDb.value()->connectionName()});
        window->setListenUrl(url);
        window->setSettingsText(settingsText(watcher.current(), cl, keys.value()));
        if (!keys.value().warning.isEmpty())
            window->addWarning(keys.value().warning);
        QObject::connect(&watcher, &ConfigWatcher::rejected, window.get(), &MainWindow::addWarning);
        QObject::connect(&watcher, &ConfigWatcher::reloaded, window.get(), [&, w = window.get()](const Config &c) {
            w->setSettingsText(settingsText(c, cl, keys.value()));
        });
        window->showTab(cl.show);
        window->show();
    }
    const int code = app->exec();
    window.reset();
    server.stop();
    return code;
}
