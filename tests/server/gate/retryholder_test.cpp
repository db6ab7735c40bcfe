// The retry holder on the test's clock: a hold ends once, when woken or when its window has passed
// on the clock (not on the wall), and a holder that goes drops what it still holds.
#include "fakeclock.h"
#include "retryholder.h"

#include <QTest>

using namespace Countersign;

class RetryHolderTest : public QObject
{
    Q_OBJECT
private:
    FakeClock m_clock;

private Q_SLOTS:
    void hold_endsWhenTheClockPassesItsWindow_notBefore()
    {
        RetryHolder holder(m_clock);
        int resumed = 0;
        holder.hold(QStringLiteral("a"), 1000, [&] { ++resumed; });
        QTest::qWait(50); // wall time passes; the clock does not
        QCOMPARE(resumed, 0);
        m_clock.advance(999);
        QCOMPARE(resumed, 0);
        m_clock.advance(1);
        QCOMPARE(resumed, 1);
        QCOMPARE(holder.count(), 0);
        m_clock.advance(10'000);
        QCOMPARE(resumed, 1); // once
    }
    void wake_endsEveryHoldOfThatNonce_only()
    {
        RetryHolder holder(m_clock);
        int a = 0, b = 0;
        holder.hold(QStringLiteral("a"), 1000, [&] { ++a; });
        holder.hold(QStringLiteral("a"), 5000, [&] { ++a; });
        holder.hold(QStringLiteral("b"), 1000, [&] { ++b; });
        QCOMPARE(holder.nonces(), (QSet<QString>{QStringLiteral("a"), QStringLiteral("b")}));
        holder.wake(QStringLiteral("a"));
        QCOMPARE(a, 2);
        QCOMPARE(b, 0);
        QCOMPARE(holder.count(), 1);
        m_clock.advance(1000);
        QCOMPARE(b, 1);
        m_clock.advance(10'000);
        QCOMPARE(a, 2);
    }
    void wokenThenDue_resumesOnce()
    {
        RetryHolder holder(m_clock);
        int resumed = 0;
        holder.hold(QStringLiteral("a"), 100, [&] { ++resumed; });
        holder.wake(QStringLiteral("a"));
        m_clock.advance(100);
        holder.resumeDue();
        QCOMPARE(resumed, 1);
    }
    void resumeThatHoldsAgain_isHeldAnew()
    {
        RetryHolder holder(m_clock);
        int resumed = 0;
        std::function<void()> again = [&] {
            if (++resumed == 1)
                holder.hold(QStringLiteral("a"), 100, again);
        };
        holder.hold(QStringLiteral("a"), 100, again);
        m_clock.advance(100);
        QCOMPARE(resumed, 1);
        QCOMPARE(holder.count(), 1);
        m_clock.advance(100);
        QCOMPARE(resumed, 2);
        QCOMPARE(holder.count(), 0);
    }
    void zeroWindow_endsFromTheEventLoop()
    {
        RetryHolder holder(m_clock);
        int resumed = 0;
        holder.hold(QStringLiteral("a"), 0, [&] { ++resumed; });
        QCOMPARE(resumed, 0); // never from inside hold()
        QTRY_COMPARE(resumed, 1);
    }
    void holderGone_dropsItsHolds_withoutResuming()
    {
        int resumed = 0;
        {
            RetryHolder holder(m_clock);
            holder.hold(QStringLiteral("a"), 100, [&] { ++resumed; });
        }
        m_clock.advance(1000); // the gone holder's listener must not run
        QCOMPARE(resumed, 0);
    }
};

QTEST_GUILESS_MAIN(RetryHolderTest)
#include "retryholder_test.moc"
