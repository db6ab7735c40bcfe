// The composition root: reads the command line, runs a one-shot command or starts the Console
// (configuration, keys, queue, server thread, window) and the event loop.
#include "auditcommand.h"
#include "commandline.h"
#include "console.h"
#include "consoleinstance.h"
#include "hookscommand.h"
#include "hookshim.h"
#include "socketpaths.h"
#include "stdiobridge.h"
#include "tokencommand.h"
#include "undocommand.h"
#include "unixsignals.h"

#include <QApplication>
#include <QStandardPaths>

#include <cstdio>
#include <cstring>
#include <memory>

using namespace Countersign;

int main(int argc, char **argv)
{
    // A client's hook waits on this: no command-line parser, no widgets, one round trip.
    if (argc > 1 && !std::strcmp(argv[1], "hook")) {
        QCoreApplication::setApplicationName(QStringLiteral("countersign"));
        QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        for (int i = 3; i + 1 < argc; ++i)
            if (!std::strcmp(argv[i], "--data-dir"))
                dataDir = QString::fromLocal8Bit(argv[i + 1]);
        return runHookShim(argc, argv, 2, SocketPaths::bridge(dataDir).toStdString());
    }
    std::unique_ptr<QCoreApplication> app = CommandLine::needsWidgets(argc, argv)
                                                ? std::make_unique<QApplication>(argc, argv)
                                                : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
    const CommandLine cl = CommandLine::parse(*app);

    if (cl.mode == CommandLine::Mode::Command) {
        const QString noun = cl.command.first();
        if (noun == QLatin1String("token"))
            return runTokenCommand(cl);
        if (noun == QLatin1String("audit"))
            return runAuditCommand(cl);
        if (noun == QLatin1String("hooks"))
            return runHooksCommand(cl);
        if (noun == QLatin1String("undo"))
            return runUndoCommand(cl);
        return runReceiptCommand(cl);
    }

    if (cl.mode == CommandLine::Mode::Stdio)
        return runStdioBridge(cl);

    // One console per data folder.
    std::unique_ptr<ConsoleInstance> instance;
    QString lockProblem; // a folder that cannot be locked: the start below says why, or runs unlocked
    QString elsewhere;
    auto claimed = ConsoleInstance::claim(cl.dataDir, &elsewhere);
    if (claimed && !claimed.value()) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(elsewhere));
        return 0;
    }
    if (claimed)
        instance = std::move(claimed).value();
    else
        lockProblem = claimed.error();
    quitOnTerminationSignals(app.get());
    auto console = Console::start(cl);
    if (!console) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(console.error()));
        return 1;
    }
    if (!lockProblem.isEmpty())
        std::fprintf(stderr, "countersign: warning: %s; a second console could start on this folder\n",
                     qPrintable(lockProblem));
    if (instance) {
        instance->setUrl(console.value()->url());
        QObject::connect(instance.get(), &ConsoleInstance::raiseRequested, app.get(),
                         [c = console.value().get()] { c->showWindow(); });
    }
    const int code = app->exec();
    console.value()->finishRunningTools();
    console.value().reset(); // the window, the server thread, then the databases
    return code;
}
