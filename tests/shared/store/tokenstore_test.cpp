#include "database.h"
#include "fakeclock.h"
#include "tokenstore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

class TokenStoreTest : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<Database> m_db;
    FakeClock m_clock;

private Q_SLOTS:
    void init()
    {
        auto db = Database::open(QStringLiteral(":memory:"));
        QVERIFY(db.ok());
        m_db = std::move(db).value();
    }
    void cleanup() { m_db.reset(); }

    void add_thenAuthenticate_givesThePrincipal()
    {
        TokenStore store(*m_db, m_clock);
        auto token = store.add(QStringLiteral("vscode"), QStringLiteral("alice"));
        QVERIFY(token.ok());
        QVERIFY(token.value().startsWith(QLatin1String("cs_")));
        QVERIFY(token.value().size() > 40);
        auto principal = store.authenticate(token.value().toLatin1());
        QVERIFY(principal.has_value());
        QCOMPARE(principal->name, QStringLiteral("vscode"));
        QCOMPARE(principal->owner, QStringLiteral("alice"));
    }
    void add_recordsTheOwner_andARenewalTakesTheNewOne()
    {
        TokenStore store(*m_db, m_clock);
        QVERIFY(store.add(QStringLiteral("cli"), QStringLiteral("alice")).ok());
        QVERIFY(store.revoke(QStringLiteral("cli")).ok());
        auto renewed = store.add(QStringLiteral("cli"), QStringLiteral("bob"));
        QVERIFY(renewed.ok());
        QCOMPARE(store.authenticate(renewed.value().toLatin1())->owner, QStringLiteral("bob"));
        auto list = store.list();
        QVERIFY(list.ok());
        QCOMPARE(list.value().first().owner, QStringLiteral("bob"));
    }
    void add_withoutOwner_isRefused()
    {
        TokenStore store(*m_db, m_clock);
        QVERIFY(!store.add(QStringLiteral("cli"), QStringLiteral("  ")).ok());
        QVERIFY(!store.add(QStringLiteral("cli"), QString(65, QLatin1Char('a'))).ok());
        QVERIFY(store.list().value().isEmpty());
    }
    void add_storesOnlyTheHash()
    {
        TokenStore store(*m_db, m_clock);
        auto token = store.add(QStringLiteral("a"), QStringLiteral("alice"));
        QVERIFY(token.ok());
        auto q = m_db->exec("SELECT token_hash FROM connections");
        QVERIFY(q.ok() && q.value().next());
        const QString stored = q.value().value(0).toString();
        QVERIFY(!stored.contains(token.value()));
        QCOMPARE(stored.size(), 64);
    }
    void authenticate_unknownOrEmptyToken_isRefused()
    {
        TokenStore store(*m_db, m_clock);
        QVERIFY(store.add(QStringLiteral("a"), QStringLiteral("alice")).ok());
        QVERIFY(!store.authenticate("cs_nope").has_value());
        QVERIFY(!store.authenticate("").has_value());
        QVERIFY(!store.authenticate(QByteArray(1000, 'x')).has_value());
    }
    void revoke_makesTheTokenFail()
    {
        TokenStore store(*m_db, m_clock);
        auto token = store.add(QStringLiteral("cursor"), QStringLiteral("alice"));
        QVERIFY(token.ok());
        QVERIFY(store.revoke(QStringLiteral("cursor")).ok());
        QVERIFY(!store.authenticate(token.value().toLatin1()).has_value());
        QVERIFY(!store.revoke(QStringLiteral("cursor")).ok());
        auto list = store.list();
        QVERIFY(list.ok());
        QCOMPARE(list.value().size(), 1);
        QVERIFY(list.value().first().revokedMs.has_value());
    }
    void add_activeDuplicate_isRefused_revokedOneIsRenewed()
    {
        TokenStore store(*m_db, m_clock);
        auto first = store.add(QStringLiteral("cli"), QStringLiteral("alice"));
        QVERIFY(first.ok());
        QVERIFY(!store.add(QStringLiteral("cli"), QStringLiteral("alice")).ok());
        QVERIFY(store.revoke(QStringLiteral("cli")).ok());
        auto second = store.add(QStringLiteral("cli"), QStringLiteral("alice"));
        QVERIFY(second.ok());
        QVERIFY(second.value() != first.value());
        QVERIFY(store.authenticate(second.value().toLatin1()).has_value());
        QVERIFY(!store.authenticate(first.value().toLatin1()).has_value());
    }
    void add_invalidName_isRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("empty") << QString();
        QTest::newRow("space") << QStringLiteral("a b");
        QTest::newRow("quote") << QStringLiteral("a'b");
        QTest::newRow("leading dash") << QStringLiteral("-a");
        QTest::newRow("too long") << QString(65, QLatin1Char('a'));
    }
    void add_invalidName_isRefused()
    {
        QFETCH(QString, name);
        TokenStore store(*m_db, m_clock);
        QVERIFY(!store.add(name, QStringLiteral("alice")).ok());
    }

    // Tokens are not read from the table on every request, yet a change is seen on the very next
    // one: made by another connection to the same file (another process, the window's thread), or
    // by another TokenStore on this one.
    void aChangeElsewhere_isSeenOnTheVeryNextRequest()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("countersign.db"));
        auto first = Database::open(file);
        QVERIFY(first.ok());
        auto second = Database::open(file);
        QVERIFY(second.ok());
        TokenStore serving(*first.value(), m_clock);
        TokenStore window(*second.value(), m_clock);
        TokenStore sameConnection(*first.value(), m_clock);

        const auto token = window.add(QStringLiteral("agent"), QStringLiteral("alice"));
        QVERIFY(token.ok());
        QVERIFY(serving.authenticate(token.value().toLatin1()).has_value()); // added elsewhere: seen
        for (int i = 0; i < 3; ++i)
            QVERIFY(serving.authenticate(token.value().toLatin1()).has_value()); // read once, kept
        QVERIFY(window.revoke(QStringLiteral("agent")).ok());
        QVERIFY(!serving.authenticate(token.value().toLatin1()).has_value()); // another connection revoked
        QVERIFY(!serving.isActive(1));

        const auto again = sameConnection.add(QStringLiteral("agent"), QStringLiteral("bob"));
        QVERIFY(again.ok());
        QCOMPARE(serving.authenticate(again.value().toLatin1())->owner, QStringLiteral("bob"));
        QVERIFY(sameConnection.revoke(QStringLiteral("agent")).ok());
        QVERIFY(!serving.authenticate(again.value().toLatin1()).has_value()); // this connection revoked
    }
};

QTEST_GUILESS_MAIN(TokenStoreTest)
#include "tokenstore_test.moc"
