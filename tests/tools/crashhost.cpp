// countersign-test-crashhost: the product's headless server (the same Console, server and gate)
// that kills itself with SIGKILL, as a crash would, right after the gate records the step named in
// COUNTERSIGN_CRASH_AT (a Gate::Step: Minted, Decided, Claimed, Applied, Finished). The crash tests
// (tests/peer/crash-recovery.mjs) then restart the real binary on the same data folder. Built only
// with the tests; never installed.
//
//   COUNTERSIGN_CRASH_AT=Claimed countersign-test-crashhost --headless --listen ... --data-dir ...
#include "commandline.h"
#include "console.h"
#include "mcpserver.h"

#include <QCoreApplication>
#include <QMetaEnum>

#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace Countersign;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign"));
    const QByteArray crashAt = qgetenv("COUNTERSIGN_CRASH_AT");
    const QMetaEnum steps = QMetaEnum::fromType<Gate::Step>();
    bool known = false;
    steps.keyToValue(crashAt.constData(), &known);
    if (!known) {
        std::fprintf(stderr, "countersign-test-crashhost: COUNTERSIGN_CRASH_AT must name a Gate::Step\n");
        return 2;
    }
    const CommandLine cl = CommandLine::parse(app);
    if (cl.mode != CommandLine::Mode::Headless) {
        std::fprintf(stderr, "countersign-test-crashhost: only --headless\n");
        return 2;
    }
    auto console = Console::start(cl, [crashAt, steps](McpServer *server) {
        QObject::connect(
            server, &McpServer::stepRecorded, server,
            [crashAt, steps](Gate::Step step, const QString &nonce) {
                if (crashAt != steps.valueToKey(static_cast<int>(step)))
                    return;
                std::fprintf(stderr, "countersign-test-crashhost: SIGKILL at %s of %s\n", crashAt.constData(),
                             qPrintable(nonce));
                std::fflush(stderr);
                ::kill(::getpid(), SIGKILL);
            },
            Qt::DirectConnection);
    });
    if (!console) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(console.error()));
        return 1;
    }
    return app.exec();
}
