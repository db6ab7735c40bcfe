// 2025-era sessions: bound to the connection that opened them, ended by close() or an hour idle,
// at most kMaxPerConnection per connection (the least recently used goes first).
#include "legacysessions.h"

#include <QTest>

using namespace Countersign;

class LegacySessionsTest : public QObject
{
    Q_OBJECT
private:
    const Principal m_alice{1, QStringLiteral("alice"), {}};
    const Principal m_bob{2, QStringLiteral("bob"), {}};

private Q_SLOTS:
    void aSession_isItsConnectionsOnly_andEndsWhenClosed()
    {
        LegacySessions sessions;
        Envelope envelope;
        envelope.protocolVersion = QStringLiteral("2025-06-18");
        envelope.clientName = QStringLiteral("ide");
        const QByteArray id = sessions.open(m_alice, envelope, 1000);
        QCOMPARE(id.size(), 32);
        QVERIFY(sessions.open(m_alice, envelope, 1000) != id); // each is new
        const auto found = sessions.find(id, m_alice, 2000);
        QVERIFY(found.has_value());
        QCOMPARE(found->protocolVersion, QStringLiteral("2025-06-18"));
        QCOMPARE(found->clientName, QStringLiteral("ide"));
        QVERIFY(!sessions.find(id, m_bob, 2000).has_value());
        QVERIFY(!sessions.close(id, m_bob));
        QVERIFY(sessions.find(id, m_alice, 2000).has_value());
        QVERIFY(sessions.close(id, m_alice));
        QVERIFY(!sessions.find(id, m_alice, 2000).has_value());
        QVERIFY(!sessions.find(QByteArray(32, 'f'), m_alice, 2000).has_value());
    }
    void anIdleSession_expires_aUsedOneLives()
    {
        LegacySessions sessions;
        const QByteArray idle = sessions.open(m_alice, Envelope{}, 0);
        const QByteArray used = sessions.open(m_alice, Envelope{}, 0);
        const qint64 later = LegacySessions::kIdleMs - 1;
        QVERIFY(sessions.find(used, m_alice, later).has_value());
        QVERIFY(sessions.find(used, m_alice, later + LegacySessions::kIdleMs - 1).has_value());
        QVERIFY(!sessions.find(idle, m_alice, later + LegacySessions::kIdleMs - 1).has_value());
    }
    void aConnection_holdsAtMostTheLimit_theLeastRecentlyUsedGoes()
    {
        LegacySessions sessions;
        QList<QByteArray> ids;
        for (int i = 0; i < LegacySessions::kMaxPerConnection; ++i)
            ids.append(sessions.open(m_alice, Envelope{}, i));
        const QByteArray other = sessions.open(m_bob, Envelope{}, 0);
        QVERIFY(sessions.find(ids.first(), m_alice, 100).has_value()); // used again: now the newest
        const QByteArray extra = sessions.open(m_alice, Envelope{}, 101);
        QCOMPARE(sessions.count(), LegacySessions::kMaxPerConnection + 1); // alice's limit, and bob's one
        QVERIFY(sessions.find(extra, m_alice, 102).has_value());
        QVERIFY(sessions.find(ids.first(), m_alice, 102).has_value());
        QVERIFY(!sessions.find(ids.at(1), m_alice, 102).has_value()); // the least recently used
        QVERIFY(sessions.find(other, m_bob, 102).has_value());        // another connection's stays
    }
};

QTEST_GUILESS_MAIN(LegacySessionsTest)
#include "legacysessions_test.moc"
