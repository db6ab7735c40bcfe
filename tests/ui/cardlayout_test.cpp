// Agent-chosen text never moves the card's controls (issue 26, B7), under the offscreen platform:
// the real window at 1280 px, a card whose client name, title, target, prompt and rule are long
// unbroken strings. The window stays within the screen's width, Approve, Decline, the risk badge and
// the countdown stay inside it, the full text is on demand (the label's tooltip), and a string of
// 900 KB lays out bounded text.
#include "approvalcard.h"
#include "canonicaljson.h"
#include "helperfailure.h"
#include "mainwindowfixture.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTest>

using namespace Countersign;

class CardLayoutTest : public QObject, private MainWindowFixture
{
    Q_OBJECT
private:
    void park(const QString &client, const QString &target, const QString &prompt)
    {
        Operation op;
        op.nonce = QStringLiteral("%1").arg(1, 32, 10, QLatin1Char('0'));
        op.tool = QStringLiteral("agent:write");
        op.principal = QStringLiteral("hooks");
        op.clientInfo = {{"name", client.toStdString()}};
        op.arguments = {{"path", target.toStdString()}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Change ") + target;
        op.plan.prompt = prompt;
        op.plan.targets = {target};
        op.plan.risk = Risk::High;
        op.plan.blastRadius = {{"irreversible", true}};
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("no rule matched: default ask (writes %1)").arg(target);
        op.createdMs = m_clock.nowMs();
        op.expiresMs = m_clock.nowMs() + 300'000;
        QVERIFY(m_store->recordOperation(op).ok());
        m_queue->park(op);
    }
    template <typename T> T *find(const char *name) { return m_window->findChild<T *>(QLatin1String(name)); }
    // The widget lies wholly inside the window, seen from the window.
    bool inside(const QWidget *w)
    {
        if (!w)
            return helperFailed(QStringLiteral("a control is missing"));
        const QRect r(w->mapTo(m_window.get(), QPoint(0, 0)), w->size());
        return m_window->rect().contains(r) ||
               helperFailed(QStringLiteral("%1 at %2,%3 %4x%5 is outside the %6 px window")
                                .arg(w->objectName())
                                .arg(r.x())
                                .arg(r.y())
                                .arg(r.width())
                                .arg(r.height())
                                .arg(m_window->width()));
    }

private Q_SLOTS:
    void init() { setUp(QSize(1280, 760)); }
    void cleanup() { tearDown(); }

    void longAgentText_keepsTheControlsInPlace_data()
    {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("target");
        QTest::newRow("a 412-character client name")
            << QString(412, QLatin1Char('C')) << QStringLiteral("/work/ws/notes.md");
        QTest::newRow("a 250-character file name")
            << QStringLiteral("claude-code (hook)")
            << QStringLiteral("/work/ws/") + QString(250, QLatin1Char('f'));
        QTest::newRow("both, with no space anywhere")
            << QString(600, QLatin1Char('x')) << QStringLiteral("/w/") + QString(900, QLatin1Char('y'));
    }
    void longAgentText_keepsTheControlsInPlace()
    {
        QFETCH(QString, client);
        QFETCH(QString, target);
        park(client, target, QStringLiteral("Claude Code wants to change ") + target);
        QTRY_VERIFY(find<ApprovalCard>("approvalCard") && find<ApprovalCard>("approvalCard")->isVisible());
        QTest::qWait(50); // the layout settles
        QVERIFY2(m_window->width() <= 1280, qPrintable(QString::number(m_window->width())));
        for (const char *control : {"approveButton", "declineButton"})
            QVERIFY(inside(find<QPushButton>(control)));
        for (const char *control : {"cardRisk", "cardCountdown"})
            QVERIFY(inside(find<QLabel>(control)));
        // The whole text is on demand: the label's tooltip holds it.
        auto *clientLabel = find<QLabel>("cardClient");
        QVERIFY(clientLabel->toolTip().contains(client.left(300)));
        QVERIFY(find<QLabel>("cardTargets")->toolTip().contains(target.left(200)));
        // The target's name (its last part: never a whole path to type) pasted from the card, break
        // marks and all, still confirms it.
        m_clock.advance(1000);
        find<QLineEdit>("confirmTarget")
            ->setText(find<QLabel>("cardTargets")->text().section(QLatin1Char('/'), -1));
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
    }
    // A 900 KB name: what is laid out is bounded (the rest is counted), so no card freezes the window.
    void hugeAgentText_laysOutBoundedText()
    {
        const QString huge(900 * 1024, QLatin1Char('z'));
        park(huge, QStringLiteral("/w/a.txt"), QStringLiteral("prompt"));
        QTRY_VERIFY(find<ApprovalCard>("approvalCard") && find<ApprovalCard>("approvalCard")->isVisible());
        auto *clientLabel = find<QLabel>("cardClient");
        QVERIFY2(clientLabel->text().size() < 4400, qPrintable(QString::number(clientLabel->text().size())));
        QVERIFY(clientLabel->text().contains(QLatin1String("more characters")));
        QVERIFY(clientLabel->toolTip().size() < 20000);
        QVERIFY(m_window->width() <= 1280);
        QVERIFY(inside(find<QPushButton>("approveButton")));
        auto *list = find<QListWidget>("pendingList");
        QVERIFY(list);
        QVERIFY(list->item(0)->text().size() < 400);
    }
};

QTEST_MAIN(CardLayoutTest)
#include "cardlayout_test.moc"
