// The console's widgets under the offscreen platform: cards for parked approvals, Approve and
// Decline by click and by shortcut, the typed-name gate, the minimum time on screen, reveal,
// agent text shown literally, the audit model, filters and export.
#include "approvalcard.h"
#include "approvalqueue.h"
#include "approvalspage.h"
#include "auditmodel.h"
#include "auditstore.h"
#include "auditview.h"
#include "canonicaljson.h"
#include "clientinstaller.h"
#include "config.h"
#include "connectionspage.h"
#include "database.h"
#include "fakeclock.h"
#include "helperfailure.h"
#include "hookspanel.h"
#include "mainwindow.h"
#include "policychange.h"
#include "policychangebanner.h"
#include "receipt.h"
#include "themecolours.h"
#include "tokenstore.h"
#include "upstreamlist.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

#include <pwd.h>
#include <unistd.h>

using namespace Countersign;

// Stands in for the desktop's opener of file URLs (QDesktopServices::setUrlHandler).
class UrlCatcher final : public QObject
{
    Q_OBJECT
public:
    QUrl opened;
public Q_SLOTS:
    void open(const QUrl &url) { opened = url; }
};

class MainWindowTest : public QObject
{
    Q_OBJECT
private:
    FakeClock m_clock;
    std::unique_ptr<Database> m_db;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
    std::unique_ptr<AuditStore> m_store;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<ApprovalQueue> m_queue;
    std::unique_ptr<MainWindow> m_window;
    int m_next = 0;

    Operation park(Risk risk = Risk::Medium, const QString &tool = QStringLiteral("delete_service"),
                   const QString &target = QStringLiteral("web-1"), const char *client = "Claude Code",
                   const QString &principal = QStringLiteral("vscode"), bool intoQueue = true,
                   const Review &review = Review())
    {
        Operation op;
        op.nonce = QStringLiteral("%1").arg(++m_next, 32, 10, QLatin1Char('0'));
        op.tool = tool;
        op.principal = principal;
        op.clientInfo = {{"name", client}};
        op.arguments = {{"service", target.toStdString()}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Delete %1").arg(target);
        op.plan.prompt = QStringLiteral("Delete service %1?").arg(target);
        op.plan.diff = QStringLiteral("--- a/%1\n+++ /dev/null\n@@ -1 +0,0 @@\n-name: %1\n").arg(target);
        op.plan.targets = {target};
        op.plan.risk = risk;
        op.plan.blastRadius = {{"instances", 3}, {"irreversible", risk >= Risk::High}};
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = m_clock.nowMs() + m_next; // newest last
        op.expiresMs = m_clock.nowMs() + 300'000;
        op.review = review;
        if (auto recorded = m_store->recordOperation(op); !recorded)
            helperFailed(QStringLiteral("record failed: %1").arg(recorded.error()));
        if (intoQueue)
            m_queue->park(op);
        return op;
    }
    // The window's widget of that name; a missing one fails the test and yields a stand-in that
    // belongs to no window (for default-constructible widgets), so the test's next steps run on it
    // harmlessly.
    template <typename T> T *find(const char *name)
    {
        if (T *w = m_window->findChild<T *>(QLatin1String(name)))
            return w;
        helperFailed(QStringLiteral("no widget %1").arg(QLatin1String(name)));
        if constexpr (std::is_default_constructible_v<T>) {
            auto *standIn = new T;
            m_standIns.emplace_back(standIn);
            return standIn;
        } else {
            return nullptr; // no stand-in for this type: the caller must check
        }
    }
    std::vector<std::unique_ptr<QObject>> m_standIns;
    // The shown card has been on screen for the default minimum time.
    void readTheCard() { m_clock.advance(1000); }
    QString shownNonce()
    {
        const ApprovalCard *card = find<ApprovalCard>("approvalCard");
        return card ? card->nonce() : QString();
    }
    std::optional<Decision> decisionOf(const QString &nonce) { return m_store->decision(nonce).value(); }
    // The Fusion style's light palette, and a dark one as dark desktop themes have it.
    static const QPalette &lightPalette()
    {
        static const QPalette light = QStyleFactory::create(QStringLiteral("Fusion"))->standardPalette();
        return light;
    }
    static const QPalette &darkPalette()
    {
        static const QPalette dark = [] {
            QPalette p;
            p.setColor(QPalette::Window, QColor(0x20, 0x23, 0x26));
            p.setColor(QPalette::WindowText, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::Base, QColor(0x14, 0x16, 0x18));
            p.setColor(QPalette::AlternateBase, QColor(0x1d, 0x1f, 0x22));
            p.setColor(QPalette::Text, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::Button, QColor(0x29, 0x2c, 0x30));
            p.setColor(QPalette::ButtonText, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
            p.setColor(QPalette::HighlightedText, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::PlaceholderText, QColor(0xa1, 0xa9, 0xb1));
            p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x72, 0x76, 0x7a));
            p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x72, 0x76, 0x7a));
            return p;
        }();
        return dark;
    }

private Q_SLOTS:
    void init()
    {
        auto db = Database::open(QStringLiteral(":memory:"));
        QVERIFY(db.ok());
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
        m_tokens = std::make_unique<TokenStore>(*m_db, m_clock);
        m_queue = std::make_unique<ApprovalQueue>(*m_store, m_clock);
        m_window = std::make_unique<MainWindow>(
            MainWindow::Services{*m_queue, m_clock, *m_store, *m_tokens, m_db->connectionName()});
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // Activation restarts a card's minimum time: let it happen before the tests count.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }
    void cleanup()
    {
        m_window.reset();
        m_queue.reset();
        m_tokens.reset();
        m_store.reset();
        m_db.reset();
    }

    void parkedApproval_showsACard_withCountInTitle()
    {
        QVERIFY(find<QLabel>("emptyQueue")->isVisible());
        const Operation op = park();
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 1);
        const ApprovalCard *shownCard = find<ApprovalCard>("approvalCard");
        QVERIFY(shownCard);
        QVERIFY(shownCard->isVisible());
        QCOMPARE(find<QLabel>("cardTitle")->text(), QStringLiteral("Delete web-1"));
        QVERIFY(find<QLabel>("cardClient")->text().contains(QLatin1String("Claude Code")));
        QVERIFY(find<QLabel>("cardClient")->text().contains(QLatin1String("vscode")));
        QCOMPARE(find<QLabel>("cardPrompt")->text(), QStringLiteral("Delete service web-1?"));
        QVERIFY(find<QPlainTextEdit>("cardDiff")->toPlainText().contains(QLatin1String("-name: web-1")));
        QCOMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("web-1"));
        QVERIFY2(find<QLabel>("cardBlastRadius")->text().contains(QLatin1String("3 instances")),
                 qPrintable(find<QLabel>("cardBlastRadius")->text()));
        QCOMPARE(find<QLabel>("cardRisk")->text(), QStringLiteral("Medium risk"));
        QCOMPARE(find<QLabel>("cardRule")->text(), QStringLiteral("no rule matched: default ask"));
        QCOMPARE(find<QLabel>("cardCountdown")->text(), QStringLiteral("Expires in 5:00"));
        QCOMPARE(m_window->windowTitle(), QStringLiteral("Countersign (1 pending)"));
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("api"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 2);
        QVERIFY(find<QListWidget>("pendingList")
                    ->item(0)
                    ->text()
                    .startsWith(QStringLiteral("scale — api"))); // newest first
        QCOMPARE(m_window->windowTitle(), QStringLiteral("Countersign (2 pending)"));
        Q_UNUSED(op)
    }
    void approve_whenTheDatabaseRefusesWrites_grantsNothing_andSaysWhy()
    {
        const Operation op = park();
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QVERIFY(m_db->exec("PRAGMA query_only=ON").ok()); // every write now fails, as on a read-only file
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        QTRY_VERIFY(find<QLabel>("cardError")->isVisible());
        QVERIFY2(find<QLabel>("cardError")->text().contains(QLatin1String("readonly")),
                 qPrintable(find<QLabel>("cardError")->text()));
        QVERIFY(!decisionOf(op.nonce));
        QCOMPARE(find<QListWidget>("pendingList")->count(), 1);
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(m_db->exec("PRAGMA query_only=OFF").ok());
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 0);
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
    }
    // A team's console acts for its configured person: the decision (and so the receipt's
    // approver and the audit log) names them, for an approval and for a decline alike.
    void configuredPerson_isWhoDecides()
    {
        m_queue->setPerson(QStringLiteral("Bea Lopez"));
        const Operation approved = park();
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        QCOMPARE(decisionOf(approved.nonce)->by, QStringLiteral("console:Bea Lopez"));
        const Operation declined = park();
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("declineButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("declineButton"), Qt::LeftButton);
        QTRY_VERIFY(decisionOf(declined.nonce));
        QCOMPARE(decisionOf(declined.nonce)->by, QStringLiteral("console:Bea Lopez"));
    }
    // A team's review rules on a card: the first person's approval keeps the card (it says who
    // approved), the same person cannot approve twice, and the next person's approval decides.
    void twoPeopleCard_waitsForTheSecondPerson()
    {
        m_queue->setPerson(QStringLiteral("Bea Lopez"));
        Review twoPeople;
        twoPeople.people = 2;
        const Operation op = park(Risk::Medium, QStringLiteral("delete_service"), QStringLiteral("web-1"),
                                  "Claude Code", QStringLiteral("vscode"), true, twoPeople);
        readTheCard();
        QTRY_VERIFY(find<QLabel>("cardReview")->isVisible());
        QVERIFY2(find<QLabel>("cardReview")->text().contains(QLatin1String("no one has approved it yet")),
                 qPrintable(find<QLabel>("cardReview")->text()));
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        QVERIFY(!decisionOf(op.nonce));
        QCOMPARE(find<QListWidget>("pendingList")->count(), 1);
        QTRY_VERIFY2(
            find<QLabel>("cardReview")->text().contains(QLatin1String("approved so far by Bea Lopez")),
            qPrintable(find<QLabel>("cardReview")->text()));
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        QCOMPARE(find<QPushButton>("approveButton")->text(), QStringLiteral("Another person must approve"));
        QVERIFY(!m_queue->approve(op.nonce, m_queue->reviewer()).ok());
        m_queue->setPerson(QStringLiteral("Cy"));
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 0);
        QCOMPARE(decisionOf(op.nonce)->by, QStringLiteral("console:Bea Lopez, console:Cy"));
    }
    void ownConnectionCard_itsOwnerMayOnlyDecline()
    {
        m_queue->setPerson(QStringLiteral("Bea Lopez"));
        Review own;
        own.ownerBarred = true;
        own.owner = QStringLiteral("Bea Lopez");
        const Operation op = park(Risk::Medium, QStringLiteral("delete_service"), QStringLiteral("web-1"),
                                  "Claude Code", QStringLiteral("vscode"), true, own);
        readTheCard();
        QTRY_VERIFY(find<QLabel>("cardReview")->isVisible());
        QVERIFY(find<QLabel>("cardReview")->text().contains(QLatin1String("belongs to Bea Lopez")));
        QTRY_COMPARE(find<QPushButton>("approveButton")->text(),
                     QStringLiteral("Another person must approve"));
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        QVERIFY(find<QPushButton>("approveButton")->toolTip().contains(QLatin1String("your own connection")));
        // Ctrl+Return goes through the same checks as the button, and says why it did nothing.
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(!decisionOf(op.nonce));
        QTRY_VERIFY(find<QLabel>("cardError")->isVisible());
        QVERIFY(find<QLabel>("cardError")->text().contains(QLatin1String("your own connection")));
        QVERIFY(find<QPushButton>("declineButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("declineButton"), Qt::LeftButton);
        QTRY_VERIFY(decisionOf(op.nonce));
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Declined);
    }
    void clickingApprove_decides_andTheCardLeaves()
    {
        const Operation op = park();
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        const auto d = decisionOf(op.nonce);
        QVERIFY(d);
        QCOMPARE(d->outcome, Operation::Status::Approved);
        QVERIFY(d->by.startsWith(QLatin1String("console:")));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 0);
        QVERIFY(find<QLabel>("emptyQueue")->isVisible());
        QCOMPARE(m_window->windowTitle(), QStringLiteral("Countersign"));
    }
    // A Ctrl+Return before the card has been on screen long enough approves nothing, and says so
    // on the card; the next one, once it has, approves.
    void ctrlReturn_tooSoon_saysWhy_thenApproves()
    {
        const Operation op = park();
        QTRY_COMPARE(shownNonce(), op.nonce);
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(!decisionOf(op.nonce));
        QTRY_VERIFY(find<QLabel>("cardError")->isVisible());
        QVERIFY(find<QLabel>("cardError")->text().contains(QLatin1String("on screen")));
        readTheCard();
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY(decisionOf(op.nonce).has_value());
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
    }
    void ctrlReturn_approves()
    {
        const Operation op = park();
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QVERIFY(find<QPushButton>("approveButton")->text().contains(QLatin1String("Ctrl+Return")));
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY(decisionOf(op.nonce).has_value());
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
    }
    void ctrlShiftD_declines_withTheReasonTyped()
    {
        const Operation op = park();
        QTRY_VERIFY(find<QPushButton>("declineButton")->isEnabled());
        QTest::keyClicks(find<QLineEdit>("declineReason"), QStringLiteral("wrong cluster"));
        QTest::keyClick(m_window.get(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY(decisionOf(op.nonce).has_value());
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Declined);
        QCOMPARE(decisionOf(op.nonce)->reason, QStringLiteral("wrong cluster"));
        QVERIFY(find<QPushButton>("declineButton")->text().contains(QLatin1String("Ctrl+Shift+D")));
    }
    void highRisk_approveEnables_onlyWithTheTargetTyped()
    {
        const Operation op = park(Risk::Critical, QStringLiteral("drop_database"), QStringLiteral("orders"));
        QTRY_VERIFY(find<QLineEdit>("confirmTarget")->isVisible());
        auto *approve = find<QPushButton>("approveButton");
        QVERIFY(!approve->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier); // the shortcut cannot bypass it
        QVERIFY(!decisionOf(op.nonce).has_value());
        readTheCard();
        QTest::keyClicks(find<QLineEdit>("confirmTarget"), QStringLiteral("order"));
        QVERIFY(!approve->isEnabled());
        QTest::keyClicks(find<QLineEdit>("confirmTarget"), QStringLiteral("s"));
        QVERIFY(approve->isEnabled());
        QVERIFY(find<QLabel>("cardRisk")->text().startsWith(QStringLiteral("Critical risk · irreversible")));
        QTest::mouseClick(approve, Qt::LeftButton);
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
    }
    void expiredCard_cannotBeApproved_andLeavesTheQueue()
    {
        const Operation op = park();
        m_clock.advance(300'000);
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 0); // the queue's sweep
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Expired);
    }
    void agentRichText_isShownLiterally()
    {
        const QString target = QStringLiteral("<span style=\"font-size:1px\">prod-</span>db");
        const Operation op = park(Risk::Critical, QStringLiteral("drop_database"), target,
                                  "<span style=\"font-size:1px\">x</span>Claude");
        QTRY_COMPARE(shownNonce(), op.nonce);
        for (const char *name : {"cardTitle", "cardClient", "cardPrompt", "cardTargets"}) {
            const QLabel *label = find<QLabel>(name);
            QVERIFY2(label->text().contains(QLatin1String("<span")), name);
            QVERIFY2(label->textFormat() == Qt::PlainText, name);
        }
        QCOMPARE(find<QLabel>("cardTargets")->text(), target);
        for (const char *name : {"cardBlastRadius", "cardRule", "cardError"})
            QVERIFY2(find<QLabel>(name)->textFormat() == Qt::PlainText, name);
        // Our markup around the escaped target: it reads as typed, and it is what must be typed.
        QVERIFY(find<QLabel>("confirmLabel")->text().contains(QLatin1String("&lt;span")));
        QVERIFY(find<QListWidget>("pendingList")->item(0)->text().contains(QLatin1String("<span")));
        readTheCard();
        QTest::keyClicks(find<QLineEdit>("confirmTarget"), target);
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QTest::mouseClick(find<QPushButton>("approveButton"), Qt::LeftButton);
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
        // The audit table's tooltips render HTML unless they are given it escaped.
        AuditModel model(m_db->connectionName());
        QCOMPARE(model.rowCount(), 1);
        const QString tip = model.data(model.index(0, AuditModel::Target), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("&lt;span")) && !tip.contains(QLatin1String("<span")),
                 qPrintable(tip));
    }
    void invisibleAndReorderingCharacters_areShownAsMarks_andCannotBeTyped()
    {
        // A right-to-left override makes "gpj.exe" read as "exe.jpg"; a zero-width space splits
        // a name that looks whole; a newline-like separator starts a line of the agent's choosing.
        const QString target = QStringLiteral("prod\u200B-db\u202Egpj.exe\u2028approved by admin");
        const Operation op = park(Risk::Critical, QStringLiteral("drop_database"), target, "Claude\u2066");
        QTRY_COMPARE(shownNonce(), op.nonce);
        const QString shown = find<QLabel>("cardTargets")->text();
        for (const char *mark : {"U+200B", "U+202E", "U+2028"})
            QVERIFY2(shown.contains(QLatin1String(mark)), qPrintable(shown));
        QVERIFY(!shown.contains(QChar(0x202E)));
        // A raw U+200B on the label is only a break mark of the card's own, after its U+200C.
        for (qsizetype i = shown.indexOf(QChar(0x200B)); i >= 0; i = shown.indexOf(QChar(0x200B), i + 1))
            QVERIFY(i > 0 && shown[i - 1] == QChar(0x200C));
        QVERIFY(find<QLabel>("cardClient")->text().contains(QLatin1String("U+2066")));
        QVERIFY(find<QLabel>("confirmLabel")->text().contains(QLatin1String("U+202E")));
        readTheCard();
        find<QLineEdit>("confirmTarget")->setText(shown); // what the human sees, pasted
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
    }
    void approve_beforeTheMinimum_isRefused_byButtonAndShortcut()
    {
        const Operation op = park();
        QTRY_COMPARE(shownNonce(), op.nonce);
        auto *approve = find<QPushButton>("approveButton");
        QVERIFY(!approve->isEnabled());
        QVERIFY(approve->text().contains(QLatin1String("Read the card first")));
        QVERIFY(!approve->toolTip().isEmpty());
        QVERIFY(find<QPushButton>("declineButton")->isEnabled()); // declining needs no wait
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTest::mouseClick(approve, Qt::LeftButton);
        find<ApprovalCard>("approvalCard")->approve();
        QVERIFY(!decisionOf(op.nonce));
        m_clock.advance(999);
        QVERIFY(!approve->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(!decisionOf(op.nonce));
        m_clock.advance(1); // the clock's listeners re-check at once
        QVERIFY(approve->isEnabled());
        QVERIFY(approve->text().contains(QLatin1String("Ctrl+Return")));
        QVERIFY(approve->toolTip().isEmpty());
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY(decisionOf(op.nonce).has_value());
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
    }
    void doubleKeypress_approvesOneCard_andTheNextWaitsTheMinimumAgain()
    {
        const Operation older = park(Risk::Low, QStringLiteral("a"), QStringLiteral("one"));
        const Operation newer = park(Risk::Low, QStringLiteral("b"), QStringLiteral("two"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 2);
        QCOMPARE(shownNonce(), older.nonce); // the card shown first stays shown
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("approveButton")->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY(decisionOf(older.nonce).has_value());
        QCOMPARE(decisionOf(older.nonce)->outcome, Operation::Status::Approved);
        QCOMPARE(shownNonce(), newer.nonce); // the next card is shown...
        QVERIFY(!decisionOf(newer.nonce));   // ...and the second keypress did not approve it
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
    }
    void aNewCard_doesNotChangeTheShownOne_orItsTime()
    {
        const Operation first = park(Risk::Low, QStringLiteral("a"), QStringLiteral("one"));
        QTRY_COMPARE(shownNonce(), first.nonce);
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
        park(Risk::Low, QStringLiteral("b"), QStringLiteral("two"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 2);
        QCOMPARE(shownNonce(), first.nonce);
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
    }
    void choosingACardInTheList_restartsTheMinimum()
    {
        const Operation first = park(Risk::Low, QStringLiteral("a"), QStringLiteral("one"));
        const Operation second = park(Risk::Low, QStringLiteral("b"), QStringLiteral("two"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 2);
        QCOMPARE(shownNonce(), first.nonce);
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
        find<QListWidget>("pendingList")->setCurrentRow(0); // newest first
        QCOMPARE(shownNonce(), second.nonce);
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
    }
    void showingOrActivatingAgain_restartsTheMinimum()
    {
        park();
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
        m_window->showTab(QStringLiteral("audit"));
        m_window->showTab(QStringLiteral("approvals"));
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
        // The window brought to the front (as reveal does, maybe under a keypress meant elsewhere).
        QEvent activate(QEvent::WindowActivate);
        QApplication::sendEvent(m_window.get(), &activate);
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        readTheCard();
        QVERIFY(find<QPushButton>("approveButton")->isEnabled());
    }
    void revealRequest_marksTheCard_withoutChangingTheShownOne()
    {
        const Operation first = park(Risk::Low, QStringLiteral("a"), QStringLiteral("one"));
        const Operation second = park(Risk::Low, QStringLiteral("b"), QStringLiteral("two"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 2);
        QCOMPARE(shownNonce(), first.nonce);
        readTheCard();
        m_window->showTab(QStringLiteral("audit"));
        m_queue->reveal(second.nonce); // GET /approvals/<id> needs no token
        QCOMPARE(shownNonce(), first.nonce);
        QCOMPARE(m_window->findChild<QTabWidget *>(QStringLiteral("tabs"))->currentWidget(),
                 m_window->approvalsPage());
        QVERIFY(list->item(0)->font().bold()); // newest first
        QVERIFY(!list->item(0)->icon().isNull());
        QVERIFY(!list->item(1)->font().bold());
        // The page came back on screen: the shown card is read again before it can be approved.
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QVERIFY(!decisionOf(first.nonce));
        QVERIFY(!decisionOf(second.nonce));
        park(Risk::Low, QStringLiteral("c"), QStringLiteral("three")); // the list is rebuilt
        QTRY_COMPARE(list->count(), 3);
        QCOMPARE(shownNonce(), first.nonce);
        QVERIFY(list->item(1)->font().bold()); // the mark survives
        list->setCurrentRow(1);                // the human chooses it
        QCOMPARE(shownNonce(), second.nonce);
        QVERIFY(!list->item(1)->font().bold());
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
    }
    // A click on the tray notification shows the card it named, even while another is read (the
    // human asked for it); the card's minimum time on screen starts again.
    void notificationClicked_showsItsCard()
    {
        const Operation first = park(Risk::Low, QStringLiteral("a"), QStringLiteral("one"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 1);
        QCOMPARE(shownNonce(), first.nonce);
        readTheCard();
        m_window->showTab(QStringLiteral("audit"));
        m_window->showMinimized(); // away: the next card is notified
        const Operation second = park(Risk::Low, QStringLiteral("b"), QStringLiteral("two"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 2);
        QCOMPARE(shownNonce(), first.nonce);
        m_window->openNotified();
        QCOMPARE(m_window->findChild<QTabWidget *>(QStringLiteral("tabs"))->currentWidget(),
                 m_window->approvalsPage());
        QCOMPARE(shownNonce(), second.nonce);
        QVERIFY(!find<QPushButton>("approveButton")->isEnabled());
    }
    void revealRequest_ofTheShownCard_marksNothing()
    {
        const Operation op = park();
        QTRY_COMPARE(shownNonce(), op.nonce);
        m_queue->reveal(op.nonce); // the shown card itself: nothing changes, nothing is marked
        QCOMPARE(shownNonce(), op.nonce);
        QVERIFY(!find<QListWidget>("pendingList")->item(0)->font().bold());
    }
    void cardMinimumSeconds_fromTheConfig_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<qint64>("minimumMs");
        QTest::newRow("zero allows at once") << QByteArray("{\"cardMinimumSeconds\": 0}") << qint64(0);
        QTest::newRow("decimals") << QByteArray("{\"cardMinimumSeconds\": 2.5}") << qint64(2500);
    }
    void cardMinimumSeconds_fromTheConfig()
    {
        QFETCH(QByteArray, text);
        QFETCH(qint64, minimumMs);
        auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY(config.ok());
        m_window->setConfig(config.value(), QStringLiteral("c.json"), QString());
        const Operation op = park();
        QTRY_COMPARE(shownNonce(), op.nonce);
        auto *approve = find<QPushButton>("approveButton");
        if (minimumMs > 0) {
            QVERIFY(!approve->isEnabled());
            m_clock.advance(minimumMs - 1);
            QVERIFY(!approve->isEnabled());
            m_clock.advance(1);
        }
        QVERIFY(approve->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY(decisionOf(op.nonce).has_value());
        QCOMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
    }
    void auditModel_passesTheModelTester_andFilters()
    {
        for (int i = 0; i < 30; ++i) {
            const Operation op =
                park(Risk::Low, i % 3 ? QStringLiteral("delete_service") : QStringLiteral("scale"),
                     QStringLiteral("t%1").arg(i), i % 2 ? "Cursor" : "Claude Code");
            if (i % 5 == 0)
                QVERIFY(m_queue
                            ->decline(op.nonce, QStringLiteral("console:alice"),
                                      QStringLiteral("not now %1").arg(i))
                            .ok());
            else
                QVERIFY(m_queue->approve(op.nonce, QStringLiteral("console:alice")).ok());
        }
        AuditModel model(m_db->connectionName());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 30);
        model.setFilter({QStringLiteral("declined"), {}, {}, {}, {}, {}, {}, {}});
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.data(model.index(0, AuditModel::Decision)).toString(), QStringLiteral("declined"));
        model.setFilter({{}, QStringLiteral("Cursor"), QStringLiteral("scale"), {}, {}, {}, {}, {}});
        QCOMPARE(model.rowCount(), 5); // i in {3, 9, 15, 21, 27}
        model.setFilter({{}, {}, {}, {}, {}, QStringLiteral("not now 1"), {}, {}});
        QCOMPARE(model.rowCount(), 2); // reasons "not now 10" and "not now 15"
        model.setFilter({{}, {}, {}, {}, {}, QStringLiteral("100%_"), {}, {}}); // LIKE wildcards are literal
        QCOMPARE(model.rowCount(), 0);
        const QDate today = QDateTime::fromMSecsSinceEpoch(m_clock.nowMs(), Qt::UTC).date();
        model.setFilter({{}, {}, {}, today, today, {}, {}, {}});
        QCOMPARE(model.rowCount(), 30);
        model.setFilter({{}, {}, {}, today.addDays(1), today.addDays(2), {}, {}, {}});
        QCOMPARE(model.rowCount(), 0);
        model.setFilter({});
        model.sort(AuditModel::Tool, Qt::AscendingOrder);
        QCOMPARE(model.data(model.index(0, AuditModel::Tool)).toString(), QStringLiteral("delete_service"));
        model.sort(AuditModel::Tool, Qt::DescendingOrder);
        QCOMPARE(model.data(model.index(0, AuditModel::Tool)).toString(), QStringLiteral("scale"));
        const auto days = model.perDay().value();
        QCOMPARE(days.size(), 1);
        QCOMPARE(days[0].approved, 24);
        QCOMPARE(days[0].declined, 6);
    }
    void auditView_exportsTheFilteredRows()
    {
        for (int i = 0; i < 4; ++i) {
            const Operation op =
                park(Risk::Low, QStringLiteral("delete_service"), QStringLiteral("t%1").arg(i));
            if (i < 3)
                QVERIFY(
                    m_queue->decline(op.nonce, QStringLiteral("console:alice"), QStringLiteral("no")).ok());
        }
        AuditView *view = m_window->auditView();
        QLineEdit *search = view->findChild<QLineEdit *>(QStringLiteral("filterText"));
        QTest::keyClicks(search, QStringLiteral("t1"));
        QCOMPARE(view->model()->rowCount(), 1);
        QTemporaryDir dir;
        QSignalSpy finished(view, &AuditView::exportFinished);
        view->exportTo(dir.filePath(QStringLiteral("rows.csv")));
        QCOMPARE(finished.size(), 1); // over ":memory:" it is written at once
        QVERIFY(finished.takeFirst().at(0).toBool());
        QFile csv(dir.filePath(QStringLiteral("rows.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[1].contains(",delete_service,t1,low,declined,console:alice,no,"));
        search->clear();
        view->exportTo(dir.filePath(QStringLiteral("rows.json")));
        QVERIFY(finished.takeFirst().at(0).toBool());
        QFile json(dir.filePath(QStringLiteral("rows.json")));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QCOMPARE(nlohmann::json::parse(json.readAll().toStdString()).size(), 4u);
    }
    void auditView_whenItsQueryFails_showsTheError_untilAQuerySucceeds()
    {
        park();
        m_window->showTab(QStringLiteral("audit"));
        AuditView *view = m_window->auditView();
        QAbstractItemModelTester tester(view->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto *error = find<QLabel>("auditError");
        auto *table = find<QTableView>("auditTable");
        QTRY_COMPARE(view->model()->rowCount(), 1);
        QVERIFY(!error->isVisible());
        // The table the view reads is gone, as in a damaged or foreign file.
        QVERIFY(m_db->exec("ALTER TABLE operations RENAME TO operations_gone").ok());
        view->refreshSoon();
        QTRY_VERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QLatin1String("no such table: operations")),
                 qPrintable(error->text()));
        QCOMPARE(view->model()->rowCount(), 0);
        QVERIFY(!view->model()->queryError().isEmpty());
        QTemporaryDir dir;
        QSignalSpy finished(view, &AuditView::exportFinished);
        view->exportTo(dir.filePath(QStringLiteral("rows.csv")));
        QCOMPARE(finished.size(), 1);
        QVERIFY(!finished.first().at(0).toBool());
        const QString exportError = finished.first().at(1).toString();
        QVERIFY2(exportError.contains(QLatin1String("no such table")), qPrintable(exportError));

        QVERIFY(m_db->exec("ALTER TABLE operations_gone RENAME TO operations").ok());
        view->refreshSoon();
        QTRY_VERIFY(!error->isVisible());
        QCOMPARE(view->model()->rowCount(), 1);
        QVERIFY(table->isColumnHidden(AuditModel::Id)); // the columns are set up again
    }
    void auditView_whenASortFails_showsTheError()
    {
        park();
        m_window->showTab(QStringLiteral("audit"));
        auto *table = find<QTableView>("auditTable");
        QVERIFY(m_db->exec("ALTER TABLE decisions RENAME TO decisions_gone").ok());
        // The header's sort runs the model's query at once, with no refresh by the view.
        table->sortByColumn(AuditModel::Who, Qt::AscendingOrder);
        QVERIFY(find<QLabel>("auditError")->isVisible());
        const QString shown = find<QLabel>("auditError")->text();
        QVERIFY2(shown.contains(QLatin1String("no such table: decisions")), qPrintable(shown));
    }
    void settings_saveIntoTheFile_keepingItsComments()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\n  // my approvals\n  \"ttlSeconds\": 300\n}\n");
        file.close();
        m_window->setConfig(Config::load(path).value(), path, QStringLiteral("effective"));
        auto *ttl = m_window->findChild<QSpinBox *>(QStringLiteral("settingTtl"));
        QCOMPARE(ttl->value(), 300);
        ttl->setValue(120);
        m_window->findChild<QSpinBox *>(QStringLiteral("settingPollWindow"))->setValue(15);
        QTest::mouseClick(m_window->findChild<QPushButton *>(QStringLiteral("saveSettings")), Qt::LeftButton);
        const Config saved = Config::load(path).value();
        QCOMPARE(saved.ttlSeconds(), 120);
        QCOMPARE(saved.pollWindowSeconds(), 15);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        file.close();
        QVERIFY(text.contains("// my approvals"));
        // Only the keys changed: the port (and the mode) left alone are not written.
        QVERIFY2(!text.contains("listen") && !text.contains("mode"), text.constData());
        // Saved again with nothing changed since the configuration in force: nothing is written.
        m_window->setConfig(Config::load(path).value(), path, QStringLiteral("effective"));
        QVERIFY(QFile::remove(path));
        QTest::mouseClick(m_window->findChild<QPushButton *>(QStringLiteral("saveSettings")), Qt::LeftButton);
        QVERIFY(!QFile::exists(path));
        QVERIFY(find<QLabel>("settingsMessage")->text().contains(QLatin1String("Nothing changed")));
    }
    // Issue 14: quitting asks while cards wait, closing without a tray is quitting, Cancel keeps.
    // A plan command's blast radius in words on the card; an "irreversible" that is not a boolean
    // (a plan command may write anything) is read as not irreversible instead of throwing.
    void blastRadius_inWords_andAMistypedIrreversibleIsHarmless()
    {
        Operation op = park(Risk::Medium, QStringLiteral("resize"), QStringLiteral("db-1"), "Claude Code",
                            QStringLiteral("vscode"), false);
        op.plan.blastRadius = {{"files", 1}, {"volumeGB", 40}, {"newFile", false}, {"irreversible", "yes"}};
        m_queue->park(op);
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 1);
        const QString blast = find<QLabel>("cardBlastRadius")->text();
        QVERIFY2(blast.contains(QLatin1String("1 file")) && !blast.contains(QLatin1String("1 files")),
                 qPrintable(blast));
        QVERIFY2(blast.contains(QLatin1String("40 GB volume")), qPrintable(blast));
        QVERIFY2(!blast.contains(QLatin1String("newFile")), qPrintable(blast));
        QCOMPARE(find<QLabel>("cardRisk")->text(), QStringLiteral("Medium risk"));
    }
    void quit_withCardsWaiting_asksFirst()
    {
        QSignalSpy quitting(m_window.get(), &MainWindow::quitting);
        park();
        find<QAction>("quitAction")->trigger();
        QTRY_VERIFY(find<QMessageBox>("quitConfirmation")->isVisible());
        QVERIFY(find<QMessageBox>("quitConfirmation")->text().contains(QLatin1String("1 approval card")));
        QTest::mouseClick(find<QPushButton>("cancelQuit"), Qt::LeftButton);
        QTest::qWait(20);
        QCOMPARE(quitting.count(), 0);
        QVERIFY(m_window->isVisible());
        m_window->close(); // no tray offscreen: closing is quitting, so it asks too
        QTRY_VERIFY(find<QMessageBox>("quitConfirmation")->isVisible());
        QVERIFY(m_window->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmQuit"), Qt::LeftButton);
        QTRY_COMPARE(quitting.count(), 1);
    }
    void quit_withNothingWaiting_quitsAtOnce()
    {
        QSignalSpy quitting(m_window.get(), &MainWindow::quitting);
        QTest::keyClick(m_window.get(), Qt::Key_Q, Qt::ControlModifier);
        QTRY_COMPARE(quitting.count(), 1);
        QVERIFY(!m_window->findChild<QMessageBox *>(QStringLiteral("quitConfirmation")));
    }
    // Cards brought back by a restart are marked; new ones are not.
    void cardsFromBeforeARestart_areMarked()
    {
        const Operation old = park(Risk::Medium, QStringLiteral("delete_service"), QStringLiteral("old-1"),
                                   "Claude Code", QStringLiteral("vscode"), false);
        QVERIFY(m_queue->restore().ok());
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 1);
        QVERIFY(find<QListWidget>("pendingList")
                    ->item(0)
                    ->text()
                    .contains(QLatin1String("from before the restart")));
        QVERIFY(find<QLabel>("cardStale")->isVisible());
        QVERIFY(find<QLabel>("cardStale")->text().contains(QLatin1String("may no longer be waiting")));
        park(Risk::Medium, QStringLiteral("delete_service"), QStringLiteral("new-1"));
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 2);
        find<QListWidget>("pendingList")->setCurrentRow(0); // newest first: the new one
        QCOMPARE(shownNonce().isEmpty(), false);
        QVERIFY(shownNonce() != old.nonce);
        QVERIFY(!find<QLabel>("cardStale")->isVisible());
        QVERIFY(
            !find<QListWidget>("pendingList")->item(0)->text().contains(QLatin1String("before the restart")));
    }
    // A restored card whose agent came back (a call joined it) is no longer marked stale.
    void cardFromBeforeARestart_joinedByItsAgent_isNoLongerMarked()
    {
        const Operation old = park(Risk::Medium, QStringLiteral("delete_service"), QStringLiteral("old-1"),
                                   "Claude Code", QStringLiteral("vscode"), false);
        QVERIFY(m_queue->restore().ok());
        QTRY_VERIFY(find<QLabel>("cardStale")->isVisible());
        QVERIFY(!find<QLabel>("cardAgent")->isVisible());
        m_queue->setWaiting(old.nonce, 1);
        QTRY_VERIFY(!find<QLabel>("cardStale")->isVisible());
        QVERIFY(
            !find<QListWidget>("pendingList")->item(0)->text().contains(QLatin1String("before the restart")));
        QCOMPARE(find<QLabel>("cardAgent")->property("agent").toString(), QStringLiteral("waiting"));
        QVERIFY(find<QLabel>("cardAgent")->isVisible());
    }
    // The card says, live, whether its agent waits on it: waiting while a call is held (and for
    // the gap between a client's retries), not waiting once none has been for that long.
    void card_saysWhetherItsAgentIsWaiting()
    {
        const Operation op = park(Risk::Medium, QStringLiteral("delete_service"), QStringLiteral("web-1"));
        QTRY_COMPARE(shownNonce(), op.nonce);
        QLabel *agent = find<QLabel>("cardAgent");
        QVERIFY(!agent->isVisible()); // no call of this server has waited on it
        m_queue->setWaiting(op.nonce, 1);
        QTRY_COMPARE(agent->property("agent").toString(), QStringLiteral("waiting"));
        QVERIFY(agent->isVisible());
        QVERIFY(agent->text().contains(QLatin1String("waiting for your answer")));
        m_queue->setWaiting(op.nonce, 0);
        QCOMPARE(agent->property("agent").toString(), QStringLiteral("waiting")); // a retry's gap
        m_clock.advance(ApprovalQueue::kWaitingGraceMs);
        QTRY_COMPARE(agent->property("agent").toString(), QStringLiteral("gone"));
        QVERIFY(agent->text().contains(QLatin1String("not waiting now")));
        m_queue->setWaiting(op.nonce, 1);
        QTRY_COMPARE(agent->property("agent").toString(), QStringLiteral("waiting"));
        // The client's own answer to the card's prompt is noted, as deciding nothing.
        QVERIFY(!find<QLabel>("cardClientAnswer")->isVisible());
        m_queue->noteClientAnswer(op.nonce, QStringLiteral("cancel"), 25);
        QTRY_VERIFY(find<QLabel>("cardClientAnswer")->isVisible());
        QVERIFY(find<QLabel>("cardClientAnswer")->text().contains(QLatin1String("(\"cancel\", 25 ms after")));
        QVERIFY(find<QLabel>("cardClientAnswer")->text().contains(QLatin1String("decides nothing")));
        QVERIFY(find<QPushButton>("approveButton")->isVisible());
    }
    // Several selected cards are declined at once, after a confirmation, with one reason.
    void declineSelected_asksThenDeclinesEach()
    {
        const Operation a = park(Risk::Low, QStringLiteral("scale"), QStringLiteral("a"));
        const Operation b = park(Risk::Low, QStringLiteral("scale"), QStringLiteral("b"));
        const Operation c = park(Risk::Low, QStringLiteral("scale"), QStringLiteral("c"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 3);
        QVERIFY(!find<QPushButton>("declineSelected")->isEnabled() || list->selectedItems().size() == 1);
        list->clearSelection();
        list->item(0)->setSelected(true); // c
        list->item(2)->setSelected(true); // a
        QCOMPARE(find<QPushButton>("declineSelected")->text(), QStringLiteral("Decline selected (2)…"));
        QTest::mouseClick(find<QPushButton>("declineSelected"), Qt::LeftButton);
        auto *dialog = find<QInputDialog>("bulkDeclineDialog");
        QTRY_VERIFY(dialog->isVisible());
        QVERIFY2(dialog->labelText().contains(QLatin1String("the 2 selected cards")),
                 qPrintable(dialog->labelText()));
        QVERIFY(!decisionOf(a.nonce));
        dialog->setTextValue(QStringLiteral("cleaning up"));
        dialog->accept();
        QTRY_COMPARE(list->count(), 1);
        QCOMPARE(decisionOf(a.nonce)->outcome, Operation::Status::Declined);
        QCOMPARE(decisionOf(a.nonce)->reason, QStringLiteral("cleaning up"));
        QCOMPARE(decisionOf(c.nonce)->outcome, Operation::Status::Declined);
        QVERIFY(!decisionOf(b.nonce));
    }
    void declineConnection_declinesOnlyThatConnectionsCards_afterAsking()
    {
        const Operation mine1 = park(Risk::Low, QStringLiteral("scale"), QStringLiteral("a"));
        const Operation other =
            park(Risk::Low, QStringLiteral("scale"), QStringLiteral("b"), "Cursor", QStringLiteral("cursor"));
        const Operation mine2 = park(Risk::Low, QStringLiteral("scale"), QStringLiteral("c"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 3);
        list->setCurrentRow(0); // mine2, from vscode
        QCOMPARE(find<QPushButton>("declineConnection")->text(),
                 QStringLiteral("Decline all 2 from \"vscode\"…"));
        QTest::mouseClick(find<QPushButton>("declineConnection"), Qt::LeftButton);
        auto *dialog = find<QInputDialog>("bulkDeclineDialog");
        QTRY_VERIFY(dialog->isVisible());
        dialog->reject(); // Cancel: nothing declined
        QTest::qWait(20);
        QCOMPARE(list->count(), 3);
        QTest::mouseClick(find<QPushButton>("declineConnection"), Qt::LeftButton);
        dialog = find<QInputDialog>("bulkDeclineDialog");
        QTRY_VERIFY(dialog->isVisible());
        dialog->accept();
        QTRY_COMPARE(list->count(), 1);
        QCOMPARE(decisionOf(mine1.nonce)->outcome, Operation::Status::Declined);
        QCOMPARE(decisionOf(mine2.nonce)->outcome, Operation::Status::Declined);
        QVERIFY(!decisionOf(other.nonce));
    }
    void cardList_sortsByRiskAndAge()
    {
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("low"));
        park(Risk::Critical, QStringLiteral("drop"), QStringLiteral("crit"));
        park(Risk::Medium, QStringLiteral("restart"), QStringLiteral("med"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 3);
        QVERIFY(list->item(0)->text().startsWith(QLatin1String("restart"))); // newest first
        auto *sort = find<QComboBox>("cardSort");
        sort->setCurrentIndex(sort->findText(QStringLiteral("Highest risk first")));
        QVERIFY(list->item(0)->text().startsWith(QLatin1String("drop")));
        QVERIFY(list->item(2)->text().startsWith(QLatin1String("scale")));
        sort->setCurrentIndex(sort->findText(QStringLiteral("Oldest first")));
        QVERIFY(list->item(0)->text().startsWith(QLatin1String("scale")));
    }
    // The countdown turns amber in the last minute and red in the last 15 s; an expired card
    // leaves with a notice in the status bar.
    void countdown_warnsNearTheEnd_andExpiryIsSaid()
    {
        park();
        auto *countdown = find<QLabel>("cardCountdown");
        QTRY_COMPARE(countdown->text(), QStringLiteral("Expires in 5:00"));
        QCOMPARE(countdown->property("urgency").toString(), QString());
        m_clock.advance(241'000);
        QCOMPARE(countdown->property("urgency").toString(), QStringLiteral("soon"));
        QVERIFY(countdown->styleSheet().contains(ThemeColours::warningText(countdown->palette()).name()));
        m_clock.advance(45'000);
        QCOMPARE(countdown->property("urgency").toString(), QStringLiteral("now"));
        QVERIFY(countdown->styleSheet().contains(ThemeColours::errorText(countdown->palette()).name()));
        m_clock.advance(15'000);
        m_queue->expireDue();
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 0);
        QVERIFY2(
            m_window->statusBar()->currentMessage().contains(QLatin1String("expired without a decision")),
            qPrintable(m_window->statusBar()->currentMessage()));
    }
    // Connections lists the MCP servers behind the gate, their state and each tool's decision;
    // what an upstream names (its server name, its errors) shows as plain text.
    void connections_showTheUpstreams_andTheirToolsDecisions()
    {
        auto *list = find<UpstreamList>("upstreamList");
        QCOMPARE(list->topLevelItemCount(), 1);
        QVERIFY(list->topLevelItem(0)->text(0).startsWith(QLatin1String("No MCP servers behind the gate")));
        const nlohmann::json status = nlohmann::json::array({{{"name", "fs"},
                                                              {"state", "ready"},
                                                              {"error", ""},
                                                              {"server", "secure-filesystem-server"},
                                                              {"protocol", "2025-11-25"},
                                                              {"tools",
                                                               {{{"name", "fs_read_text_file"},
                                                                 {"decision", "allow"},
                                                                 {"rule", "no rule matched: default allow"}},
                                                                {{"name", "fs_write_file"},
                                                                 {"decision", "deny"},
                                                                 {"rule", "rule 1: fs_write_file → deny"}}}}},
                                                             {{"name", "paas"},
                                                              {"state", "down"},
                                                              {"error", "<b>cannot start</b> paasctl\u202e"},
                                                              {"server", ""},
                                                              {"protocol", ""},
                                                              {"tools", nlohmann::json::array()}}});
        m_window->setUpstreams(QString::fromStdString(status.dump()));
        QCOMPARE(list->topLevelItemCount(), 2);
        QTreeWidgetItem *fs = list->topLevelItem(0);
        QCOMPARE(fs->text(0), QStringLiteral("fs"));
        QCOMPARE(fs->text(1), QStringLiteral("ready"));
        QCOMPARE(fs->text(2), QStringLiteral("secure-filesystem-server, protocol 2025-11-25"));
        QCOMPARE(fs->childCount(), 2);
        QCOMPARE(fs->child(0)->text(0), QStringLiteral("fs_read_text_file"));
        QCOMPARE(fs->child(0)->text(1), QStringLiteral("allow"));
        QCOMPARE(fs->child(1)->text(1), QStringLiteral("deny"));
        QCOMPARE(fs->child(1)->text(2), QStringLiteral("rule 1: fs_write_file → deny"));
        QTreeWidgetItem *paas = list->topLevelItem(1);
        QCOMPARE(paas->text(1), QStringLiteral("down"));
        QVERIFY(
            paas->text(2).startsWith(QLatin1String("<b>cannot start</b> paasctl"))); // as written, not bold
        QVERIFY(!paas->text(2).contains(QChar(0x202e)));                             // no hidden reordering
        m_window->setUpstreams(QStringLiteral("not json"));
        QCOMPARE(list->topLevelItemCount(), 1);
    }
    // The colours that carry a meaning read at 4.5:1 or better on light and dark themes alike.
    void themeColours_readOnLightAndDarkThemes()
    {
        for (const bool dark : {false, true}) {
            const QPalette &palette = dark ? darkPalette() : lightPalette();
            QCOMPARE(ThemeColours::isDark(palette), dark);
            QList<QColor> colours{ThemeColours::errorText(palette), ThemeColours::warningText(palette)};
            for (const Risk risk : {Risk::Low, Risk::Medium, Risk::High, Risk::Critical})
                colours.append(ThemeColours::riskText(risk, palette));
            for (const QColor &colour : colours)
                for (const auto role : {QPalette::Window, QPalette::Base})
                    QVERIFY2(ThemeColours::contrast(colour, palette.color(role)) >= 4.5,
                             qPrintable(QStringLiteral("%1 on %2: %3:1")
                                            .arg(colour.name(), palette.color(role).name())
                                            .arg(ThemeColours::contrast(colour, palette.color(role)))));
        }
    }
    // Under a dark theme: the list's risk colours, the countdown near its end and the banner of a
    // policy change (light on every theme) stay readable. COUNTERSIGN_SHOTS=DIR saves the window.
    void darkTheme_keepsMeaningfulTextReadable()
    {
        const QPalette before = QApplication::palette();
        const auto restore = qScopeGuard([&] { QApplication::setPalette(before); });
        QApplication::setPalette(darkPalette());
        m_window.reset();
        m_window = std::make_unique<MainWindow>(
            MainWindow::Services{*m_queue, m_clock, *m_store, *m_tokens, m_db->connectionName()});
        m_window->resize(1100, 760);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("low"));
        park(Risk::Critical, QStringLiteral("drop"), QStringLiteral("crit"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 2);
        for (int row = 0; row < list->count(); ++row) {
            const QColor text = list->item(row)->foreground().color();
            QVERIFY2(ThemeColours::contrast(text, list->palette().color(QPalette::Base)) >= 4.5,
                     qPrintable(text.name()));
        }
        auto *countdown = find<QLabel>("cardCountdown");
        m_clock.advance(250'000);
        QCOMPARE(countdown->property("urgency").toString(), QStringLiteral("soon"));
        countdown->ensurePolished();
        QVERIFY(ThemeColours::contrast(countdown->palette().color(QPalette::WindowText),
                                       countdown->palette().color(QPalette::Window)) >= 4.5);
        PolicyChangeBanner banner;
        banner.setChange(PolicyChange(), QStringLiteral("/home/me/.config/countersign/config.json"));
        banner.resize(640, 200);
        banner.show();
        auto *title = banner.findChild<QLabel *>(QStringLiteral("policyChangeTitle"));
        QVERIFY(title);
        title->ensurePolished();
        QVERIFY2(ThemeColours::contrast(title->palette().color(QPalette::WindowText),
                                        QColor(0xff, 0xeb, 0xe9)) >= 4.5,
                 qPrintable(title->palette().color(QPalette::WindowText).name()));
        if (const QString shots = qEnvironmentVariable("COUNTERSIGN_SHOTS"); !shots.isEmpty()) {
            QTest::qWait(400); // the layout of the bold countdown, and the audit view's refresh
            QVERIFY(m_window->grab().save(QDir(shots).filePath(QStringLiteral("dark-approvals.png"))));
            m_window->showTab(QStringLiteral("audit"));
            QTest::qWait(400);
            QVERIFY(m_window->grab().save(QDir(shots).filePath(QStringLiteral("dark-audit.png"))));
            QVERIFY(banner.grab().save(QDir(shots).filePath(QStringLiteral("dark-banner.png"))));
        }
    }
    // Alt+1 puts the keyboard in the list (the arrows move at once), Alt+R in the reason; Tab
    // does not stop in the diff or the arguments; a new card takes the keyboard when nothing is typed.
    void keyboard_listAfterAlt1_reasonAfterAltR_tabSkipsTheText()
    {
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("a"));
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("b"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 2);
        QTRY_VERIFY(list->hasFocus()); // the new card took the keyboard
        find<QAction>("aboutAction");  // exists
        QTest::keyClick(m_window.get(), Qt::Key_3, Qt::AltModifier);
        QVERIFY(!list->hasFocus());
        QTest::keyClick(m_window.get(), Qt::Key_1, Qt::AltModifier);
        QTRY_VERIFY(list->hasFocus());
        QCOMPARE(list->currentRow(), 1); // a, shown first, stays shown when b arrives above it
        QCOMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("a"));
        QTest::keyClick(list, Qt::Key_Up);
        QCOMPARE(list->currentRow(), 0);
        QCOMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("b"));
        QTest::keyClick(m_window.get(), Qt::Key_R, Qt::AltModifier);
        QTRY_VERIFY(find<QLineEdit>("declineReason")->hasFocus());
        QCOMPARE(find<QPlainTextEdit>("cardDiff")->focusPolicy(), Qt::ClickFocus);
        QCOMPARE(find<QPlainTextEdit>("cardArguments")->focusPolicy(), Qt::ClickFocus);
        // Typing in the reason: a new card does not take the keyboard away.
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("c"));
        QTRY_COMPARE(list->count(), 3);
        QVERIFY(find<QLineEdit>("declineReason")->hasFocus());
    }
    // After a decline typed in the reason, the keyboard goes to the next card's confirmation: the
    // target typed next lands there, never in the reason; with nothing to type, to the list.
    void keyboard_afterADecision_goesToTheNextCardsFirstField()
    {
        find<ApprovalCard>("approvalCard")->setMinimumShownMs(0);
        park(Risk::High, QStringLiteral("delete"), QStringLiteral("prod-db"));
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("a"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 2);
        QTRY_COMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("prod-db"));
        QTest::keyClick(list, Qt::Key_Up);
        QTRY_COMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("a"));
        QTest::keyClick(m_window.get(), Qt::Key_R, Qt::AltModifier);
        QTRY_VERIFY(find<QLineEdit>("declineReason")->hasFocus());
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("not now"));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE(list->count(), 1);
        QTRY_COMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("prod-db"));
        QTRY_VERIFY(find<QLineEdit>("confirmTarget")->hasFocus());
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("prod-db"));
        QCOMPARE(find<QLineEdit>("confirmTarget")->text(), QStringLiteral("prod-db"));
        QCOMPARE(find<QLineEdit>("declineReason")->text(), QString());
        // Declined from the reason again, with no card needing a confirmation next: the list.
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("b"));
        QTRY_COMPARE(list->count(), 2);
        QTest::keyClick(m_window.get(), Qt::Key_R, Qt::AltModifier);
        QTRY_VERIFY(find<QLineEdit>("declineReason")->hasFocus());
        QCOMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("prod-db")); // shown first, still shown
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE(list->count(), 1);
        QTRY_COMPARE(find<QLabel>("cardTargets")->text(), QStringLiteral("b"));
        QTRY_VERIFY(list->hasFocus());
    }
    // Connections follow the store: a connection added around the window (countersign token add)
    // shows within seconds; each line says when its last request came and the cards of its calls.
    void connections_followTheStore_andSayWhatEachIsDoing()
    {
        auto *list = find<QListWidget>("connectionList");
        const auto lineOf = [list](const QString &name) {
            for (int i = 0; i < list->count(); ++i) {
                if (list->item(i)->data(Qt::UserRole).toString() == name)
                    return list->item(i)->text();
            }
            return QString();
        };
        QVERIFY(lineOf(QStringLiteral("from-the-cli")).isEmpty());
        QVERIFY(m_tokens->add(QStringLiteral("from-the-cli"), QStringLiteral("alice")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!lineOf(QStringLiteral("from-the-cli")).isEmpty(), 5000);
        QVERIFY2(lineOf(QStringLiteral("from-the-cli"))
                     .contains(QLatin1String("no request since this console started")),
                 qPrintable(lineOf(QStringLiteral("from-the-cli"))));
        const qint64 at = QDateTime(QDate(2026, 12, 6), QTime(9, 30, 5)).toMSecsSinceEpoch();
        m_window->connectionsPage()->setLastRequest(QStringLiteral("from-the-cli"), at);
        QVERIFY2(lineOf(QStringLiteral("from-the-cli"))
                     .contains(QLatin1String("last request 2026-12-06 09:30:05")),
                 qPrintable(lineOf(QStringLiteral("from-the-cli"))));
        park(Risk::Medium, QStringLiteral("scale"), QStringLiteral("a"), "Claude Code",
             QStringLiteral("from-the-cli"));
        QTRY_VERIFY2(
            lineOf(QStringLiteral("from-the-cli")).contains(QLatin1String("1 card(s) wait for a decision")),
            qPrintable(lineOf(QStringLiteral("from-the-cli"))));
    }
    // The first start (no connection): the empty page points to Connections, with the key that opens it.
    void firstStart_pointsToConnections()
    {
        auto *open = find<QPushButton>("openConnections");
        QVERIFY(open->isVisible());
        QVERIFY2(open->text().contains(QLatin1String("(Alt+4)")), qPrintable(open->text()));
        QTest::keyClick(m_window.get(), Qt::Key_4, Qt::AltModifier);
        QCOMPARE(find<QTabWidget>("tabs")->currentWidget(), m_window->connectionsPage());
        m_window->showTab(QStringLiteral("approvals"));
        QVERIFY(find<QLabel>("emptyQueue")->text().contains(QLatin1String("No agent is connected yet")));
        QTest::mouseClick(open, Qt::LeftButton);
        QCOMPARE(find<QTabWidget>("tabs")->currentWidget(), m_window->connectionsPage());
        QVERIFY(m_window->connectionsPage()->addConnection(QStringLiteral("ide")));
        QVERIFY(!open->isVisibleTo(m_window.get()));
        QVERIFY(find<QLabel>("emptyQueue")->text().startsWith(QLatin1String("No pending approvals")));
    }
    // Revoke asks first and names the connection; Cancel keeps it; another connection's new token
    // stays on screen; Copy buttons; the setup can be shown again, without the token.
    void connections_revokeAsks_copyAndShowSetupAgain()
    {
        ConnectionsPage *page = m_window->connectionsPage();
        QVERIFY(page->addConnection(QStringLiteral("old")));
        QVERIFY(page->addConnection(QStringLiteral("new")));
        auto *snippets = find<QPlainTextEdit>("connectionSnippets");
        const QString newToken = snippets->toPlainText().section(QLatin1Char('\n'), 1, 1);
        QVERIFY(newToken.startsWith(QLatin1String("cs_")));
        QTest::mouseClick(find<QPushButton>("copyToken"), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(), newToken);
        QTest::mouseClick(find<QPushButton>("copySetup"), Qt::LeftButton);
        QVERIFY(QGuiApplication::clipboard()->text().contains(QLatin1String("== Claude Code, stdio ==")));
        // Each client's setup says what the client itself needs: Gemini CLI's trusted folders.
        QVERIFY(QGuiApplication::clipboard()->text().contains(
            QLatin1String("Then: Gemini CLI runs MCP servers only in folders it trusts")));
        auto *list = find<QListWidget>("connectionList");
        const auto rowOf = [list](const QString &name) {
            for (int i = 0; i < list->count(); ++i) {
                if (list->item(i)->data(Qt::UserRole).toString() == name)
                    return i;
            }
            return -1;
        };
        list->setCurrentRow(rowOf(QStringLiteral("old")));
        QVERIFY(page->revokeSelected());
        auto *box = find<QMessageBox>("revokeConfirmation");
        QTRY_VERIFY(box->isVisible());
        QVERIFY(box->text().contains(QLatin1String("\"old\"")));
        QTest::mouseClick(find<QPushButton>("cancelRevoke"), Qt::LeftButton);
        QTest::qWait(20);
        QCOMPARE(page->activeCount(), 2);
        list->setCurrentRow(rowOf(QStringLiteral("old")));
        QVERIFY(page->revokeSelected());
        QTRY_VERIFY(find<QMessageBox>("revokeConfirmation")->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmRevoke"), Qt::LeftButton);
        QTRY_COMPARE(page->activeCount(), 1);
        QVERIFY(snippets->toPlainText().contains(newToken)); // not wiped by revoking another
        list->setCurrentRow(rowOf(QStringLiteral("new")));
        QTest::mouseClick(find<QPushButton>("showSetup"), Qt::LeftButton);
        QVERIFY(snippets->toPlainText().contains(QLatin1String("<the token shown when \"new\" was added>")));
        QVERIFY(!snippets->toPlainText().contains(newToken));
        QVERIFY(!find<QPushButton>("copyToken")->isEnabled());
    }
    // Warnings can be dismissed; a refused configuration's banner goes once the file is read again.
    void warnings_dismissable_configProblemClearsWhenFixed()
    {
        m_window->addWarning(QStringLiteral("keys in a file"));
        QVERIFY(find<QWidget>("warningBar")->isVisible());
        QTest::mouseClick(find<QPushButton>("dismissWarnings"), Qt::LeftButton);
        QVERIFY(!find<QWidget>("warningBar")->isVisible());
        m_window->setConfigProblem(QStringLiteral("config.json:3: ttlSeconds: must be a number"));
        QVERIFY(find<QWidget>("warningBar")->isVisible());
        QVERIFY(find<QLabel>("warnings")->text().contains(QLatin1String("ttlSeconds")));
        m_window->clearConfigProblem();
        QVERIFY(!find<QWidget>("warningBar")->isVisible());
    }
    void about_showsVersionAndPaths()
    {
        m_window->setPaths(QStringLiteral("/home/me/.config/countersign/config.json"),
                           QStringLiteral("/home/me/.local/share/countersign"));
        find<QAction>("aboutAction")->trigger();
        auto *box = find<QMessageBox>("aboutDialog");
        QTRY_VERIFY(box->isVisible());
        QVERIFY(box->text().contains(QCoreApplication::applicationVersion()));
        QVERIFY(box->informativeText().contains(QLatin1String("/home/me/.config/countersign/config.json")));
        QVERIFY(box->informativeText().contains(QLatin1String("/home/me/.local/share/countersign")));
    }
    // Settings opens the configuration file (made, as an empty object, when missing).
    void settings_opensTheConfigFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/config.json"));
        m_window->setConfig(Config(), path, QString());
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &catcher, "open");
        QTest::mouseClick(find<QPushButton>("openConfigFile"), Qt::LeftButton);
        QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
        QCOMPARE(catcher.opened, QUrl::fromLocalFile(path));
        QFile made(path);
        QVERIFY(made.open(QIODevice::ReadOnly));
        QCOMPARE(made.readAll(), QByteArray("{\n}\n"));
    }
    // Decisions name the person at the console (the OS account), and a summary equal to the prompt
    // is shown once.
    void approver_isTheOsAccount_summaryNotTwice()
    {
        const passwd *account = ::getpwuid(::getuid());
        QVERIFY(account);
        QCOMPARE(ApprovalQueue::consoleUser(),
                 QStringLiteral("console:") + QString::fromLocal8Bit(account->pw_name));
        Operation op = park(Risk::Low, QStringLiteral("write_file"), QStringLiteral("notes.md"),
                            "Claude Code", QStringLiteral("vscode"), false);
        op.plan.summary = op.plan.prompt;
        m_queue->park(op);
        QTRY_COMPARE(find<QLabel>("cardPrompt")->text(), op.plan.prompt);
    }
    // Connections installs the agents' hooks into each client's user settings (a home of the test's
    // own), says where, marks their connection, and Remove asks first; a settings file with comments
    // is refused and left as it was.
    // An upstream's held change of its tools: a banner of its own, its text as plain text, Accept
    // only after it settled, each decision naming its upstream; the first of several held is shown.
    void upstreamWidening_bannerShowsIt_acceptAndKeepNameTheUpstream()
    {
        PolicyChangeBanner *banner = m_window->upstreamChangeBanner();
        QVERIFY(!banner->isVisible());
        QSignalSpy accepted(m_window.get(), &MainWindow::upstreamAccepted);
        QSignalSpy kept(m_window.get(), &MainWindow::upstreamKept);
        m_window->showUpstreamWidening(
            QStringLiteral("fs<b>"),
            {QStringLiteral("tool wipe: readOnlyHint: no → yes (it would run without a card)")},
            QStringLiteral("d1"));
        m_window->showUpstreamWidening(
            QStringLiteral("zz"), {QStringLiteral("tool x: new, says readOnlyHint")}, QStringLiteral("d2"));
        QTRY_VERIFY(banner->isVisible());
        auto *title = banner->findChild<QLabel *>(QStringLiteral("policyChangeTitle"));
        QCOMPARE(title->textFormat(), Qt::PlainText);
        QVERIFY2(title->text().contains(QLatin1String("Upstream fs<b> changed what it says of its tools")),
                 qPrintable(title->text()));
        QVERIFY(banner->findChild<QPlainTextEdit *>(QStringLiteral("policyChangeText"))
                    ->toPlainText()
                    .contains(QStringLiteral("tool wipe: readOnlyHint: no → yes")));
        auto *accept = banner->findChild<QPushButton *>(QStringLiteral("acceptPolicyChange"));
        QVERIFY(!accept->isEnabled()); // not at once: a click meant for something else cannot accept it
        QTRY_VERIFY(accept->isEnabled());
        QTest::mouseClick(accept, Qt::LeftButton);
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(accepted.at(0).at(0).toString(), QStringLiteral("fs<b>"));
        QCOMPARE(accepted.at(0).at(1).toString(), QStringLiteral("d1")); // the listing it showed
        m_window->clearUpstreamWidening(QStringLiteral("fs<b>"));        // as the server answers
        QVERIFY(title->text().contains(QLatin1String("Upstream zz")));
        QTest::mouseClick(banner->findChild<QPushButton *>(QStringLiteral("keepCurrentPolicy")),
                          Qt::LeftButton);
        QCOMPARE(kept.count(), 1);
        QCOMPARE(kept.at(0).at(0).toString(), QStringLiteral("zz"));
        QCOMPARE(kept.at(0).at(1).toString(), QStringLiteral("d2"));
        m_window->clearUpstreamWidening(QStringLiteral("zz"));
        QVERIFY(!banner->isVisible());
    }

    void connections_hooks_installSaysWhere_removeAsks_commentsRefused()
    {
        QTemporaryDir home;
        HookInstaller::Place place;
        place.home = home.path();
        place.dataDir = home.filePath(QStringLiteral("data"));
        place.consoleBase = QStringLiteral("http://127.0.0.1:7331");
        place.shim = {QStringLiteral("/opt/countersign/bin/countersign-hook")};
        place.socket = home.filePath(QStringLiteral("bridge.sock"));
        ClientInstaller installer(*m_tokens, place);
        ConnectionsPage *page = m_window->connectionsPage();
        QVERIFY(!find<QPushButton>("installHooks-claude-code")->isEnabled()); // no installer yet
        m_window->setClientInstaller(&installer);
        auto *state = find<QLabel>("hookState-claude-code");
        QVERIFY(state->text().contains(QLatin1String("no hooks")));
        QVERIFY(!find<QPushButton>("removeHooks-claude-code")->isEnabled());
        // Claude Code: the HTTP hook with the connection's token in its header.
        QTest::mouseClick(find<QPushButton>("installHooks-claude-code"), Qt::LeftButton);
        const QString settings = home.filePath(QStringLiteral(".claude/settings.json"));
        QVERIFY2(state->text().contains(settings), qPrintable(state->text()));
        QVERIFY(find<QLabel>("hooksMessage")
                    ->text()
                    .contains(QLatin1String("as the connection claude-code-hooks")));
        QFile written(settings);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const nlohmann::json hooks = nlohmann::json::parse(written.readAll().toStdString());
        const std::string header =
            hooks.at("hooks").at("PreToolUse").at(0).at("hooks").at(0).at("headers").at("Authorization");
        QVERIFY(m_tokens->authenticate(QByteArray::fromStdString(header.substr(7))).has_value());
        // Set up wrote the MCP server too; Check reports, off the window's thread.
        QVERIFY(QFile::exists(home.filePath(QStringLiteral(".claude.json"))));
        QSignalSpy checked(page->hooksPanel(), &HooksPanel::checked);
        QTest::mouseClick(find<QPushButton>("checkClient-claude-code"), Qt::LeftButton);
        QVERIFY(checked.wait(30000));
        QVERIFY2(state->text().startsWith(QLatin1String("Claude Code: ")), qPrintable(state->text()));
        QVERIFY2(state->text().contains(QLatin1String("Countersign's hooks in ") + settings),
                 qPrintable(state->text()));
        QVERIFY2(state->text().contains(QLatin1String("Countersign's MCP server in")),
                 qPrintable(state->text()));
        auto *list = find<QListWidget>("connectionList");
        QTRY_COMPARE(list->count(), 2); // claude-code-hooks and claude-code-mcp
        const auto hooksLine = list->findItems(QStringLiteral("claude-code-hooks"), Qt::MatchContains);
        QCOMPARE(hooksLine.size(), 1);
        QVERIFY(hooksLine.first()->text().contains(QLatin1String("Claude Code's hooks: installed")));
        QCOMPARE(list->findItems(QStringLiteral("claude-code-mcp"), Qt::MatchContains).size(), 1);
        // Codex: the shim, its token in a file only the user reads.
        QTest::mouseClick(find<QPushButton>("installHooks-codex"), Qt::LeftButton);
        QVERIFY(page->hooksPanel()->installed(QStringLiteral("codex")));
        QFile tokenFile(place.dataDir + QStringLiteral("/hooks/codex.token"));
        QCOMPARE(tokenFile.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
        QVERIFY(tokenFile.open(QIODevice::ReadOnly));
        QVERIFY(m_tokens->authenticate(tokenFile.readAll().trimmed()).has_value());
        // Remove asks; Keep them keeps them; Remove the hooks takes them out and revokes the token.
        QVERIFY(page->hooksPanel()->askToRemove(QStringLiteral("claude-code")));
        QTRY_VERIFY(find<QMessageBox>("removeHooksConfirmation")->isVisible());
        QVERIFY(find<QMessageBox>("removeHooksConfirmation")->text().contains(settings));
        QTest::mouseClick(find<QPushButton>("cancelRemoveHooks"), Qt::LeftButton);
        QTest::qWait(20);
        QVERIFY(page->hooksPanel()->installed(QStringLiteral("claude-code")));
        QTest::mouseClick(find<QPushButton>("removeHooks-claude-code"), Qt::LeftButton);
        QTRY_VERIFY(find<QMessageBox>("removeHooksConfirmation")->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmRemoveHooks"), Qt::LeftButton);
        QTRY_VERIFY(!page->hooksPanel()->installed(QStringLiteral("claude-code")));
        QVERIFY(!m_tokens->authenticate(QByteArray::fromStdString(header.substr(7))).has_value());
        QVERIFY(state->text().contains(QLatin1String("no hooks")));
        // Gemini's settings with comments: refused, the file unchanged, the reason on screen.
        const QString gemini = home.filePath(QStringLiteral(".gemini/settings.json"));
        QVERIFY(QDir().mkpath(home.filePath(QStringLiteral(".gemini"))));
        const QByteArray commented = "{\n  // mine\n  \"theme\": \"dark\"\n}\n";
        {
            QFile f(gemini);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(commented);
        }
        page->hooksPanel()->refresh();
        QVERIFY(find<QLabel>("hookState-gemini")->text().contains(QLatin1String("has comments")));
        QVERIFY(!find<QPushButton>("installHooks-gemini")->isEnabled());
        QVERIFY(!page->hooksPanel()->install(QStringLiteral("gemini")));
        QFile after(gemini);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), commented);
        m_window->setClientInstaller(nullptr);
    }
    void connections_addShowsTheTokenOnce_andRevokes()
    {
        ConnectionsPage *page = m_window->connectionsPage();
        page->setEndpoint(QStringLiteral("http://127.0.0.1:7331/mcp"),
                          {QStringLiteral("/opt/count ersign"), QStringLiteral("--stdio"),
                           QStringLiteral("--data-dir"), QStringLiteral("/home/me/my \"data\"")});
        QVERIFY(page->addConnection(QStringLiteral("cursor")));
        const QString shown =
            page->findChild<QPlainTextEdit *>(QStringLiteral("connectionSnippets"))->toPlainText();
        QVERIFY(shown.contains(QLatin1String(
            "claude mcp add --scope user --transport http countersign http://127.0.0.1:7331/mcp")));
        // Every client over both transports; paths with spaces and quotes stay one argument.
        for (const char *header :
             {"== Claude Code, HTTP ==", "== Claude Code, stdio ==", "== Claude Desktop, stdio",
              "== VS Code, HTTP", "== VS Code, stdio", "== Cursor, HTTP", "== Cursor, stdio",
              "== Gemini CLI, HTTP", "== Gemini CLI, stdio", "== Codex, HTTP", "== Codex, stdio"})
            QVERIFY2(shown.contains(QLatin1String(header)), header);
        QVERIFY(shown.contains(
            QLatin1String("-- '/opt/count ersign' --stdio --data-dir '/home/me/my \"data\"'")));
        QVERIFY(shown.contains(QLatin1String("\"command\": \"/opt/count ersign\"")));
        QVERIFY(shown.contains(QLatin1String("\"/home/me/my \\\"data\\\"\"")));
        // The VS Code file may be committed: the token stays out of it.
        const QString vsCode =
            shown.section(QStringLiteral("== VS Code, stdio"), 1).section(QStringLiteral("\n=="), 0, 0);
        QVERIFY(vsCode.contains(QLatin1String("${input:countersign-token}")));
        const QString token = shown.section(QLatin1Char('\n'), 1, 1);
        QVERIFY(token.startsWith(QLatin1String("cs_")));
        QVERIFY(!vsCode.contains(token));
        QVERIFY(m_tokens->authenticate(token.toLatin1()).has_value());
        QVERIFY(!page->addConnection(QStringLiteral("cursor"))); // an active name is refused
        auto *list = page->findChild<QListWidget *>(QStringLiteral("connectionList"));
        list->setCurrentRow(0);
        QVERIFY(page->revokeSelected());
        QTRY_VERIFY(find<QMessageBox>("revokeConfirmation")->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmRevoke"), Qt::LeftButton);
        QTRY_VERIFY(!m_tokens->authenticate(token.toLatin1()).has_value());
    }
};

QTEST_MAIN(MainWindowTest)
#include "mainwindow_test.moc"
