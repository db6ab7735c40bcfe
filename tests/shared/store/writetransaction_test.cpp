// The store's writes on SQLite and on PostgreSQL: WriteTransaction (rolled back unless committed, relaxed
// durability its own, a dropped connection, a failed BEGIN or COMMIT), the audit chain each write extends,
// and a write whose audit row fails.
#include "auditstorefixture.h"

#include <QTest>

class WriteTransactionTest : public QObject, protected AuditStoreFixture
{
    Q_OBJECT

public:
    explicit WriteTransactionTest(bool postgres) : AuditStoreFixture(postgres) {}

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void twoConnections_appendOneChain()
    {
        // The console and the server each have a connection to the same file.
        auto otherDb = Database::open(dbPath());
        QVERIFY(otherDb.ok());
        FakeClock otherClock;
        AuditStore other(*otherDb.value(), otherClock, &m_signer);
        QString writerError; // written by the writer thread, read after wait()
        QThread *writer = QThread::create([this, &writerError] {
            auto db = Database::open(dbPath());
            if (!db) {
                writerError = db.error();
                return;
            }
            FakeClock clock;
            AuditStore store(*db.value(), clock, &m_signer);
            for (int i = 0; i < 50 && writerError.isEmpty(); ++i) {
                if (auto recorded = store.recordOperation(pending(QStringLiteral("t%1").arg(i))); !recorded)
                    writerError = recorded.error();
            }
        });
        writer->start();
        for (int i = 0; i < 50; ++i)
            QVERIFY(other.recordOperation(pending(QStringLiteral("m%1").arg(i))).ok());
        writer->wait();
        delete writer;
        QVERIFY2(writerError.isEmpty(), qPrintable(writerError));
        auto report = m_store->verifyChain(m_signer.publicKey());
        QCOMPARE(report.value().rows, 100);
        QCOMPARE(report.value().firstBrokenSeq, 0);
    }

    void writeTransaction_rollsBack_unlessCommitted()
    {
        {
            WriteTransaction transaction(*m_db);
            QVERIFY(transaction.begun().ok());
            QVERIFY(transaction.isOpen());
            QVERIFY(m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('a', 'h1', 1)")
                        .ok());
        }
        QCOMPARE(count("SELECT COUNT(*) FROM connections"), 0);
        {
            WriteTransaction transaction(*m_db);
            QVERIFY(m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('b', 'h2', 1)")
                        .ok());
            QVERIFY(transaction.commit().ok());
            QVERIFY(!transaction.isOpen());
            QVERIFY(!transaction.commit().ok()); // once
        }
        QCOMPARE(count("SELECT COUNT(*) FROM connections"), 1);
    }

    void writeTransaction_relaxed_relaxesOnlyItsOwnCommit()
    {
        if (m_postgres) {
            const auto synchronous = [this] {
                auto q = m_db->exec("SHOW synchronous_commit");
                return q.ok() && q.value().next() ? q.value().value(0).toString() : QString();
            };
            QCOMPARE(synchronous(), QStringLiteral("on"));
            {
                WriteTransaction transaction(*m_db, Durability::Relaxed);
                QCOMPARE(synchronous(), QStringLiteral("off")); // SET LOCAL: this transaction's only
                QVERIFY(
                    m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('a', 'h1', 1)")
                        .ok());
                QVERIFY(transaction.commit().ok());
            }
            QCOMPARE(synchronous(), QStringLiteral("on"));
            QCOMPARE(count("SELECT COUNT(*) FROM connections"), 1);
            return;
        }
        const auto synchronous = [this] { return count("PRAGMA synchronous"); };
        QCOMPARE(synchronous(), 2); // FULL: an fsync per commit
        {
            WriteTransaction transaction(*m_db, Durability::Relaxed);
            QVERIFY(transaction.begun().ok());
            QCOMPARE(synchronous(), 1); // NORMAL
            QVERIFY(m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('a', 'h1', 1)")
                        .ok());
            QVERIFY(transaction.commit().ok());
            QCOMPARE(synchronous(), 2);
        }
        QCOMPARE(count("SELECT COUNT(*) FROM connections"), 1);
        {
            WriteTransaction rolledBack(*m_db, Durability::Relaxed);
            QCOMPARE(synchronous(), 1);
        }
        QCOMPARE(synchronous(), 2);
        {
            WriteTransaction outer(*m_db);
            WriteTransaction inner(*m_db, Durability::Relaxed); // may not change it inside another
            QVERIFY(!inner.begun().ok());
            QCOMPARE(synchronous(), 2);
            QVERIFY(outer.commit().ok());
        }
        QCOMPARE(synchronous(), 2);
    }

    // A connection dropped inside a write transaction (the server restarted) is not reopened for
    // that transaction's statements: they would run one by one without it, and its lock.
    void writeTransaction_onADroppedConnection_failsWhole_andTheNextOneReconnects()
    {
        if (!m_postgres)
            QSKIP("PostgreSQL's case: a SQLite file has no connection to drop");
        auto pid = m_db->exec("SELECT pg_backend_pid()");
        QVERIFY(pid.ok() && pid.value().next());
        const qint64 backend = pid.value().value(0).toLongLong();
        auto killer = Database::open(dbPath());
        QVERIFY(killer.ok());
        {
            WriteTransaction transaction(*m_db);
            QVERIFY(transaction.begun().ok());
            QVERIFY(killer.value()->exec("SELECT pg_terminate_backend(?)", {backend}).ok());
            QVERIFY(
                !m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('a', 'h1', 1)")
                     .ok());
            QVERIFY(
                !m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('b', 'h2', 1)")
                     .ok());
            QVERIFY(!transaction.commit().ok());
        }
        QCOMPARE(count("SELECT COUNT(*) FROM connections"), 0); // reconnected, and nothing was written
        WriteTransaction next(*m_db);
        QVERIFY2(next.begun().ok(), qPrintable(next.begun().ok() ? QString() : next.begun().error()));
    }

    void writeTransaction_thatDidNotBegin_leavesTheOpenOneAlone()
    {
        WriteTransaction outer(*m_db);
        QVERIFY(outer.begun().ok());
        QVERIFY(
            m_db->exec("INSERT INTO connections (name, token_hash, created_ms) VALUES ('a', 'h1', 1)").ok());
        {
            WriteTransaction inner(*m_db); // SQLite does not nest transactions
            QVERIFY(!inner.begun().ok());
            QVERIFY2(inner.begun().error().contains(QLatin1String("within a transaction")),
                     qPrintable(inner.begun().error()));
            QVERIFY(!inner.isOpen());
            QCOMPARE(inner.commit().error(), inner.begun().error());
        } // must not roll back the outer transaction
        QVERIFY(outer.commit().ok());
        QCOMPARE(count("SELECT COUNT(*) FROM connections"), 1);
    }

    void writeTransaction_whoseCommitFails_isRolledBack()
    {
        if (m_postgres)
            QSKIP("SQLite's own case: its deferred foreign keys fail at COMMIT; PostgreSQL checks these at "
                  "once");
        {
            WriteTransaction transaction(*m_db);
            // A claim on no operation breaks a foreign key; deferred, that is found at COMMIT.
            QVERIFY(m_db->exec("PRAGMA defer_foreign_keys = ON").ok());
            QVERIFY(m_db->exec("INSERT INTO claims (nonce, claimed_ms) VALUES ('ghost', 1)").ok());
            const Status committed = transaction.commit();
            QVERIFY(!committed.ok());
            QVERIFY2(committed.error().contains(QLatin1String("FOREIGN KEY")), qPrintable(committed.error()));
            QVERIFY(transaction.isOpen());
        }
        QCOMPARE(count("SELECT COUNT(*) FROM claims"), 0);
        WriteTransaction next(*m_db); // the failed one is over
        QVERIFY(next.begun().ok());
    }

    void auditChain_linksEachRowToThePrevious()
    {
        AuditChain chain(*m_db, m_clock);
        {
            WriteTransaction transaction(*m_db);
            QVERIFY(chain.append(transaction, QStringLiteral("one"), QStringLiteral("n1"), {{"k", 1}}).ok());
            m_clock.advance(5);
            QVERIFY(chain.append(transaction, QStringLiteral("two"), QString(), json::object()).ok());
            QVERIFY(chain.signHead(transaction, m_signer).ok());
            QVERIFY(transaction.commit().ok());
        }
        auto rows =
            m_db->exec("SELECT seq, at_ms, event, nonce, prev_hash, hash FROM audit_log ORDER BY seq");
        QVERIFY(rows.ok());
        QSqlQuery &q = rows.value();
        QVERIFY(q.next());
        QCOMPARE(q.value("prev_hash").toString(), QLatin1String(AuditChain::kGenesisHash));
        const QString first = q.value("hash").toString();
        QCOMPARE(first.size(), 64);
        QVERIFY(q.next());
        QCOMPARE(q.value("seq").toLongLong(), 2);
        QCOMPARE(q.value("at_ms").toLongLong(), m_clock.nowMs());
        QCOMPARE(q.value("event").toString(), QStringLiteral("two"));
        QCOMPARE(q.value("nonce").toString(), QString("")); // a null nonce is stored as empty
        QCOMPARE(q.value("prev_hash").toString(), first);
        auto report = chain.verify(m_signer.publicKey());
        QCOMPARE(report.value().rows, 2);
        QCOMPARE(report.value().firstBrokenSeq, 0);
    }

    void auditChain_rowsOfARolledBackTransaction_leaveNoGap()
    {
        AuditChain chain(*m_db, m_clock);
        {
            WriteTransaction transaction(*m_db);
            QVERIFY(chain.append(transaction, QStringLiteral("lost"), QStringLiteral("n1"), {}).ok());
        }
        {
            WriteTransaction transaction(*m_db);
            QVERIFY(chain.append(transaction, QStringLiteral("kept"), QStringLiteral("n2"), {}).ok());
            QVERIFY(chain.signHead(transaction, m_signer).ok());
            QVERIFY(transaction.commit().ok());
        }
        QCOMPARE(count("SELECT MAX(seq) FROM audit_log"), 1);
        QCOMPARE(chain.verify(m_signer.publicKey()).value().firstBrokenSeq, 0);
    }

    void auditChain_detailThatIsNotJson_breaksTheChain()
    {
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n1"))).ok());
        QVERIFY(m_db->exec("UPDATE audit_log SET detail = '{not json' WHERE seq = 1").ok());
        auto broken = AuditChain(*m_db, m_clock).verify(m_signer.publicKey());
        QCOMPARE(broken.value().firstBrokenSeq, 1);
        QVERIFY(broken.value().problem.contains(QLatin1String("not JSON")));
    }

    void everyWrite_whoseAuditRowFails_isRolledBack()
    {
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n1"))).ok());
        QVERIFY(m_store->recordOperation(pending(QStringLiteral("n2"))).ok());
        QVERIFY(m_store
                    ->decide(QStringLiteral("n2"),
                             {Operation::Status::Approved, QStringLiteral("console:a"), {}, 1})
                    .ok());
        QVERIFY(m_store->claim(QStringLiteral("n2")).value());
        QVERIFY(approved(QStringLiteral("n5"))); // approved, not yet claimed
        refuseAuditRows();

        const auto recorded = m_store->recordOperation(pending(QStringLiteral("n3")));
        QVERIFY2(!recorded.ok() && recorded.error().contains(QLatin1String("audit row refused")),
                 qPrintable(recorded.ok() ? QString() : recorded.error()));
        QVERIFY(!m_store->operation(QStringLiteral("n3")).value());

        QVERIFY(!m_store
                     ->decide(QStringLiteral("n1"),
                              {Operation::Status::Declined, QStringLiteral("console:a"), {}, 1})
                     .ok());
        QVERIFY(!m_store->decision(QStringLiteral("n1")).value());
        QCOMPARE(m_store->operation(QStringLiteral("n1")).value()->status, Operation::Status::Pending);

        Operation replacing = pending(QStringLiteral("n4"));
        replacing.supersedes = QStringLiteral("n1");
        QVERIFY(!m_store->replace(replacing).ok());
        QCOMPARE(m_store->operation(QStringLiteral("n1")).value()->status, Operation::Status::Pending);

        QVERIFY(!m_store->claim(QStringLiteral("n5")).ok());
        QVERIFY(!m_store->claimOf(QStringLiteral("n5")).value());

        QVERIFY(!m_store->finishClaim(QStringLiteral("n2"), json::object()).ok());
        QCOMPARE(m_store->claimOf(QStringLiteral("n2")).value()->finishedMs, 0);

        QVERIFY(!m_store->reportInterrupted().ok());

        allowAuditRows();
        QCOMPARE(m_store->reportInterrupted().value().size(), 1); // not reported by the failed call
        QVERIFY(m_store->claim(QStringLiteral("n5")).value());
        QCOMPARE(m_store->verifyChain(m_signer.publicKey()).value().rows, 8);
        QCOMPARE(m_store->verifyChain(m_signer.publicKey()).value().firstBrokenSeq, 0);
    }
};

int main(int argc, char **argv)
{
    return runOnBothStores<WriteTransactionTest>(argc, argv);
}
#include "writetransaction_test.moc"
