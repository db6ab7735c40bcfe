// Seen for sure (issue 51), in the window offscreen: a card shown while the window is minimised is
// not seen; raised and active, it is, once, recorded in the chain ("card-seen") and said on the card
// and in its audit row; a card no one has seen cardUnseenSeconds after it came is said again, in the
// status bar (with the tray's notice and a sound), once.
#include "cardsightings.h"
#include "mainwindowfixture.h"

#include <QTextBrowser>

class SightingsTest : public QObject, private MainWindowFixture
{
    Q_OBJECT
private:
    std::unique_ptr<CardSightings> m_sightings;
    int seenRows(const QString &nonce)
    {
        return int(m_store->eventsOf(nonce, QStringLiteral("card-seen")).value().size());
    }

private Q_SLOTS:
    void init()
    {
        setUp();
        m_sightings = std::make_unique<CardSightings>(*m_queue, *m_store, m_clock);
        m_window->setSightings(m_sightings.get());
    }
    void cleanup()
    {
        tearDown();
        m_sightings.reset();
    }

    void cardInAMinimisedWindow_isNotSeen_raisedItIs()
    {
        m_window->showMinimized();
        QTRY_VERIFY(m_window->isMinimized());
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-1"));
        QTRY_COMPARE(shownNonce(), op.nonce);
        QTest::qWait(50);
        QCOMPARE(seenRows(op.nonce), 0);
        QVERIFY(!m_sightings->seenOf(op.nonce));
        QCOMPARE(find<QLabel>("cardSeen")->text(), QStringLiteral("Not seen yet"));

        m_clock.advance(4'000);
        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTRY_COMPARE(seenRows(op.nonce), 1);
        const auto seen = m_sightings->seenOf(op.nonce);
        QCOMPARE(seen->where, QStringLiteral("window"));
        QCOMPARE(seen->atMs, m_clock.nowMs());
        QTRY_VERIFY(find<QLabel>("cardSeen")->text().startsWith(QLatin1String("First seen at")));
        QVERIFY(find<QLabel>("cardSeen")->text().endsWith(QLatin1String("in the window")));
        // Shown again (another card and back, the window activated again): still one sighting.
        m_window->activateWindow();
        QTest::qWait(50);
        QCOMPARE(seenRows(op.nonce), 1);
        QVERIFY(m_store->verifyChain(m_signer.publicKey()).ok());
    }

    void unseenCard_isSaidOnce_afterTheDelay()
    {
        m_sightings->setUnseenAfterMs(5'000);
        QSignalSpy unseen(m_sightings.get(), &CardSightings::unseen);
        m_window->showMinimized();
        QTRY_VERIFY(m_window->isMinimized());
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-2"));
        QTest::qWait(1'200);
        QCOMPARE(unseen.count(), 0); // not yet: 5 s
        m_clock.advance(6'000);
        QTRY_COMPARE(unseen.count(), 1);
        QCOMPARE(unseen.first().first().value<Operation>().nonce, op.nonce);
        QVERIFY(m_window->statusBar()->currentMessage().contains(QLatin1String("waited unseen")));
        QTest::qWait(1'200);
        QCOMPARE(unseen.count(), 1); // said once
    }

    // Its time to decide counts from the first sighting: a card sealed for an hour (an unseen
    // card's limit) waits unseen past ttlSeconds; seen, the card counts down ttlSeconds from then,
    // the queue's card carries that deadline, and the queue expires it there, not at the seal.
    void timeToDecide_countsFromTheFirstSighting()
    {
        m_sightings->setTimeToDecideMs(60'000);
        m_window->showMinimized();
        QTRY_VERIFY(m_window->isMinimized());
        m_sealedMs = 3'600'000; // the seal: cardUnseenLimitSeconds
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-4"));
        QTRY_COMPARE(shownNonce(), op.nonce);
        m_clock.advance(120'000); // twice ttlSeconds, unseen
        QTest::qWait(1'200);      // the queue's sweep
        QVERIFY(m_queue->find(op.nonce));
        QCOMPARE(m_queue->find(op.nonce)->decideByMs, 0);

        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTRY_COMPARE(seenRows(op.nonce), 1);
        const qint64 seenAt = m_clock.nowMs();
        QTRY_COMPARE(m_queue->find(op.nonce)->decideByMs, seenAt + 60'000);
        QCOMPARE(m_sightings->seenOf(op.nonce)->decideByMs, seenAt + 60'000);
        QTRY_VERIFY(find<QLabel>("cardCountdown")->text().startsWith(QLatin1String("Expires in 1:00")) ||
                    find<QLabel>("cardCountdown")->text().startsWith(QLatin1String("Expires in 0:59")));

        m_clock.advance(59'000);
        QTest::qWait(1'200);
        QVERIFY(m_queue->find(op.nonce)); // a second left
        m_clock.advance(2'000);
        QTRY_VERIFY(!m_queue->find(op.nonce));
        QCOMPARE(*m_store->status(op.nonce).value(), Operation::Status::Expired);
    }

    void seenCard_isNotSaidUnseen()
    {
        m_sightings->setUnseenAfterMs(5'000);
        QSignalSpy unseen(m_sightings.get(), &CardSightings::unseen);
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-3"));
        QTRY_COMPARE(seenRows(op.nonce), 1); // the window is active: seen at once
        m_clock.advance(6'000);
        QTest::qWait(1'200);
        QCOMPARE(unseen.count(), 0);
    }
};

QTEST_MAIN(SightingsTest)
#include "sightings_test.moc"
