#include "setupcommand.h"

#include "clientcheck.h"
#include "clientinstaller.h"
#include "commandline.h"
#include "hookscommand.h"
#include "hooksetup.h"

#include <cstdio>

namespace Countersign {

int runSetupCommand(const CommandLine &cl)
{
    const QString client = cl.command.value(1);
    if (!client.isEmpty() && !HookSetup::clients().contains(client))
        return commandFailed(QStringLiteral("setup: the client must be one of %1")
                                 .arg(HookSetup::clients().join(QLatin1String(", "))));
    auto target = SetupTarget::open(cl);
    if (!target)
        return commandFailed(target.error());
    auto tokens = target.value()->tokens();
    if (!tokens)
        return commandFailed(tokens.error());
    const HookInstaller::Place &place = target.value()->place;
    const Config &config = target.value()->config;
    ClientInstaller installer(*tokens.value(), place);
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
            auto done = installer.setup(c, config.personOrLogin());
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
