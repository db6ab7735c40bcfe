// The audit store on SQLite and on PostgreSQL: operations, decisions (first wins, review rules),
// claims, the chain and its checks, read-only opens, replacement, reports. Its writes are in
// writetransaction_test.
#include "auditstorefixture.h"
#include "postgresurl.h"

#include <QTest>

class AuditStoreTest : public QObject, protected AuditStoreFixture
{
    Q_OBJECT

public:
    explicit AuditStoreTest(bool postgres) : AuditStoreFixture(postgres) {}

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void postgresUrl_malformedOrUnreachable_isAClearError_withoutThePassword()
    {
        if (m_postgres)
            QSKIP("needs no server: run once");
        const auto refused = [](const QString &url) {
            auto db = Database::open(url);
            return db.ok() ? QString() : db.error();
        };
        const QString unreachable = refused(QStringLiteral("postgresql://agent:s3cret@127.0.0.1:1/team"));
        QVERIFY2(unreachable.contains(
                     QLatin1String("cannot open the PostgreSQL store postgresql://agent@127.0.0.1:1/team")),
                 qPrintable(unreachable));
        QVERIFY(!unreachable.contains(QLatin1String("s3cret")));
        const QString option =
            refused(QStringLiteral("postgresql://agent@127.0.0.1/team?options=-c%20log_statement%3Dall"));
        QVERIFY2(option.contains(QLatin1String("the option options is not one Countersign passes on")),
                 qPrintable(option));
        QVERIFY(!refused(QStringLiteral("postgresql:///nohost")).isEmpty());
        QCOMPARE(PostgresUrl::display(QStringLiteral("postgres://a:b@h:5/d")),
                 QStringLiteral("postgres://a@h:5/d"));
        QVERIFY(!PostgresUrl::names(QStringLiteral("/home/a/postgresql://x.db")));
    }

    // A team's review rules, held by the store under its write lock whichever console approves.
    void twoPeople_firstApprovalWaits_secondDecides_byBoth()
    {
        Operation op = pending(QStringLiteral("two"));
        op.review.people = 2;
        op.instance = QStringLiteral("desk-a");
        QVERIFY(m_store->recordOperation(op).ok());
        const Decision alice{Operation::Status::Approved, QStringLiteral("console:alice"), {}, 10};
        auto first = m_store->decide(op.nonce, alice);
        QVERIFY2(first.ok(), qPrintable(first.ok() ? QString() : first.error()));
        QCOMPARE(first.value().outcome, Operation::Status::Pending);
        QVERIFY(!m_store->decision(op.nonce).value().has_value());
        QCOMPARE(m_store->claim(op.nonce).value(), false); // nothing may run on half the approvals
        // The same person twice is still one person.
        auto again = m_store->decide(op.nonce, alice);
        QVERIFY(!again.ok());
        QVERIFY2(again.error().contains(QLatin1String("approved it already")), qPrintable(again.error()));
        auto stored = m_store->operation(op.nonce);
        QCOMPARE(stored.value()->review.approvedBy, QStringList{QStringLiteral("console:alice")});
        QCOMPARE(stored.value()->instance, QStringLiteral("desk-a"));
        QCOMPARE(m_store->pendingOperations().value().first().review.approvedBy,
                 QStringList{QStringLiteral("console:alice")});
        auto second =
            m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:bob"), {}, 20});
        QVERIFY(second.ok());
        QCOMPARE(second.value().outcome, Operation::Status::Approved);
        QCOMPARE(second.value().by, QStringLiteral("console:alice, console:bob"));
        QVERIFY(m_store->verifiedDecision(op.nonce).ok());
        QCOMPARE(m_store->claim(op.nonce).value(), true);
        auto report = m_store->verifyChain(m_signer.publicKey());
        QVERIFY2(report.ok() && report.value().firstBrokenSeq == 0,
                 qPrintable(report.ok() ? report.value().problem : report.error()));
    }

    void twoPeople_aDeclineByAnyoneDecides()
    {
        Operation op = pending(QStringLiteral("two-declined"));
        op.review.people = 2;
        QVERIFY(m_store->recordOperation(op).ok());
        QVERIFY(
            m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:alice"), {}, 10})
                .ok());
        auto declined =
            m_store->decide(op.nonce, {Operation::Status::Declined, QStringLiteral("console:bob"), {}, 20});
        QVERIFY(declined.ok());
        QCOMPARE(declined.value().outcome, Operation::Status::Declined);
        QVERIFY(!m_store->claim(op.nonce).value());
    }

    void ownerBarred_theOwnerMayDeclineButNotApprove()
    {
        Operation op = pending(QStringLiteral("own"));
        op.review.ownerBarred = true;
        op.review.owner = QStringLiteral("alice");
        QVERIFY(m_store->recordOperation(op).ok());
        auto own =
            m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:alice"), {}, 10});
        QVERIFY(!own.ok());
        QVERIFY2(own.error().contains(QLatin1String("your own connection")), qPrintable(own.error()));
        // A typed confirmation in the client is the caller's own connection approving.
        QVERIFY(
            !m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("client:agent"), {}, 11})
                 .ok());
        QVERIFY(!m_store->decision(op.nonce).value().has_value());
        QCOMPARE(count("SELECT COUNT(*) FROM audit_log WHERE event = 'approved'"), 0);
        QVERIFY(
            m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:bob"), {}, 12})
                .ok());
        QCOMPARE(m_store->decision(op.nonce).value()->by, QStringLiteral("console:bob"));
        Operation mine = pending(QStringLiteral("own-declined"));
        mine.review = op.review;
        QVERIFY(m_store->recordOperation(mine).ok());
        QVERIFY(
            m_store
                ->decide(mine.nonce, {Operation::Status::Declined, QStringLiteral("console:alice"), {}, 13})
                .ok());
    }

    void ownerBarred_withNoOwnerOnRecord_noOneMayApprove()
    {
        Operation op = pending(QStringLiteral("unowned"));
        op.review.ownerBarred = true;
        QVERIFY(m_store->recordOperation(op).ok());
        auto refused =
            m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:bob"), {}, 10});
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QLatin1String("no owner on record")), qPrintable(refused.error()));
        QVERIFY(
            m_store->decide(op.nonce, {Operation::Status::Declined, QStringLiteral("console:bob"), {}, 11})
                .ok());
    }

    void twoPeople_approvalsThroughTwoConnections_decideOnce()
    {
        // Two consoles (two connections to one store) approve one after the other: the first
        // approval is recorded, the second completes it.
        Operation op = pending(QStringLiteral("race"));
        op.review.people = 2;
        QVERIFY(m_store->recordOperation(op).ok());
        auto otherDb = Database::open(dbPath());
        QVERIFY(otherDb.ok());
        AuditStore other(*otherDb.value(), m_clock, &m_signer);
        auto a =
            m_store->decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:alice"), {}, 10});
        auto b = other.decide(op.nonce, {Operation::Status::Approved, QStringLiteral("console:bob"), {}, 11});
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a.value().outcome, Operation::Status::Pending);
        QCOMPARE(b.value().outcome, Operation::Status::Approved);
        QCOMPARE(count("SELECT COUNT(*) FROM reviews"), 2);
        QCOMPARE(count("SELECT COUNT(*) FROM decisions"), 1);
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
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("waiting"))).ok());
        QCOMPARE(m_store->claim(QStringLiteral("waiting")).value(), false); // no approval: no run
        QVERIFY(!m_store->claimOf(QStringLiteral("waiting")).value());
        QVERIFY(approved(QStringLiteral("n1")));
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
        auto intact = m_store->verifyChain(m_signer.publicKey());
        QCOMPARE(intact.value().rows, 4);
        QCOMPARE(intact.value().firstBrokenSeq, 0);
        // Someone rewrites the decline as an approval, straight in SQLite.
        QVERIFY(
            m_db->exec("UPDATE audit_log SET detail = replace(detail, 'risky', 'fine') WHERE seq = 4").ok());
        auto broken = m_store->verifyChain(m_signer.publicKey());
        QCOMPARE(broken.value().firstBrokenSeq, 4);
        QVERIFY(broken.value().problem.contains(QLatin1String("altered")));
    }

    void chain_detectsADeletedRow()
    {
        for (const char *n : {"n1", "n2", "n3"})
            QVERIFY(m_store->recordOperation(pending(QLatin1String(n))).ok());
        QVERIFY(m_db->exec("DELETE FROM audit_log WHERE seq = 2").ok());
        auto broken = m_store->verifyChain(m_signer.publicKey());
        QCOMPARE(broken.value().firstBrokenSeq, 3);
        QVERIFY(broken.value().problem.contains(QLatin1String("missing")));
    }

    void chain_rehashedRow_breaksTheNextLink()
    {
        for (const char *n : {"n1", "n2"})
            QVERIFY(m_store->recordOperation(pending(QLatin1String(n))).ok());
        // Recomputing the altered row's own hash does not help: the next row links to the old one.
        QVERIFY(m_db->exec("UPDATE audit_log SET hash = 'ab' WHERE seq = 1").ok());
        auto broken = m_store->verifyChain(m_signer.publicKey());
        QCOMPARE(broken.value().firstBrokenSeq, 1);
    }

    void interruptedRuns_areReportedOnce_andTheChainHolds()
    {
        for (const char *nonce : {"done", "cut", "notrun"})
            QVERIFY(approved(QString::fromLatin1(nonce)));
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
        QCOMPARE(m_store->verifyChain(m_signer.publicKey()).value().firstBrokenSeq, 0);
    }

    void readOnlyOpen_readsTheLog_writesNothing()
    {
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n1"))).ok());
        auto db = Database::open(dbPath(), Database::Access::ReadOnly);
        QVERIFY2(db.ok(), db.ok() ? "" : qPrintable(db.error()));
        AuditStore reader(*db.value(), m_clock, &m_signer); // a key, so only the file can refuse
        QCOMPARE(reader.report(false).value().size(), 1);
        QCOMPARE(reader.verifyChain(m_signer.publicKey()).value().firstBrokenSeq, 0);
        const auto refused = reader.decide(QStringLiteral("n1"),
                                           {Operation::Status::Approved, QStringLiteral("console:a"), {}, 1});
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QLatin1String("readonly")) ||
                     refused.error().contains(QLatin1String("read-only")),
                 qPrintable(refused.error()));
        QVERIFY(!m_store->decision(QStringLiteral("n1")).value());
    }

    void readOnlyOpen_ofAnOlderSchema_isRefusedWithTheReason()
    {
        QVERIFY(
            m_db->exec(m_postgres ? "UPDATE countersign_schema SET version = 2" : "PRAGMA user_version = 2")
                .ok());
        auto db = Database::open(dbPath(), Database::Access::ReadOnly);
        QVERIFY(!db.ok());
        QVERIFY2(db.error().contains(QLatin1String("its schema is 2, this build reads")),
                 qPrintable(db.error()));
        if (m_postgres)
            return;
        QVERIFY(
            !Database::open(m_dir.filePath(QStringLiteral("missing.db")), Database::Access::ReadOnly).ok());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("missing.db")))); // not created
    }

    void operationRecords_pendingCount_countsUnexpiredCardsOfThatConnection()
    {
        Operation soon = pending(QStringLiteral("soon"));
        soon.expiresMs = m_clock.nowMs() + 1000;
        Operation other = pending(QStringLiteral("other"));
        other.principal = QStringLiteral("someone-else");
        for (const Operation &op : {pending(QStringLiteral("n1")), soon, other})
            QVERIFY(m_store->recordOperation(op).ok());
        QCOMPARE(m_store->pendingCount(QStringLiteral("agent")).value(), 2);
        m_clock.advance(1000);
        QCOMPARE(m_store->pendingCount(QStringLiteral("agent")).value(), 1);
        OperationRecords records(*m_db);
        QCOMPARE(records.pendingCount(QStringLiteral("agent"), m_clock.nowMs() - 1000).value(), 2);
        QCOMPARE(records.isPending(QStringLiteral("n1")).value(), true);
        QVERIFY(!records.isPending(QStringLiteral("ghost")).ok());
        QCOMPARE(records.pending().value().size(), 3);
    }

    void operationRecords_readsEveryField()
    {
        Operation op = pending(QStringLiteral("n1"));
        op.approvalMode = ApprovalMode::Client;
        op.traceparent = QStringLiteral("00-trace-01");
        op.supersedes = QStringLiteral("n0");
        op.plan.risk = Risk::High;
        QVERIFY(m_store->recordOperation(op).ok());
        const Operation back = *OperationRecords(*m_db).find(QStringLiteral("n1")).value();
        QCOMPARE(back.nonce, op.nonce);
        QCOMPARE(back.tool, op.tool);
        QCOMPARE(back.principal, op.principal);
        QCOMPARE_JSON(back.clientInfo, op.clientInfo);
        QCOMPARE(back.argsDigest, op.argsDigest);
        QCOMPARE(back.planDigest, op.planDigest);
        QCOMPARE(back.plan.risk, Risk::High);
        QCOMPARE(back.approvalMode, ApprovalMode::Client);
        QCOMPARE(back.rule, op.rule);
        QCOMPARE(back.traceparent, op.traceparent);
        QCOMPARE(back.createdMs, op.createdMs);
        QCOMPARE(back.expiresMs, op.expiresMs);
        QCOMPARE(back.supersedes, op.supersedes);
        QCOMPARE(back.status, Operation::Status::Pending);
        QVERIFY(m_db->exec("UPDATE operations SET status = 'lost' WHERE nonce = 'n1'").ok());
        QVERIFY(!m_store->operation(QStringLiteral("n1")).ok());
    }

    void replace_onlyUnclaimedPendingOrApproved_once_andAudited()
    {
        for (const char *n : {"n1", "n2", "n5"})
            QVERIFY(m_store->recordOperation(pending(QLatin1String(n))).ok());
        QVERIFY(m_store
                    ->decide(QStringLiteral("n2"),
                             {Operation::Status::Declined, QStringLiteral("console:a"), {}, 1})
                    .ok());
        QVERIFY(m_store
                    ->decide(QStringLiteral("n5"),
                             {Operation::Status::Approved, QStringLiteral("console:a"), {}, 1})
                    .ok());
        QVERIFY(m_store->claim(QStringLiteral("n5")).value());
        const auto replacement = [this](const char *nonce, const char *of) {
            Operation op = pending(QLatin1String(nonce));
            op.supersedes = QLatin1String(of);
            return op;
        };
        QCOMPARE(m_store->replace(replacement("n3", "n1")).value(), true);
        QCOMPARE(m_store->replace(replacement("n4", "n1")).value(), false); // replaced once only
        QCOMPARE(m_store->replace(replacement("n6", "n2")).value(), false); // declined: stays so
        QCOMPARE(m_store->replace(replacement("n7", "n5")).value(), false); // claimed: its run stands
        QCOMPARE(m_store->operation(QStringLiteral("n1")).value()->status, Operation::Status::Superseded);
        QCOMPARE(m_store->operation(QStringLiteral("n2")).value()->status, Operation::Status::Declined);
        QCOMPARE(m_store->operation(QStringLiteral("n5")).value()->status, Operation::Status::Approved);
        for (const char *never : {"n4", "n6", "n7"})
            QVERIFY(!m_store->operation(QLatin1String(never)).value());
        QCOMPARE(m_store->replacementOf(QStringLiteral("n1")).value(), QStringLiteral("n3"));
        QCOMPARE(count("SELECT COUNT(*) FROM audit_log WHERE event = 'superseded'"), 1);
        QVERIFY(m_store->verifyChain(m_signer.publicKey()).value().problem.isEmpty());
    }

    void claimRecords_finishOnce_andOnlyWhatWasClaimed()
    {
        QVERIFY(approved(QStringLiteral("n1")));
        ClaimRecords claims(*m_db);
        WriteTransaction transaction(*m_db);
        QCOMPARE(claims.insert(transaction, QStringLiteral("n1"), 7, QString()).value(), true);
        QCOMPARE(claims.insert(transaction, QStringLiteral("n1"), 8, QString()).value(), false);
        QCOMPARE(claims.finish(transaction, QStringLiteral("ghost"), 9, json::object()).value(), false);
        QCOMPARE(claims.finish(transaction, QStringLiteral("n1"), 9, {{"isError", true}}).value(), true);
        QCOMPARE(claims.finish(transaction, QStringLiteral("n1"), 10, json::object()).value(), false);
        QVERIFY(transaction.commit().ok());
        const Claim claim = *claims.find(QStringLiteral("n1")).value();
        QCOMPARE(claim.claimedMs, 7);
        QCOMPARE(claim.finishedMs, 9);
        QCOMPARE_JSON(claim.result, json({{"isError", true}}));
        QVERIFY(!claims.find(QStringLiteral("ghost")).value());
        QVERIFY(claims.interruptedUnreported(0).value().isEmpty());
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
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n3"))).ok());
        auto rows = m_store->report(false);
        QCOMPARE(rows.value().size(), 3);
        QCOMPARE_JSON(rows.value()[2].at("outcome"), json("waiting")); // undecided: not "not run"
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
        QCOMPARE(parsed.size(), 3u);
    }
};

int main(int argc, char **argv)
{
    return runOnBothStores<AuditStoreTest>(argc, argv);
}
#include "auditstore_test.moc"
