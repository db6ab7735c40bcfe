#include "hookscommand.h"

#include "commandline.h"
#include "config.h"
#include "consoleinstance.h"
#include "database.h"
#include "hookinstaller.h"
#include "socketpaths.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>

namespace Countersign {

QString consoleBase(const CommandLine &cl, const Config &config)
{
    QString url = ConsoleInstance::runningUrl(cl.dataDir);
    if (url.isEmpty())
        url = QStringLiteral("http://%1:%2/mcp").arg(config.listenHost()).arg(config.listenPort());
    return url.left(url.size() - 4); // without "/mcp"
}

HookInstaller::Place hookPlace(const QString &dataDir, const QString &consoleBase)
{
    HookInstaller::Place place;
    place.home = QDir::homePath();
    place.codexHome = qEnvironmentVariable("CODEX_HOME");
    place.dataDir = QDir(dataDir).absolutePath();
    place.consoleBase = consoleBase;
    // The shim program beside this one (it starts in a few ms), else this program's hook command.
    const QString shim =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("countersign-hook"));
    place.shim = QFileInfo(shim).isExecutable()
                     ? QStringList{shim}
                     : QStringList{QCoreApplication::applicationFilePath(), QStringLiteral("hook")};
    place.socket = SocketPaths::bridge(place.dataDir);
    return place;
}

int runHooksCommand(const CommandLine &cl)
{
    const QString verb = cl.command.value(1);
    const QString client = cl.command.value(2);
    if (!HookSetup::clients().contains(client))
        return commandFailed(QStringLiteral("hooks %1: the client must be one of %2")
                                 .arg(verb, HookSetup::clients().join(QLatin1String(", "))));
    auto config = Config::load(cl.configPath);
    if (!config)
        return commandFailed(config.error());
    const QString dataDir = QDir(cl.dataDir).absolutePath();
    const HookInstaller::Place place = hookPlace(dataDir, consoleBase(cl, config.value()));
    if (verb == QLatin1String("install") && cl.setup) { // what would be merged, and nothing written
        auto text = HookInstaller::setupText(place, client);
        if (!text)
            return commandFailed(text.error());
        std::printf("%s\n", qPrintable(text.value()));
        return 0;
    }
    if (!QDir().mkpath(dataDir))
        return commandFailed(QStringLiteral("cannot create %1").arg(dataDir));
    auto db = Database::open(config.value().storeLocation(dataDir));
    if (!db)
        return commandFailed(db.error());
    SystemClock clock;
    TokenStore tokens(*db.value(), clock);
    HookInstaller installer(tokens, place);
    auto done = verb == QLatin1String("install") ? installer.install(client, config.value().personOrLogin())
                                                 : installer.remove(client);
    if (!done)
        return commandFailed(done.error());
    std::printf("%s\n", qPrintable(done.value()));
    return 0;
}

} // namespace Countersign
