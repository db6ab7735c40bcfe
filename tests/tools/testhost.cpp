// countersign-test-host: the product's headless console (the same Console, server and gate as
// `countersign --headless`) with the conformance suite's fixture tools added (test_simple_text, …),
// which no shipped binary serves. Built only with the tests; never installed.
//
// With COUNTERSIGN_CRASH_AT set to a Gate::Step (Minted, Decided, Claimed, Applied, Finished) it
// kills itself with SIGKILL, as a crash would, right after the gate records that step; the crash
// tests (tests/peer/crash-recovery.mjs) then restart the real binary on the same data folder.
//
//   countersign-test-host --headless --listen 127.0.0.1:0 --data-dir DIR --config FILE
//   COUNTERSIGN_CRASH_AT=Claimed countersign-test-host --headless ...
#include "commandline.h"
#include "console.h"
#include "fixturetools.h"
#include "mcpserver.h"
#include "unixsignals.h"

#include <QCoreApplication>
#include <QMetaEnum>

#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace Countersign;

namespace {

// Connects the self-kill at the named step; an empty name connects nothing.
std::function<void(McpServer *)> crashAt(const QByteArray &step)
{
    if (step.isEmpty())
        return {};
    return [step](McpServer *server) {
        const QMetaEnum steps = QMetaEnum::fromType<Gate::Step>();
        QObject::connect(
            server, &McpServer::stepRecorded, server,
            [step, steps](Gate::Step recorded, const QString &nonce) {
                if (step != steps.valueToKey(static_cast<int>(recorded)))
                    return;
                std::fprintf(stderr, "countersign-test-host: SIGKILL at %s of %s\n", step.constData(),
                             qPrintable(nonce));
                std::fflush(stderr);
                ::kill(::getpid(), SIGKILL);
            },
            Qt::DirectConnection);
    };
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
    const QByteArray step = qgetenv("COUNTERSIGN_CRASH_AT");
    bool known = step.isEmpty();
    if (!known)
        QMetaEnum::fromType<Gate::Step>().keyToValue(step.constData(), &known);
    if (!known) {
        std::fprintf(stderr, "countersign-test-host: COUNTERSIGN_CRASH_AT must name a Gate::Step\n");
        return 2;
    }
    const CommandLine cl = CommandLine::parse(app);
    if (cl.mode != CommandLine::Mode::Headless) {
        std::fprintf(stderr, "countersign-test-host: only --headless\n");
        return 2;
    }
    quitOnTerminationSignals(&app);
    auto console = Console::start(cl, Console::Hooks{crashAt(step), &FixtureTools::addTo});
    if (!console) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(console.error()));
        return 1;
    }
    const int code = app.exec();
    console.value()->finishRunningTools();
    console.value().reset();
    return code;
}
