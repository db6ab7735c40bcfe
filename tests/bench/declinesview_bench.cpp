// Benchmark (prints figures, asserts nothing about speed): the Declines view over 100,000 operations,
// the audit view benchmark's fixture (tests/bench/auditview_bench.cpp). For each period: how long until
// the report is shown, and the longest the window's thread was busy meanwhile (the longest gap between
// the ticks of a 1 ms timer on that thread); then the same report read on the window's thread, as a
// store with no second connection would be.
//   build/ci/tests/countersign-bench-declinesview [ROWS]
#include "database.h"
#include "declinequery.h"
#include "declinesview.h"
#include "storesql.h"
#include "systemclock.h"

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

using namespace Countersign;

namespace {

struct Figures
{
    double shownMs = 0;
    double longestStallMs = 0;
};

// Runs step, waits until the view has shown a report (refreshed) and painted it, and measures the
// window thread's longest stall meanwhile.
Figures measure(DeclinesView *view, const std::function<void()> &step)
{
    QElapsedTimer clock;
    qint64 last = 0, longest = 0;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(1);
    QObject::connect(&ticker, &QTimer::timeout, &ticker, [&] {
        const qint64 now = clock.nsecsElapsed();
        longest = std::max(longest, now - last);
        last = now;
    });
    QEventLoop loop;
    double shownMs = -1;
    const QMetaObject::Connection watching = QObject::connect(view, &DeclinesView::refreshed, &loop, [&] {
        shownMs = clock.nsecsElapsed() / 1e6;
        loop.quit();
    });
    clock.start();
    ticker.start();
    QTimer::singleShot(0, &loop, step);
    loop.exec();
    QApplication::processEvents(); // the paint of what changed
    longest = std::max(longest, clock.nsecsElapsed() - last);
    ticker.stop();
    QObject::disconnect(watching);
    return {shownMs, longest / 1e6};
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    const int rows = argc > 1 ? std::atoi(argv[1]) : 100'000;
    QTemporaryDir dir;
    auto db = Database::open(dir.filePath(QStringLiteral("bench.db"))).value();
    SystemClock clock;
    const char *tools[] = {"delete_service", "terraform_apply", "kubectl_delete", "git_push_force",
                           "drop_table"};
    const char *statuses[] = {"approved", "declined", "expired", "superseded", "allowed", "denied"};
    const qint64 start = clock.nowMs() - 90LL * 24 * 3600 * 1000;
    QElapsedTimer fill;
    fill.start();
    (void)db->exec(StoreSql::kBeginImmediate);
    for (int i = 0; i < rows; ++i) {
        const QString nonce = QStringLiteral("%1").arg(i, 32, 16, QLatin1Char('0'));
        const QString status = QLatin1String(statuses[i % 6]);
        const QString plan =
            QStringLiteral("{\"blastRadius\":{},\"diff\":\"-replicas: 3\",\"prompt\":\"Delete service "
                           "svc-%1?\",\"risk\":\"high\",\"summary\":\"\",\"targets\":[\"svc-%1\"],"
                           "\"title\":\"Delete svc-%1\"}")
                .arg(i % 977);
        const qint64 created = start + qint64(i) * (90LL * 24 * 3600 * 1000 / rows);
        (void)db->exec(StoreSql::kOperationInsert,
                       {nonce, QLatin1String(tools[i % 5]), QStringLiteral("agent-%1").arg(i % 7),
                        QStringLiteral("{\"name\":\"Cursor\"}"),
                        QStringLiteral("{\"service\":\"svc-%1\"}").arg(i % 977),
                        QStringLiteral("ad-%1").arg(i % 977), plan, QStringLiteral("pd"),
                        QStringLiteral("high"), QStringLiteral("console"), QStringLiteral("no rule matched"),
                        QStringLiteral(""), created, created + 300000, QVariant(), status});
        if (i % 6 < 4)
            (void)db->exec(StoreSql::kDecisionInsert,
                           {nonce, status, QStringLiteral("console:%1").arg(i % 3 ? "alice" : "bob"),
                            i % 6 == 1 ? QStringLiteral("not during the freeze") : QString(""),
                            created + (i % 11) * 700});
    }
    (void)db->exec(StoreSql::kCommit);
    std::printf("Declines view benchmark, %d operations (fixture written in %lld ms)\n", rows,
                static_cast<long long>(fill.elapsed()));
    std::printf("  %-40s %9s %17s\n", "", "shown", "longest stall");

    auto *view = new DeclinesView(db->connectionName());
    view->resize(1100, 700);
    auto *period = view->findChild<QComboBox *>(QStringLiteral("declinesPeriod"));
    const auto print = [view](const QString &label, Figures f) {
        std::printf("  %-40s %6.1f ms %12.1f ms  (%d declined, %d denied, %d repeats, %d fast)\n",
                    qPrintable(label), f.shownMs, f.longestStallMs, view->report().declined,
                    view->report().denied, int(view->report().repeats.size()), view->report().fastTotal);
    };
    print(QStringLiteral("open the tab (last 7 days)"), measure(view, [view] { view->show(); }));
    for (int i = 0; i < period->count(); ++i) {
        if (i == period->currentIndex())
            continue;
        print(period->itemText(i), measure(view, [period, i] { period->setCurrentIndex(i); }));
    }
    QElapsedTimer onThread;
    onThread.start();
    auto all = DeclineQuery(db->connectionName()).report(0, 1.0);
    std::printf("  %-40s %6lld ms  (the whole report on the window's thread%s)\n", "all time, read in place",
                static_cast<long long>(onThread.elapsed()), all ? "" : ": failed");
    delete view;
    return 0;
}
