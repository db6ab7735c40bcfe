// Benchmark (prints figures, asserts nothing about speed): the audit view over 100,000 operations.
// Builds a store in a temporary file (one bulk transaction through the store's own SQL), then times
// opening the model and the view, filtering, searching, sorting and the per-day chart query.
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
#include <QTableView>
#include <QTemporaryDir>

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
    QTableView *table = nullptr;
    const double open = timeMs([&] {
        view = new AuditView(store, db->connectionName());
        view->resize(1100, 700);
        view->show();
        table = view->findChild<QTableView *>();
        QApplication::processEvents();
    });
    AuditModel *model = view->model();
    std::printf("  open the view (model, first rows, chart, shown)   %8.1f ms  (%d rows fetched of %d)\n",
                open, model->rowCount(), rows);
    // Each filter figure includes the chart's per-day query, as in the view.
    const auto filtered = [&](const char *label, const AuditFilter &f) {
        const double ms = timeMs([&] {
            model->setFilter(f);
            (void)model->perDay(); // the view redraws its chart for the same filter
            QApplication::processEvents();
        });
        std::printf("  %-48s %8.1f ms  (%d rows fetched)\n", label, ms, model->rowCount());
    };
    filtered("filter: decision = declined", {QStringLiteral("declined"), {}, {}, {}, {}, {}});
    filtered("filter: client + tool",
             {{}, QStringLiteral("Cursor"), QStringLiteral("drop_table"), {}, {}, {}});
    const QDate today = QDate::currentDate();
    filtered("filter: last 7 days", {{}, {}, {}, today.addDays(-7), today, {}});
    filtered("search: \"freeze\" in every text column", {{}, {}, {}, {}, {}, QStringLiteral("freeze")});
    filtered("search: \"svc-97\" (many matches)", {{}, {}, {}, {}, {}, QStringLiteral("svc-97")});
    filtered("clear the filter", {});
    for (int column = AuditModel::Time; column <= AuditModel::Outcome; ++column) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            const double sortMs = timeMs([&] {
                table->sortByColumn(column, order);
                QApplication::processEvents();
            });
            const QString what = QStringLiteral("sort by %1, %2")
                                     .arg(model->headerData(column, Qt::Horizontal).toString().toLower(),
                                          order == Qt::AscendingOrder ? QStringLiteral("ascending")
                                                                      : QStringLiteral("descending"));
            std::printf("  %-48s %8.1f ms\n", qPrintable(what), sortMs);
        }
    }
    const double chartMs = timeMs([&] { (void)model->perDay(); });
    std::printf("  %-48s %8.1f ms\n", "per-day chart query (all rows)", chartMs);
    const double scrollMs = timeMs([&] {
        while (model->canFetchMore({}))
            model->fetchMore({});
    });
    std::printf("  %-48s %8.1f ms  (%d rows)\n", "fetch every row (scroll to the end)", scrollMs,
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
