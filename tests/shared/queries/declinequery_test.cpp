// The Declines view's reads (DeclineQuery) over a store of known rows, on a real SQLite file and again
// on PostgreSQL when COUNTERSIGN_TEST_POSTGRES names a server: every figure of the report, the
// period, the limit, hostile text kept verbatim, a second connection opened from the first
// (Database::openReaderOf), and the reading time (ReadingTime).
#include "auditstore.h"
#include "canonicaljson.h"
#include "database.h"
#include "declinequery.h"
#include "fakeclock.h"
#include "jsoncompare.h"
#include "readingtime.h"
#include "receipt.h"
#include "teststore.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QSqlDatabase>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace Countersign;
using json = nlohmann::json;

namespace {

const qint64 kT0 = QDateTime(QDate(2026, 3, 1), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
constexpr qint64 kHour = 3'600'000;
const QString kRule = QStringLiteral("rules[0]: tool delete_service, service=prod-* \u2192 deny");

} // namespace

class DeclineQueryTest : public QObject
{
    Q_OBJECT
public:
    explicit DeclineQueryTest(bool postgres) : m_postgres(postgres) {}

private:
    const bool m_postgres;
    QTemporaryDir m_dir;
    FakeClock m_clock;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AuditStore> m_store;

    void record(const QString &nonce, const QString &tool, const json &arguments, const QString &digest,
                const QStringList &targets, qint64 createdMs,
                Operation::Status status = Operation::Status::Pending, const QString &diff = {})
    {
        Operation op;
        op.nonce = nonce;
        op.tool = tool;
        op.principal = QStringLiteral("agent");
        op.clientInfo = {{"name", "ide"}};
        op.arguments = arguments;
        Q_UNUSED(digest) // the test's label for these arguments; the store holds their real digest
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(arguments));
        if (status == Operation::Status::Denied) {
            op.plan = Plan::settledByRule(tool);
            op.rule = kRule;
        } else {
            op.plan.title = QStringLiteral("%1 %2").arg(tool, targets.value(0));
            op.plan.targets = targets;
            op.plan.diff = diff;
            op.rule = QStringLiteral("no rule matched: default ask");
        }
        op.planDigest = op.plan.digest();
        op.createdMs = createdMs;
        op.expiresMs = createdMs + 3 * kHour;
        op.status = status;
        auto recorded = m_store->recordOperation(op);
        QVERIFY2(recorded.ok(), qPrintable(recorded.ok() ? QString() : recorded.error()));
    }
    void decide(const QString &nonce, Operation::Status outcome, const QString &by, const QString &reason,
                qint64 atMs)
    {
        auto decided = m_store->decide(nonce, {outcome, by, reason, atMs});
        QVERIFY2(decided.ok(), qPrintable(decided.ok() ? QString() : decided.error()));
    }
    // A call declined (or approved) by someone, after.
    void decided(const QString &nonce, const QString &tool, const json &arguments, const QString &digest,
                 const QStringList &targets, qint64 createdMs, Operation::Status outcome, const QString &by,
                 const QString &reason, qint64 afterMs, const QString &diff = {})
    {
        record(nonce, tool, arguments, digest, targets, createdMs, Operation::Status::Pending, diff);
        decide(nonce, outcome, by, reason, createdMs + afterMs);
    }

    // The store of the tests: in the period (from kT0) and one decline before it.
    void seed()
    {
        const auto declined = Operation::Status::Declined;
        const auto approved = Operation::Status::Approved;
        const QStringList web1{QStringLiteral("web-1")};
        decided("old", "delete_service", {{"service", "web-1"}}, "dA", web1, kT0 - 24 * kHour, declined,
                "console:alice", "prod-like", 1000);
        decided("d1", "delete_service", {{"service", "web-1"}}, "dA", web1, kT0 + kHour, declined,
                "console:alice", "prod-like", 10'000);
        decided("d2", "delete_service", {{"service", "web-1"}}, "dA", web1, kT0 + 2 * kHour, declined,
                "console:bob", "prod-like", 30'000);
        decided("d3", "delete_service", {{"force", true}, {"service", "web-1"}}, "dB", web1, kT0 + 3 * kHour,
                declined, "console:alice", "no", 20'000);
        // A target named twice by one plan counts once; a decline in the client is not a person's.
        decided("d4", "run_command", {{"argv", {"rm", "-rf", "/tmp/x"}}}, "dC",
                {QStringLiteral("/tmp/x"), QStringLiteral("/tmp/x")}, kT0 + 4 * kHour, declined, "client:ide",
                "declined in the client", 5000);
        record("r1", "delete_service", {{"service", "prod-db"}}, "dD", {}, kT0 + 5 * kHour,
               Operation::Status::Denied);
        record("r2", "delete_service", {{"service", "prod-db"}}, "dD", {}, kT0 + 6 * kHour,
               Operation::Status::Denied);
        // "delete_service tmp-1" and one target: 3 words, 1 s + 0.75 s to read; approved in 0.5 s.
        decided("a1", "delete_service", {{"service", "tmp-1"}}, "dE", {QStringLiteral("tmp-1")},
                kT0 + 7 * kHour, approved, "console:alice", {}, 500);
        decided("a2", "delete_service", {{"service", "tmp-2"}}, "dF", {QStringLiteral("tmp-2")},
                kT0 + 8 * kHour, approved, "console:alice", {}, 60'000);
        // 3 words and a diff of 40: 1 s + 10.75 s to read; approved in 1 s.
        QStringList words;
        for (int i = 0; i < 40; ++i)
            words.append(QStringLiteral("w%1").arg(i));
        decided("a3", "run_command", {{"argv", {"make", "clean"}}}, "dG", {QStringLiteral("build")},
                kT0 + 9 * kHour, approved, "console:bob", {}, 1000, words.join(QLatin1Char(' ')));
        // A client's typed confirmation: not a person's decision at a console.
        decided("a4", "delete_service", {{"service", "tmp-3"}}, "dH", {QStringLiteral("tmp-3")},
                kT0 + 10 * kHour, approved, "client:ide", "typed confirmation", 100);
        decided("e1", "delete_service", {{"service", "web-1"}}, "dA", web1, kT0 + 11 * kHour,
                Operation::Status::Expired, "server", {}, 1000);
        record("p1", "delete_service", {{"service", "web-1"}}, "dA", web1, kT0 + 12 * kHour);
    }

    DeclineQuery::Report report(qint64 sinceMs = kT0, int limit = 10)
    {
        auto read = DeclineQuery(m_db->connectionName()).report(sinceMs, 1.0, limit);
        if (!read)
            qWarning("%s", qPrintable(read.error()));
        return read ? read.value() : DeclineQuery::Report();
    }

private Q_SLOTS:
    void init()
    {
        QString location;
        if (m_postgres) {
            auto fresh = TestStore::freshPostgres(QStringLiteral("countersign_declines_test"));
            QVERIFY2(fresh.ok(), qPrintable(fresh.ok() ? QString() : fresh.error()));
            location = fresh.value();
        } else {
            location = m_dir.filePath(QStringLiteral("%1.db").arg(QTest::currentTestFunction()));
        }
        auto db = Database::open(location);
        QVERIFY2(db.ok(), qPrintable(db.ok() ? QString() : db.error()));
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
        seed();
    }
    void cleanup()
    {
        m_store.reset();
        m_db.reset();
    }

    void totals_countDeclinesAndRuleDenialsApart_inThePeriod()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.declined, 4); // d1-d4; "old" is before the period, e1 expired, p1 waits
        QCOMPARE(r.denied, 2);
        const DeclineQuery::Report all = report(0);
        QCOMPARE(all.declined, 5);
        QCOMPARE(report(kT0 + 4 * kHour + 1).declined, 0);
    }
    // Calls no one decided in time, each outcome apart: expired while the agent waited, abandoned by
    // it, and approvals that timed out before their agent came back (the store's lapse sweep).
    void unanswered_expiredAbandonedTimedOut_countedApart()
    {
        decided("ab1", "delete_service", {{"service", "ab-1"}}, "dX", {QStringLiteral("ab-1")},
                kT0 + 9 * kHour, Operation::Status::Abandoned, "server",
                "the ticket expired after its agent stopped waiting", 3 * kHour);
        decided("to1", "delete_service", {{"service", "to-1"}}, "dY", {QStringLiteral("to-1")},
                kT0 + 10 * kHour, Operation::Status::Approved, "console:alice", {}, 1000);
        DeclineQuery::Report r = report();
        QCOMPARE(r.expired, 1); // e1
        QCOMPARE(r.abandoned, 1);
        QCOMPARE(r.timedOut, 0);
        QVERIFY(m_clock.nowMs() > kT0 + 13 * kHour); // the test's clock is past every seeded expiry
        auto lapsed = m_store->timeOutLapsedApprovals();
        QVERIFY2(lapsed.ok(), qPrintable(lapsed.ok() ? QString() : lapsed.error()));
        QVERIFY(lapsed.value().contains(QStringLiteral("to1")));
        r = report();
        QCOMPARE(r.timedOut, int(lapsed.value().size()));
        QCOMPARE(r.expired, 1);
        QCOMPARE(r.abandoned, 1);
        QCOMPARE(r.declined, 4); // none of these is a decline
    }
    void tools_mostDeclinedFirst_withDeclinedAndDenied()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.tools.size(), 2);
        QCOMPARE(r.tools[0].name, QStringLiteral("delete_service"));
        QCOMPARE(r.tools[0].declined, 3);
        QCOMPARE(r.tools[0].denied, 2);
        QCOMPARE(r.tools[1].name, QStringLiteral("run_command"));
        QCOMPARE(r.tools[1].declined, 1);
        QCOMPARE(r.tools[1].denied, 0);
        QCOMPARE(report(kT0, 1).tools.size(), 1);
    }
    void targets_everyTargetOncePerOperation()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.targets.size(), 2);
        QCOMPARE(r.targets[0].name, QStringLiteral("web-1"));
        QCOMPARE(r.targets[0].declined, 3);
        QCOMPARE(r.targets[1].name, QStringLiteral("/tmp/x"));
        QCOMPARE(r.targets[1].declined, 1); // named twice by its plan
    }
    void reasons_typedOnes_andTheDenyingRule_byKind()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.reasons.size(), 4);
        using Kind = DeclineQuery::Reason::Kind;
        QCOMPARE(r.reasons[0].kind, Kind::Person);
        QCOMPARE(r.reasons[0].text, QStringLiteral("prod-like"));
        QCOMPARE(r.reasons[0].count, 2);
        QCOMPARE(r.reasons[1].kind, Kind::Rule);
        QCOMPARE(r.reasons[1].text, kRule);
        QCOMPARE(r.reasons[1].count, 2);
        QCOMPARE(r.reasons[2].kind, Kind::Client);
        QCOMPARE(r.reasons[2].text, QStringLiteral("declined in the client"));
        QCOMPARE(r.reasons[3].kind, Kind::Person);
        QCOMPARE(r.reasons[3].text, QStringLiteral("no"));
        QCOMPARE(r.reasons[3].count, 1);
    }
    void repeats_sameCall_thenSameTargetThroughOtherCalls()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.repeats.size(), 2);
        const DeclineQuery::Repeat &call = r.repeats[0];
        QCOMPARE(call.same, DeclineQuery::Repeat::Same::Call);
        QCOMPARE(call.tool, QStringLiteral("delete_service"));
        QCOMPARE(call.declines, 2);
        QCOMPARE(call.calls, 1);
        QCOMPARE(call.people, 2);
        QCOMPARE(call.lastMs, kT0 + 2 * kHour);
        QCOMPARE_JSON(call.arguments, json({{"service", "web-1"}}));
        QCOMPARE(call.argsDigest, QString::fromLatin1(CanonicalJson::digest({{"service", "web-1"}})));
        QCOMPARE(call.target, QStringLiteral("web-1"));
        QCOMPARE(call.lastReason, QStringLiteral("prod-like"));
        QCOMPARE(call.lastDecidedBy, QStringLiteral("console:bob"));
        const DeclineQuery::Repeat &target = r.repeats[1];
        QCOMPARE(target.same, DeclineQuery::Repeat::Same::Target);
        QCOMPARE(target.target, QStringLiteral("web-1"));
        QCOMPARE(target.declines, 3);
        QCOMPARE(target.calls, 2);
        QCOMPARE(target.people, 2);
        QCOMPARE(target.lastMs, kT0 + 3 * kHour);
        QCOMPARE_JSON(target.arguments, json({{"force", true}, {"service", "web-1"}}));
        QCOMPARE(target.lastReason, QStringLiteral("no"));
        // With "old" the same call was declined three times; from after d2, nothing twice.
        QCOMPARE(report(0).repeats[0].declines, 3);
        QCOMPARE(report(kT0 + kHour + 1).repeats.size(), 1); // web-1 through d2 and d3
        QCOMPARE(report(kT0 + 2 * kHour + 1).repeats.size(), 0);
    }
    void timings_peopleAtAConsoleOnly_medianAndP90_approvalRate()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.timings.size(), 2);
        const DeclineQuery::ToolTiming &deletes = r.timings[0];
        QCOMPARE(deletes.tool, QStringLiteral("delete_service"));
        QCOMPARE(deletes.approved, 2);      // a1, a2 (a4 was the client's)
        QCOMPARE(deletes.declined, 3);      // d1, d2, d3
        QCOMPARE(deletes.medianMs, 20'000); // 0.5, 10, 20, 30, 60 s
        QCOMPARE(deletes.p90Ms, 60'000);
        QCOMPARE(deletes.approvalRate(), 0.4);
        const DeclineQuery::ToolTiming &commands = r.timings[1];
        QCOMPARE(commands.tool, QStringLiteral("run_command"));
        QCOMPARE(commands.approved, 1); // d4 was declined in the client
        QCOMPARE(commands.declined, 0);
        QCOMPARE(commands.medianMs, 1000);
        QCOMPARE(commands.p90Ms, 1000);
        QCOMPARE(commands.approvalRate(), 1.0);
    }
    // A decision from a paired phone is a person's too: counted, and a fast one named.
    void fastApprovals_countPhoneDecisions()
    {
        decided("phone1", "delete_service", {{"service", "tmp-9"}}, "dP", {QStringLiteral("tmp-9")},
                kT0 + 11 * kHour, Operation::Status::Approved, "phone:pixel", {}, 400);
        const DeclineQuery::Report r = report();
        QCOMPARE(r.approvalsTotal, 4);
        QCOMPARE(r.fastTotal, 3);
        QVERIFY(std::any_of(r.fast.cbegin(), r.fast.cend(), [](const auto &f) {
            return f.person == QLatin1String("phone:pixel") && f.fast == 1;
        }));
    }
    void fastApprovals_fasterThanTheCardsReadingTime_byPersonAndTool()
    {
        const DeclineQuery::Report r = report();
        QCOMPARE(r.approvalsTotal, 3);
        QCOMPARE(r.fastTotal, 2);
        QCOMPARE(r.fast.size(), 2);
        QCOMPARE(r.fast[0].person, QStringLiteral("console:alice"));
        QCOMPARE(r.fast[0].tool, QStringLiteral("delete_service"));
        QCOMPARE(r.fast[0].fast, 1);
        QCOMPARE(r.fast[0].approvals, 2);
        QCOMPARE(r.fast[0].fastestMs, 500);
        QCOMPARE(r.fast[0].fastestReadingMs, 1750);
        QCOMPARE(r.fast[1].person, QStringLiteral("console:bob"));
        QCOMPARE(r.fast[1].tool, QStringLiteral("run_command"));
        QCOMPARE(r.fast[1].fast, 1);
        QCOMPARE(r.fast[1].approvals, 1);
        QCOMPARE(r.fast[1].fastestMs, 1000);
        QCOMPARE(r.fast[1].fastestReadingMs, 11'750);
        // Without a minimum time on screen a1's card needs 0.75 s: still too fast.
        auto none = DeclineQuery(m_db->connectionName()).report(kT0, 0.0);
        QVERIFY(none.ok());
        QCOMPARE(none.value().fastTotal, 2);
        QCOMPARE(none.value().fast[0].fastestReadingMs, 750);
    }
    void hostileText_isReadBackVerbatim()
    {
        const QString markup = QStringLiteral("<b>rm</b><img src=x onerror=1>&amp;");
        const QString control = QStringLiteral("tool\u202e\n\x01\x1b[31m");
        const QString longText = QString(20'000, QLatin1Char('x'));
        for (int i = 0; i < 2; ++i) {
            decided(QStringLiteral("h%1").arg(i), markup, {{"path", control.toStdString()}}, "dX",
                    {control, longText}, kT0 + 13 * kHour + i, Operation::Status::Declined,
                    QStringLiteral("console:<i>eve</i>"), longText, 100);
        }
        const DeclineQuery::Report r = report();
        QVERIFY(
            std::any_of(r.tools.cbegin(), r.tools.cend(), [&](const auto &c) { return c.name == markup; }));
        QVERIFY(std::any_of(r.targets.cbegin(), r.targets.cend(),
                            [&](const auto &c) { return c.name == control && c.declined == 2; }));
        QVERIFY(std::any_of(r.targets.cbegin(), r.targets.cend(),
                            [&](const auto &c) { return c.name == longText; }));
        QVERIFY(std::any_of(r.reasons.cbegin(), r.reasons.cend(),
                            [&](const auto &c) { return c.text == longText && c.count == 2; }));
        QVERIFY(std::any_of(r.repeats.cbegin(), r.repeats.cend(), [&](const auto &c) {
            return c.tool == markup && c.arguments == json({{"path", control.toStdString()}});
        }));
    }
    void nearestRank_ofSortedValues()
    {
        QCOMPARE(DeclineQuery::nearestRank({}, 0.5), 0);
        QCOMPARE(DeclineQuery::nearestRank({7}, 0.9), 7);
        QCOMPARE(DeclineQuery::nearestRank({1, 2, 3, 4}, 0.5), 2);
        QCOMPARE(DeclineQuery::nearestRank({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9), 9);
        QCOMPARE(DeclineQuery::nearestRank({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0.9), 10);
    }
    void readingTime_minimumPlusWords_capped()
    {
        Plan plan;
        plan.title = QStringLiteral("Delete  service\tweb-1 ");
        plan.targets = {QStringLiteral("web-1")};
        QCOMPARE(ReadingTime::words(plan), 4);
        QCOMPARE(ReadingTime::ms(plan, 1.0), 2000);
        QCOMPARE(ReadingTime::ms(plan, 2.5), 3500);
        QCOMPARE(ReadingTime::ms(plan, -1.0), 1000);
        plan.diff = QString(QStringLiteral("word ")).repeated(10'000);
        QCOMPARE(ReadingTime::ms(plan, 1.0), 1000 + ReadingTime::kCapMs);
        QCOMPARE(ReadingTime::longestMs(1.0), 1000 + ReadingTime::kCapMs);
    }
    // The view's worker reads through a second connection it opens from the window's.
    void openReaderOf_readsTheSameStore_readOnly()
    {
        auto reader = Database::openReaderOf(m_db->connectionName());
        QVERIFY2(reader.ok(), qPrintable(reader.ok() ? QString() : reader.error()));
        QCOMPARE(reader.value()->dialect(), m_db->dialect());
        auto read = DeclineQuery(reader.value()->connectionName()).report(kT0, 1.0);
        QVERIFY(read.ok());
        QCOMPARE(read.value().declined, 4);
        QVERIFY(!reader.value()->exec("DELETE FROM decisions").ok()); // read-only
        QVERIFY(!Database::openReaderOf(QStringLiteral("no-such-connection")).ok());
    }
    void openReaderOf_inMemory_isRefused()
    {
        if (m_postgres)
            QSKIP("SQLite's own case");
        auto memory = Database::open(QStringLiteral(":memory:"));
        QVERIFY(memory.ok());
        auto reader = Database::openReaderOf(memory.value()->connectionName());
        QVERIFY(!reader.ok());
        QVERIFY2(reader.error().contains(QLatin1String("not a file")), qPrintable(reader.error()));
    }
    void missingTables_areAnError()
    {
        if (m_postgres)
            QSKIP("SQLite's own case");
        {
            QSqlDatabase bare = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("bare"));
            bare.setDatabaseName(QStringLiteral(":memory:"));
            QVERIFY(bare.open());
            auto read = DeclineQuery(QStringLiteral("bare")).report(0, 1.0);
            QVERIFY(!read.ok());
            QVERIFY2(read.error().contains(QLatin1String("no such table")), qPrintable(read.error()));
            bare.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("bare"));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    DeclineQueryTest onSqlite(false);
    int failed = QTest::qExec(&onSqlite, argc, argv);
    if (TestStore::postgresServer().isEmpty()) {
        std::fprintf(stderr, "declinequery_test: COUNTERSIGN_TEST_POSTGRES unset: not run on PostgreSQL\n");
        return failed;
    }
    DeclineQueryTest onPostgres(true);
    failed += QTest::qExec(&onPostgres, argc, argv);
    return failed;
}
#include "declinequery_test.moc"
