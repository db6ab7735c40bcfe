// The composition root: reads the command line, runs a one-shot command or starts the Console
// (configuration, keys, queue, server thread, window) and the event loop.
#include "auditcommand.h"
#include "commandline.h"
#include "console.h"
#include "consoleinstance.h"
#include "hookscommand.h"
#include "hookshim.h"
#include "phonecommand.h"
#include "selftestcommand.h"
#include "setupcommand.h"
#include "socketpaths.h"
#include "stdiobridge.h"
#include "tokencommand.h"
#include "undocommand.h"
#include "unixsignals.h"

#include <QApplication>
#include <QStandardPaths>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace Countersign;

namespace {

// The status a start with no display to open ends with (not Qt's abort).
constexpr int kNoDisplayExit = 3;
QtMessageHandler g_qtHandler = nullptr;
QString g_displayProblem; // what Qt's platform plugin said first

// While the window's application starts: Qt says it cannot open a display in warnings, then ends
// the process with "Reinstalling the application may fix this problem" and an abort (exit 134).
// Said instead: what is wrong, and how to go on.
void noDisplayHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type != QtFatalMsg) {
        if (QLatin1String(context.category ? context.category : "").startsWith(QLatin1String("qt.qpa"))) {
            if (g_displayProblem.isEmpty())
                g_displayProblem = message;
            return;
        }
        return g_qtHandler(type, context, message);
    }
    QStringList named;
    for (const char *variable : {"DISPLAY", "WAYLAND_DISPLAY"}) {
        if (const QByteArray value = qgetenv(variable); !value.isEmpty())
            named.append(QStringLiteral("%1=%2").arg(QLatin1String(variable), QString::fromLocal8Bit(value)));
    }
    const QString where =
        named.isEmpty()
            ? QStringLiteral("DISPLAY and WAYLAND_DISPLAY are unset: over SSH, or outside a desktop session")
            : QStringLiteral("%1 cannot be opened").arg(named.join(QStringLiteral(", ")));
    std::fprintf(stderr,
                 "countersign: no display to show the window on (%s%s%s).\n"
                 "  To run the server without a window: countersign --headless\n"
                 "  To show the window on a display: DISPLAY=:0 countersign\n",
                 qPrintable(where), g_displayProblem.isEmpty() ? "" : "; Qt: ", qPrintable(g_displayProblem));
    std::fflush(stderr);
    std::_Exit(kNoDisplayExit);
}

std::unique_ptr<QCoreApplication> makeApplication(int &argc, char **argv)
{
    if (!CommandLine::needsWidgets(argc, argv))
        return std::make_unique<QCoreApplication>(argc, argv);
    g_qtHandler = qInstallMessageHandler(noDisplayHandler);
    auto app = std::make_unique<QApplication>(argc, argv);
    qInstallMessageHandler(g_qtHandler);
    return app;
}

} // namespace

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
    std::unique_ptr<QCoreApplication> app = makeApplication(argc, argv);
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
        if (noun == QLatin1String("phone"))
            return runPhoneCommand(cl);
        if (noun == QLatin1String("undo"))
            return runUndoCommand(cl);
        if (noun == QLatin1String("setup") || noun == QLatin1String("doctor"))
            return runSetupCommand(cl);
        if (noun == QLatin1String("selftest"))
            return runSelftestCommand(cl);
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
