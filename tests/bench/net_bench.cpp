// Benchmark (prints figures, asserts nothing about speed): the net under a workspace of 10,000
// files in 100 folders (2 KiB each, a git work tree's shape without .git): the first record (every
// file copied into the undo store), then for each of 200 quiet calls, 10 files changed before it:
// the record when the call is allowed (a walk, and the 10 copied), and the comparison when its report
// comes (a walk, and the files it changed read).
//   build/ci/tests/countersign-bench-net [FILES] [CALLS]
#include "percentile.h"
#include "snapshotstore.h"
#include "workspacenet.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Countersign;

namespace {

void put(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(bytes);
}

void print(const char *what, const std::vector<double> &ms)
{
    std::printf("  %-58s p50 %7.2f ms   p99 %7.2f ms\n", what, percentile(ms, 0.5), percentile(ms, 0.99));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int files = argc > 1 ? std::max(100, QString::fromLocal8Bit(argv[1]).toInt()) : 10'000;
    const int calls = argc > 2 ? std::max(10, QString::fromLocal8Bit(argv[2]).toInt()) : 200;
    QTemporaryDir dir;
    const QString ws = dir.path() + "/ws";
    QDir().mkpath(dir.path() + "/data");
    QStringList paths;
    for (int i = 0; i < files; ++i) {
        const QString folder = ws + QStringLiteral("/src%1").arg(i % 100);
        if (i < 100)
            QDir().mkpath(folder);
        paths << folder + QStringLiteral("/file%1.txt").arg(i);
        put(paths.last(), QByteArray(2048, char('a' + i % 26)));
    }
    auto store = std::make_shared<SnapshotStore>(dir.path() + "/data/snapshots", SnapshotStore::Limits{});
    WorkspaceNet net({ws}, store);
    QElapsedTimer t;
    t.start();
    net.arm("first", 0);
    const double first = t.nsecsElapsed() / 1e6;
    net.disarm("first");
    std::printf("net: %d files recorded (%d calls, 10 files changed before each)\n", net.filesRecorded(),
                calls);
    std::printf("  %-58s %7.1f ms\n", "the first record (every file copied)", first);
    std::vector<double> record, compare;
    for (int c = 0; c < calls; ++c) {
        for (int k = 0; k < 10; ++k)
            put(paths.at((c * 37 + k * 997) % files), QByteArray("changed ") + QByteArray::number(c));
        t.start();
        net.arm("call", 0);
        record.push_back(t.nsecsElapsed() / 1e6);
        for (int k = 0; k < 10; ++k)
            put(paths.at((c * 53 + k * 101) % files), QByteArray("by the call ") + QByteArray::number(c));
        t.start();
        const auto outcome = net.disarm("call");
        compare.push_back(t.nsecsElapsed() / 1e6);
        if (outcome.kept.size() != 10)
            std::printf("  the comparison found %lld files, not 10\n",
                        static_cast<long long>(outcome.kept.size()));
    }
    print("record when a quiet call is allowed (10 files changed)", record);
    print("compare when its report comes (10 files changed by it)", compare);
    return 0;
}
