#pragma once

// The fixture the store's tests share (auditstore_test, writetransaction_test): each test on a store of
// its own, SQLite, then again on PostgreSQL when COUNTERSIGN_TEST_POSTGRES names a server
// (runOnBothStores; a database per test program, so that two run at once); the few that test one
// engine's own behaviour say so.
#include "auditchain.h"
#include "auditexport.h"
#include "auditstore.h"
#include "canonicaljson.h"
#include "claimrecords.h"
#include "database.h"
#include "fakeclock.h"
#include "helperfailure.h"
#include "jsoncompare.h"
#include "operationrecords.h"
#include "receipt.h"
#include "teststore.h"
#include "writetransaction.h"
#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cstdio>

using namespace Countersign;
using json = nlohmann::json;

// Every test runs on SQLite, then again on PostgreSQL when COUNTERSIGN_TEST_POSTGRES names a server
// (main() below); the few that test one engine's own behaviour say so.

class AuditStoreFixture
{
public:
    explicit AuditStoreFixture(bool postgres) : m_postgres(postgres) {}

protected:
    const bool m_postgres;
    QString m_location; // this test's database: a file, or a PostgreSQL URL
    QTemporaryDir m_dir;
    FakeClock m_clock;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
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
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Delete web-1");
        op.plan.prompt = QStringLiteral("Delete service web-1?");
        op.plan.targets = {QStringLiteral("web-1")};
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = m_clock.nowMs();
        op.expiresMs = op.createdMs + 300'000;
        return op;
    }
    // A recorded operation the console approved (what a claim needs).
    [[nodiscard]] bool approved(const QString &nonce)
    {
        if (auto recorded = m_store->recordOperation(pending(nonce)); !recorded)
            return helperFailed(recorded.error());
        if (auto decided =
                m_store->decide(nonce, {Operation::Status::Approved, QStringLiteral("console:a"), {}, 1});
            !decided)
            return helperFailed(decided.error());
        return true;
    }
    QString dbPath() const { return m_location; }
    qint64 count(const char *sql)
    {
        auto q = m_db->exec(sql);
        return q.ok() && q.value().next() ? q.value().value(0).toLongLong() : -1;
    }
    // Every insert into the audit log fails from now on, as it would on a full disk.
    void refuseAuditRows()
    {
        if (m_postgres) {
            QVERIFY(m_db->exec("CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS "
                               "$$ BEGIN RAISE EXCEPTION 'audit row refused'; END $$")
                        .ok());
            QVERIFY(m_db->exec("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW "
                               "EXECUTE FUNCTION refuse_audit()")
                        .ok());
            return;
        }
        QVERIFY(m_db->exec("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log "
                           "BEGIN SELECT RAISE(ABORT, 'audit row refused'); END")
                    .ok());
    }
    void allowAuditRows()
    {
        QVERIFY(
            m_db->exec(m_postgres ? "DROP TRIGGER refuse_audit ON audit_log" : "DROP TRIGGER refuse_audit")
                .ok());
    }

    void setUp()
    {
        if (m_postgres) {
            auto fresh = TestStore::freshPostgres(
                QStringLiteral("countersign_%1").arg(QCoreApplication::applicationName()));
            QVERIFY2(fresh.ok(), qPrintable(fresh.ok() ? QString() : fresh.error()));
            m_location = fresh.value();
        } else {
            m_location = m_dir.filePath(QStringLiteral("%1.db").arg(QTest::currentTestFunction()));
        }
        auto db = Database::open(dbPath());
        QVERIFY2(db.ok(), qPrintable(db.ok() ? QString() : db.error()));
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
    }
    void tearDown()
    {
        m_store.reset();
        m_db.reset();
    }
};

// main() of a store test: the test class on SQLite, then on PostgreSQL when a server is given.
template <typename Test> int runOnBothStores(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Test onSqlite(false);
    int failed = QTest::qExec(&onSqlite, argc, argv);
    if (TestStore::postgresServer().isEmpty()) {
        std::fprintf(stderr, "%s: COUNTERSIGN_TEST_POSTGRES unset: not run on PostgreSQL\n",
                     qPrintable(QCoreApplication::applicationName()));
        return failed;
    }
    Test onPostgres(true);
    failed += QTest::qExec(&onPostgres, argc, argv);
    return failed;
}
