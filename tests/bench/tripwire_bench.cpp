// Benchmark (prints figures, asserts nothing about speed): the tripwire around one quiet call, over
// a home folder and a git workspace laid out as a developer's are (the agents' settings, start-up
// files, ~/.ssh, git's sample hooks, CI workflows, instruction files with imports, a virtual
// environment's site-packages). For each of 2,000 calls: the record taken when it is allowed (arm)
// and the check when its report comes (disarm), nothing changed; then the same with one protected
// file changed and put back each time.
//   build/ci/tests/countersign-bench-tripwire [CALLS]
#include "percentile.h"
#include "protectedset.h"
#include "tripwire.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Countersign;

namespace {

void put(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(bytes);
}

void print(const char *what, const std::vector<double> &ms)
{
    std::printf("  %-52s p50 %6.3f ms   p99 %6.3f ms   max %6.3f ms\n", what, percentile(ms, 0.5),
                percentile(ms, 0.99), *std::max_element(ms.begin(), ms.end()));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("countersign.tripwire.warning=false"));
    const int calls = argc > 1 ? std::max(10, QString::fromLocal8Bit(argv[1]).toInt()) : 2000;
    QTemporaryDir dir;
    const QString home = dir.path() + "/home", ws = home + "/project";
    for (const char *f : {".bashrc", ".profile", ".zshrc", ".gitconfig", ".claude/settings.json",
                          ".codex/config.toml", ".gemini/settings.json", ".config/opencode/opencode.json"})
        put(home + "/" + f, QByteArray(2048, 'x'));
    for (int i = 0; i < 10; ++i)
        put(home + QStringLiteral("/.ssh/key%1").arg(i), QByteArray(3000, 'k'));
    QDir().mkpath(ws);
    QProcess::execute("git", {"init", "-q", ws}); // with git's sample hooks
    for (int i = 0; i < 5; ++i)
        put(ws + QStringLiteral("/.github/workflows/ci%1.yml").arg(i), QByteArray(1500, 'w'));
    put(ws + "/CLAUDE.md", "Rules: @docs/a.md @docs/b.md\n");
    put(ws + "/docs/a.md", "a\n");
    put(ws + "/docs/b.md", "b\n");
    put(ws + "/AGENTS.md", QByteArray(4000, 'a'));
    put(ws + "/.env", "KEY=1\n");
    put(ws + "/.vscode/settings.json", "{}\n");
    for (int i = 0; i < 40; ++i)
        put(ws + QStringLiteral("/.venv/lib/python3.11/site-packages/pkg%1/__init__.py").arg(i), "x\n");
    put(ws + "/.venv/lib/python3.11/site-packages/distutils-precedence.pth", "import os\n");

    Tripwire wire(ProtectedSet::standard(home, {ws}, {home + "/.config/countersign/config.json"}));
    wire.arm("warm-up", 0);
    wire.disarm("warm-up");
    std::printf("tripwire: %d files watched (%d calls)\n", wire.filesWatched(), calls);

    std::vector<double> arm, check, changedCheck;
    QElapsedTimer t;
    for (int i = 0; i < calls; ++i) {
        t.start();
        wire.arm("call", 0);
        arm.push_back(t.nsecsElapsed() / 1e6);
        t.start();
        if (!wire.disarm("call").isEmpty())
            std::printf("  unexpected change\n");
        check.push_back(t.nsecsElapsed() / 1e6);
    }
    for (int i = 0; i < calls / 4; ++i) {
        wire.arm("call", 0);
        put(home + "/.bashrc", QByteArray("changed ") + QByteArray::number(i));
        t.start();
        if (wire.disarm("call").size() != 1)
            std::printf("  the change was not found\n");
        changedCheck.push_back(t.nsecsElapsed() / 1e6);
    }
    print("record when a quiet call is allowed (arm)", arm);
    print("check when its report comes, nothing changed", check);
    print("check that finds one file changed and puts it back", changedCheck);
    return 0;
}
