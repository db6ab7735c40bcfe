// Benchmark (prints figures, asserts nothing about speed): the audit view over 100,000 operations.
// Builds a store in a temporary file (one bulk transaction through the store's own SQL), then times
// opening the view, filtering, searching, sorting, scrolling and the per-day chart query. The view
// reads its listings off the window's thread, so each step gives two figures: how long until its
// rows are shown, and the longest the window's thread was busy meanwhile (the longest gap between
// the ticks of a 1 ms timer on that thread: how long the window could not repaint or take a key).
//   build/ci/tests/countersign-bench-auditview [ROWS]
#include "approvalcard.h"
#include "approvalqueue.h"
#include "auditmodel.h"
#include "auditstore.h"
#include "auditview.h"
#include "database.h"
#include "storesql.h"
#include "systemclock.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

using namespace Countersign;

namespace {

double timeMs(const std::function<void()> &fn)
{
    QElapsedTimer t;
    t.start();
    fn();
    return t.nsecsElapsed() / 1e6;
}

struct Figures
{
    double shownMs = 0;
    double longestStallMs = 0;
};

// Runs start from the event loop until it calls the function it is given, then lets the window
// paint; measures the time to that call and the window thread's longest stall meanwhile.
Figures stalls(const std::function<void(const std::function<void()> &finished)> &start)
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
    const std::function<void()> finished = [&] {
        if (shownMs < 0)
            shownMs = clock.nsecsElapsed() / 1e6;
        loop.quit();
    };
    clock.start();
    ticker.start();
    QTimer::singleShot(0, &loop, [&] { start(finished); });
    loop.exec();
    QApplication::processEvents(); // the paint of what changed
    longest = std::max(longest, clock.nsecsElapsed() - last);
    ticker.stop();
    return {shownMs, longest / 1e6};
}

// Runs step, waits until model has shown the listing it asked for (refreshed) and the window has
// painted it, and measures the window thread's longest stall meanwhile.
Figures measure(AuditModel *&model, const std::function<void()> &step)
{
    QMetaObject::Connection watching;
    const Figures figures = stalls([&](const std::function<void()> &finished) {
        const auto watch = [&] {
            watching = QObject::connect(model, &AuditModel::refreshed, model, [finished] { finished(); });
        };
        const bool hadModel = model != nullptr;
        if (hadModel)
            watch();
        step();
        if (hadModel)
            return;
        // The step made the model (and read its first listing already, or not).
        if (model->isLoading())
            watch();
        else
            finished();
    });
    QObject::disconnect(watching);
    return figures;
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
    const char *clients[] = {"{\"name\":\"Claude Code\"}", "{\"name\":\"Cursor\"}", "{\"name\":\"VS Code\"}"};
    const char *statuses[] = {"approved", "declined", "expired", "superseded", "allowed", "denied"};
    const qint64 start = clock.nowMs() - 90LL * 24 * 3600 * 1000;
    const double fill = timeMs([&] {
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
                            QLatin1String(clients[i % 3]),
                            QStringLiteral("{\"service\":\"svc-%1\"}").arg(i % 977), QStringLiteral("ad"),
                            plan, QStringLiteral("pd"), QStringLiteral("high"), QStringLiteral("console"),
                            QStringLiteral("no rule matched"), QStringLiteral(""), created, created + 300000,
                            QVariant(), status});
            if (i % 6 < 4)
                (void)db->exec(StoreSql::kDecisionInsert,
                               {nonce, status, QStringLiteral("console:alice"),
                                i % 6 == 1 ? QStringLiteral("not during the freeze") : QString(""),
                                created + 5000});
        }
        (void)db->exec(StoreSql::kCommit);
    });
    std::printf("Audit view benchmark, %d operations (fixture written in %.0f ms)\n", rows, fill);

    AuditStore store(*db, clock, nullptr); // reads only
    AuditView *view = nullptr;
    AuditModel *model = nullptr;
    QTableView *table = nullptr;
    std::printf("  %-48s %9s %17s\n", "", "shown", "longest stall");
    const auto print = [](const QString &label, Figures f, const QString &note = {}) {
        std::printf("  %-48s %6.1f ms %12.1f ms  %s\n", qPrintable(label), f.shownMs, f.longestStallMs,
                    qPrintable(note));
    };
    const Figures open = measure(model, [&] {
        view = new AuditView(store, db->connectionName());
        view->resize(1100, 700);
        view->show();
        table = view->findChild<QTableView *>();
        model = view->model();
    });
    print(QStringLiteral("open the view (order, chart, first rows shown)"), open,
          QStringLiteral("(%1 rows)").arg(model->rowCount()));
    const auto filtered = [&](const char *label, const AuditFilter &f) {
        const Figures figures = measure(model, [&] { model->setFilter(f); });
        print(QLatin1String(label), figures, QStringLiteral("(%1 rows)").arg(model->rowCount()));
    };
    filtered("filter: decision = declined", {QStringLiteral("declined"), {}, {}, {}, {}, {}, {}, {}});
    filtered("filter: client + tool",
             {{}, QStringLiteral("Cursor"), QStringLiteral("drop_table"), {}, {}, {}, {}, {}});
    const QDate today = QDate::currentDate();
    filtered("filter: last 7 days", {{}, {}, {}, today.addDays(-7), today, {}, {}, {}});
    filtered("search: \"freeze\" in every text column",
             {{}, {}, {}, {}, {}, QStringLiteral("freeze"), {}, {}});
    filtered("search: \"svc-97\" (many matches)", {{}, {}, {}, {}, {}, QStringLiteral("svc-97"), {}, {}});
    filtered("clear the filter", {});
    for (int column = AuditModel::Time; column <= AuditModel::Outcome; ++column) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            const Figures figures = measure(model, [&] { table->sortByColumn(column, order); });
            print(QStringLiteral("sort by %1, %2")
                      .arg(model->headerData(column, Qt::Horizontal).toString().toLower(),
                           order == Qt::AscendingOrder ? QStringLiteral("ascending")
                                                       : QStringLiteral("descending")),
                  figures);
        }
    }
    QTemporaryDir exportDir;
    for (const char *name : {"all.csv", "all.json"}) {
        QMetaObject::Connection watching;
        QString error;
        const Figures figures = stalls([&](const std::function<void()> &finished) {
            watching = QObject::connect(view, &AuditView::exportFinished, view,
                                        [&error, finished](bool, const QString &why) {
                                            error = why;
                                            finished();
                                        });
            view->exportTo(exportDir.filePath(QLatin1String(name)));
        });
        QObject::disconnect(watching);
        print(QStringLiteral("export every row to %1").arg(QLatin1String(name)), figures,
              error.isEmpty()
                  ? QStringLiteral("(%1 MB written)")
                        .arg(QFileInfo(exportDir.filePath(QLatin1String(name))).size() / 1e6, 0, 'f', 1)
                  : error);
    }
    const double chartMs = timeMs([&] { (void)model->perDay(); });
    std::printf("  %-48s %6.1f ms  (on the window's thread, as perDay() is called)\n",
                "per-day chart query (all rows)", chartMs);
    const double bottomMs = timeMs([&] {
        table->scrollToBottom();
        QApplication::processEvents();
    });
    std::printf("  %-48s %6.1f ms  (one page of rows read)\n", "scroll to the last row and paint", bottomMs);
    const double everyMs = timeMs([&] {
        for (int row = 0; row < model->rowCount(); ++row)
            (void)model->data(model->index(row, AuditModel::Target));
    });
    std::printf("  %-48s %6.1f ms  (%d rows, a page at a time)\n", "read every row's cells", everyMs,
                model->rowCount());
    delete view;

    // A card with a 1 MiB plan (the plan command's output limit): set it and paint it.
    ApprovalQueue queue(store, clock);
    ApprovalCard card(queue, clock);
    card.resize(1000, 700);
    card.show();
    Operation op;
    op.nonce = QStringLiteral("b1");
    op.tool = QStringLiteral("terraform_apply");
    op.plan.risk = Risk::High;
    op.expiresMs = clock.nowMs() + 300000;
    QString diff;
    for (int i = 0; diff.size() < 1024 * 1024; ++i)
        diff += QStringLiteral("%1resource \"aws_instance\" \"web_%2\" { ami = \"ami-0abc\" }\n")
                    .arg(i % 3 ? '+' : '-')
                    .arg(i);
    op.plan.diff = diff;
    const double cardMs = timeMs([&] {
        card.setOperation(op);
        card.repaint();
        QApplication::processEvents();
    });
    std::printf("  %-48s %8.1f ms  (%lld lines)\n", "card with a 1 MiB diff: set, highlight, paint", cardMs,
                static_cast<long long>(diff.count(QLatin1Char('\n'))));
    return 0;
}
