#include "setupcommand.h"

#include "clientcheck.h"
#include "clientinstaller.h"
#include "commandline.h"
#include "config.h"
#include "database.h"
#include "hookscommand.h"
#include "hooksetup.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QDir>

#include <cstdio>

namespace Countersign {

int runSetupCommand(const CommandLine &cl)
{
    const QString client = cl.command.value(1);
    if (!client.isEmpty() && !HookSetup::clients().contains(client))
        return commandFailed(QStringLiteral("setup: the client must be one of %1")
                                 .arg(HookSetup::clients().join(QLatin1String(", "))));
    auto config = Config::load(cl.configPath);
    if (!config)
        return commandFailed(config.error());
    const QString dataDir = QDir(cl.dataDir).absolutePath();
    const HookInstaller::Place place = hookPlace(dataDir, consoleBase(cl, config.value()));
    if (!QDir().mkpath(dataDir))
        return commandFailed(QStringLiteral("cannot create %1").arg(dataDir));
    auto db = Database::open(config.value().storeLocation(dataDir));
    if (!db)
        return commandFailed(db.error());
    SystemClock clock;
    TokenStore tokens(*db.value(), clock);
    ClientInstaller installer(tokens, place);
    const bool reportOnly = cl.command.first() == QLatin1String("doctor") || cl.check;
    const QStringList clients = client.isEmpty() ? HookSetup::clients() : QStringList{client};

    if (cl.remove) {
        auto removed = installer.remove(client);
        if (!removed)
            return commandFailed(removed.error());
        std::printf("%s\n", qPrintable(removed.value()));
        return 0;
    }
    bool allReady = true;
    for (const QString &c : clients) {
        if (!reportOnly) {
            // --all: only the agents this machine has.
            if (client.isEmpty() && ClientCheck::programPath(c).isEmpty())
                continue;
            auto done = installer.setup(c, config.value().personOrLogin());
            if (!done) {
                std::fprintf(stderr, "countersign: %s: %s\n", qPrintable(HookInstaller::displayName(c)),
                             qPrintable(done.error()));
                allReady = false;
                continue;
            }
            std::printf("%s\n", qPrintable(done.value()));
        }
        const ClientCheck check = ClientCheck::of(c, place);
        std::printf("%s", qPrintable(check.describe()));
        std::fflush(stdout);
        if (check.verdict != ClientCheck::Verdict::Ready &&
            (!client.isEmpty() || check.verdict != ClientCheck::Verdict::NotInstalled))
            allReady = false;
    }
    return allReady ? 0 : 1;
}

} // namespace Countersign
