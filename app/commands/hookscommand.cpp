#include "hookscommand.h"

#include "commandline.h"
#include "consoleinstance.h"
#include "hookinstaller.h"
#include "socketpaths.h"

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

Result<std::unique_ptr<SetupTarget>> SetupTarget::open(const CommandLine &cl)
{
    auto config = Config::load(cl.configPath);
    if (!config)
        return failure(config.error());
    auto target = std::make_unique<SetupTarget>();
    target->config = std::move(config).value();
    target->place = hookPlace(QDir(cl.dataDir).absolutePath(), consoleBase(cl, target->config));
    return target;
}

Result<TokenStore *> SetupTarget::tokens()
{
    if (tokenStore)
        return tokenStore.get();
    if (!QDir().mkpath(place.dataDir))
        return failure(QStringLiteral("cannot create %1").arg(place.dataDir));
    auto opened = Database::open(config.storeLocation(place.dataDir));
    if (!opened)
        return failure(opened.error());
    db = std::move(opened).value();
    tokenStore = std::make_unique<TokenStore>(*db, clock);
    return tokenStore.get();
}

int runHooksCommand(const CommandLine &cl)
{
    const QString verb = cl.command.value(1);
    const QString client = cl.command.value(2);
    if (!HookSetup::clients().contains(client))
        return commandFailed(QStringLiteral("hooks %1: the client must be one of %2")
                                 .arg(verb, HookSetup::clients().join(QLatin1String(", "))));
    auto target = SetupTarget::open(cl);
    if (!target)
        return commandFailed(target.error());
    const auto &to = target.value();
    if (verb == QLatin1String("install") && cl.setup) { // what would be merged, and nothing written
        auto text = HookInstaller::setupText(to->place, client);
        if (!text)
            return commandFailed(text.error());
        std::printf("%s\n", qPrintable(text.value()));
        return 0;
    }
    auto tokens = to->tokens();
    if (!tokens)
        return commandFailed(tokens.error());
    HookInstaller installer(*tokens.value(), to->place);
    auto done = verb == QLatin1String("install") ? installer.install(client, to->config.personOrLogin())
                                                 : installer.remove(client);
    if (!done)
        return commandFailed(done.error());
    std::printf("%s\n", qPrintable(done.value()));
    return 0;
}

} // namespace Countersign
