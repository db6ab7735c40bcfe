// The composition root: reads the command line, builds the services, starts the server thread
// and shows the window.
#include "commandline.h"
#include "config.h"
#include "dispatcher.h"
#include "mainwindow.h"
#include "mcpserver.h"
#include "serverthread.h"
#include "stdiotransport.h"
#include "tokencommand.h"
#include "toolregistry.h"

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

} // namespace

int main(int argc, char **argv)
{
    std::unique_ptr<QCoreApplication> app = CommandLine::needsWidgets(argc, argv)
                                                ? std::make_unique<QApplication>(argc, argv)
                                                : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
    const CommandLine cl = CommandLine::parse(*app);

    if (cl.mode == CommandLine::Mode::Token)
        return runTokenCommand(cl.dataDir, cl.command);

    auto config = Config::load(cl.configPath);
    if (!config)
        return fail(config.error());
    if (cl.listen) {
        auto listen = Config::parseListen(*cl.listen);
        if (!listen)
            return fail(listen.error());
        config.value().overrideListen(listen.value().first, listen.value().second);
    }

    if (cl.mode == CommandLine::Mode::Stdio) {
        auto tools = McpServer::buildTools(config.value());
        Dispatcher dispatcher(*tools, {QStringLiteral("countersign"), QStringLiteral(COUNTERSIGN_VERSION), {}});
        StdioTransport transport(dispatcher, Principal{0, QStringLiteral("stdio")});
        QObject::connect(&transport, &StdioTransport::finished, app.get(), &QCoreApplication::quit);
        transport.start();
        return app->exec();
    }

    if (!QDir().mkpath(cl.dataDir))
        return fail(QStringLiteral("cannot create the data folder %1").arg(cl.dataDir));
    QFile::setPermissions(cl.dataDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    ServerThread server(config.value(), QDir(cl.dataDir).filePath(QStringLiteral("countersign.db")));
    auto port = server.start();
    if (!port)
        return fail(port.error());
    const QString url = QStringLiteral("http://127.0.0.1:%1/mcp").arg(port.value());
    std::fprintf(stderr, "countersign: listening on %s\n", qPrintable(url));
    std::fflush(stderr);

    std::unique_ptr<MainWindow> window;
    if (cl.mode == CommandLine::Mode::Window) {
        window = std::make_unique<MainWindow>();
        window->setListenUrl(url);
        window->show();
    }
    const int code = app->exec();
    window.reset();
    server.stop();
    return code;
}
