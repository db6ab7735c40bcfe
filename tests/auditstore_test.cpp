#include "auditexport.h"
#include "auditstore.h"
#include "database.h"
#include "fakeclock.h"
#include "jsoncompare.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Countersign;
using json = nlohmann::json;

class AuditStoreTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AuditStore> m_store;

    Operation pending(const QString &nonce)
    {
        Operation op;
        op.nonce = nonce;
        op.tool = QStringLiteral("delete_service");
        op.principal = QStringLiteral("agent");
        op.clientInfo = {{"name", "ide"}};
        op.arguments = {{"service", "web-1"}};
        op.argsDigest = QStringLiteral("ad");
        op.plan.title = QStringLiteral("Delete web-1");
        op.plan.prompt = QStringLiteral("Delete service web-1?");
        op.plan.targets = {QStringLiteral("web-1")};
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = m_clock.nowMs();
        op.expiresMs = op.createdMs + 300'000;
        return op;
    }
    QString dbPath() const
    {
        return m_dir.filePath(QStringLiteral("%1.db").arg(QTest::currentTestFunction()));
    }

private Q_SLOTS:
    void init()
    {
        auto db = Database::open(dbPath());
        QVERIFY(db.ok());
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock);
    }
    void cleanup()
    {
        m_store.reset();
        m_db.reset();
    }

    void operation_roundTrips()
    {
        const Operation op = pending(QStringLiteral("n1"));
        QVERIFY(m_store->recordOperation(op).ok());
        auto back = m_store->operation(QStringLiteral("n1"));
        QVERIFY(back.ok() && back.value());
        QCOMPARE_JSON(back.value()->plan.toJson(), op.plan.toJson());
        QCOMPARE_JSON(back.value()->arguments, op.arguments);
        QCOMPARE(back.value()->status, Operation::Status::Pending);
        QCOMPARE(m_store->pendingOperations().value().size(), 1);
        QVERIFY(!m_store->recordOperation(op).ok()); // the nonce is unique
    }
    void decide_firstDecisionWins()
    {
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n1"))).ok());
        auto first =
            m_store->decide(QStringLiteral("n1"), {Operation::Status::Declined, QStringLiteral("console:a"),
                                                   QStringLiteral("no"), 1});
        QVERIFY(first.ok());
        auto second = m_store->decide(QStringLiteral("n1"),
                                      {Operation::Status::Approved, QStringLiteral("console:b"), {}, 2});
        QVERIFY(second.ok());
        QCOMPARE(second.value().outcome, Operation::Status::Declined);
        QCOMPARE(second.value().by, QStringLiteral("console:a"));
        QCOMPARE(m_store->operation(QStringLiteral("n1")).value()->status, Operation::Status::Declined);
        QVERIFY(!m_store->decide(QStringLiteral("ghost"), {Operation::Status::Approved, {}, {}, 1}).ok());
        QVERIFY(!m_store->decide(QStringLiteral("n1"), {Operation::Status::Allowed, {}, {}, 1}).ok());
    }
    void claim_isUnique_andKeepsTheResult()
    {
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n1"))).ok());
        QCOMPARE(m_store->claim(QStringLiteral("n1")).value(), true);
        QCOMPARE(m_store->claim(QStringLiteral("n1")).value(), false);
        QCOMPARE(m_store->claimOf(QStringLiteral("n1")).value()->finishedMs, 0);
        const json result = {{"content", json::array()}};
        QVERIFY(m_store->finishClaim(QStringLiteral("n1"), result).ok());
        QVERIFY(!m_store->finishClaim(QStringLiteral("n1"), result).ok()); // once
        QCOMPARE_JSON(m_store->claimOf(QStringLiteral("n1")).value()->result, result);
    }
    void chain_detectsAnAlteredRow()
    {
        for (const char *n : {"n1", "n2", "n3"})
            QVERIFY(m_store->recordOperation(pending(QLatin1String(n))).ok());
        QVERIFY(m_store
                    ->decide(QStringLiteral("n2"), {Operation::Status::Declined, QStringLiteral("console:a"),
                                                    QStringLiteral("risky"), 1})
                    .ok());
        auto intact = m_store->verifyChain();
        QCOMPARE(intact.value().rows, 4);
        QCOMPARE(intact.value().firstBrokenSeq, 0);
        // Someone rewrites the decline as an approval, straight in SQLite.
        QVERIFY(
            m_db->exec("UPDATE audit_log SET detail = replace(detail, 'risky', 'fine') WHERE seq = 4").ok());
        auto broken = m_store->verifyChain();
        QCOMPARE(broken.value().firstBrokenSeq, 4);
        QVERIFY(broken.value().problem.contains(QLatin1String("altered")));
    }
    void chain_detectsADeletedRow()
    {
        for (const char *n : {"n1", "n2", "n3"})
            QVERIFY(m_store->recordOperation(pending(QLatin1String(n))).ok());
        QVERIFY(m_db->exec("DELETE FROM audit_log WHERE seq = 2").ok());
        auto broken = m_store->verifyChain();
        QCOMPARE(broken.value().firstBrokenSeq, 3);
        QVERIFY(broken.value().problem.contains(QLatin1String("missing")));
    }
    void chain_rehashedRow_breaksTheNextLink()
    {
        for (const char *n : {"n1", "n2"})
            QVERIFY(m_store->recordOperation(pending(QLatin1String(n))).ok());
        // Recomputing the altered row's own hash does not help: the next row links to the old one.
        QVERIFY(m_db->exec("UPDATE audit_log SET hash = 'ab' WHERE seq = 1").ok());
        auto broken = m_store->verifyChain();
        QCOMPARE(broken.value().firstBrokenSeq, 1);
    }
    void interruptedRuns_areReportedOnce_andTheChainHolds()
    {
        for (const char *nonce : {"done", "cut", "notrun"})
            QVERIFY(m_store->recordOperation(pending(QString::fromLatin1(nonce))).ok());
        QVERIFY(m_store->claim(QStringLiteral("done")).value());
        QVERIFY(m_store->finishClaim(QStringLiteral("done"), {{"content", json::array()}}).ok());
        m_clock.advance(1000);
        QVERIFY(m_store->claim(QStringLiteral("cut")).value()); // and then the process died
        auto found = m_store->reportInterrupted();
        QVERIFY(found.ok());
        QCOMPARE(found.value().size(), 1);
        QCOMPARE(found.value().first().nonce, QStringLiteral("cut"));
        QCOMPARE(found.value().first().tool, QStringLiteral("delete_service"));
        QCOMPARE(found.value().first().target, QStringLiteral("web-1"));
        QCOMPARE(found.value().first().claimedMs, m_clock.nowMs());
        QVERIFY(m_store->reportInterrupted().value().isEmpty()); // reported once
        QCOMPARE(m_store->claimOf(QStringLiteral("cut")).value()->finishedMs,
                 0); // still unknown, not finished
        QCOMPARE(m_store->verifyChain().value().firstBrokenSeq, 0);
    }
    void readOnlyOpen_readsTheLog_writesNothing()
    {
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n1"))).ok());
        auto db = Database::open(dbPath(), Database::Access::ReadOnly);
        QVERIFY2(db.ok(), db.ok() ? "" : qPrintable(db.error()));
        AuditStore reader(*db.value(), m_clock);
        QCOMPARE(reader.report(false).value().size(), 1);
        QCOMPARE(reader.verifyChain().value().firstBrokenSeq, 0);
        const auto refused = reader.decide(QStringLiteral("n1"),
                                           {Operation::Status::Approved, QStringLiteral("console:a"), {}, 1});
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QLatin1String("readonly")), qPrintable(refused.error()));
        QVERIFY(!m_store->decision(QStringLiteral("n1")).value());
    }
    void readOnlyOpen_ofAnOlderSchema_isRefusedWithTheReason()
    {
        QVERIFY(m_db->exec("PRAGMA user_version = 2").ok());
        auto db = Database::open(dbPath(), Database::Access::ReadOnly);
        QVERIFY(!db.ok());
        QVERIFY2(db.error().contains(QLatin1String("its schema is 2, this build reads")),
                 qPrintable(db.error()));
        QVERIFY(
            !Database::open(m_dir.filePath(QStringLiteral("missing.db")), Database::Access::ReadOnly).ok());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("missing.db")))); // not created
    }
    void twoConnections_appendOneChain()
    {
        // The console and the server each have a connection to the same file.
        auto otherDb = Database::open(dbPath());
        QVERIFY(otherDb.ok());
        FakeClock otherClock;
        AuditStore other(*otherDb.value(), otherClock);
        QThread *writer = QThread::create([this] {
            auto db = Database::open(dbPath());
            FakeClock clock;
            AuditStore store(*db.value(), clock);
            for (int i = 0; i < 50; ++i) {
                Operation op = pending(QStringLiteral("t%1").arg(i));
                if (!store.recordOperation(op).ok())
                    qFatal("writer thread failed");
            }
        });
        writer->start();
        for (int i = 0; i < 50; ++i)
            QVERIFY(other.recordOperation(pending(QStringLiteral("m%1").arg(i))).ok());
        writer->wait();
        delete writer;
        auto report = m_store->verifyChain();
        QCOMPARE(report.value().rows, 100);
        QCOMPARE(report.value().firstBrokenSeq, 0);
    }
    void report_andCsv_showDecisionsAndOutcomes()
    {
        Operation a = pending(QStringLiteral("n1"));
        a.clientInfo = {{"name", "=HYPERLINK(\"x\")"}};
        QVERIFY(m_store->recordOperation(a).ok());
        QVERIFY(m_store
                    ->decide(QStringLiteral("n1"), {Operation::Status::Declined, QStringLiteral("console:a"),
                                                    QStringLiteral("no, \"never\""), 5})
                    .ok());
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n2"))).ok());
        QVERIFY(m_store
                    ->decide(QStringLiteral("n2"),
                             {Operation::Status::Approved, QStringLiteral("console:a"), {}, 6})
                    .ok());
        QVERIFY(m_store->claim(QStringLiteral("n2")).value());
        auto rows = m_store->report(false);
        QCOMPARE(rows.value().size(), 2);
        QCOMPARE_JSON(rows.value()[0].at("decision"), json("declined"));
        QCOMPARE_JSON(rows.value()[0].at("outcome"), json("not run"));
        QCOMPARE_JSON(rows.value()[1].at("outcome"),
                      json("unknown (no end recorded: still running, or interrupted)"));
        const QByteArray csv = AuditExport::csv(rows.value());
        const QList<QByteArray> lines = csv.split('\n');
        QVERIFY(lines[0].startsWith("time,id,connection,client,tool,targets"));
        QVERIFY2(lines[1].contains(",\"'=HYPERLINK(\"\"x\"\")\",delete_service,web-1,"),
                 lines[1].constData());
        QVERIFY2(lines[1].contains(",\"no, \"\"never\"\"\","), lines[1].constData());
        const json parsed = json::parse(AuditExport::json(rows.value()).toStdString());
        QCOMPARE(parsed.size(), 2u);
    }
};

QTEST_GUILESS_MAIN(AuditStoreTest)
#include "auditstore_test.moc"
