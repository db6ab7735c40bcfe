// The console's widgets under the offscreen platform: cards for parked approvals, Approve and
// Decline by click and by shortcut, the typed-name gate, the minimum time on screen, reveal,
// agent text shown literally, the audit model, filters and export.
#include "mainwindowfixture.h"

#include <QTest>

class MainWindowTest : public QObject, protected MainWindowFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    // What the user asked (from the agent's session record) is said first on the card, above the
    // headline, as plain text; it is kept with the card's plan in the store, its digest with it.
    void theUsersRequest_isSaidFirst_asPlainText()
    {
        m_request = QStringLiteral(
            "You asked Claude Code: \u201c<b>remove</b> the symlink ~/.pi/agent/sessions\u201d. "
            "Your request did not name ~/.pi.");
        const Operation op = park(Risk::High, QStringLiteral("agent:shell"), QStringLiteral(".pi"));
        m_request.clear();
        QTRY_COMPARE(find<QListWidget>("pendingList")->count(), 1);
        auto *request = find<QLabel>("cardRequest");
        QTRY_VERIFY(request->isVisible());
        QVERIFY2(request->text().contains(QLatin1String("<b>remove</b> the symlink")),
                 qPrintable(request->text()));
        QVERIFY(request->text().endsWith(QLatin1String("Your request did not name ~/.pi.")));
        QCOMPARE(request->textFormat(), Qt::PlainText);
        QVERIFY(request->mapTo(m_window.get(), QPoint()).y() <
                find<QLabel>("cardTitle")->mapTo(m_window.get(), QPoint()).y());
        auto stored = m_store->operation(op.nonce);
        QVERIFY(stored.ok() && stored.value());
        QCOMPARE(stored.value()->plan.request, op.plan.request);
        QCOMPARE(stored.value()->plan.digest(), op.planDigest);
        Plan without = op.plan;
        without.request.clear();
        QVERIFY(!without.toJson().contains("request")); // a plan with none keeps the digest it had before
        QVERIFY(without.digest() != op.planDigest);
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
        QVERIFY(!find<QLabel>("cardRequest")->isVisible()); // no request known: nothing said of one
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
        QVERIFY(
            find<QListWidget>("pendingList")
                ->item(0)
                ->text()
                .startsWith(QStringLiteral("Delete api\nClaude Code: scale {"))); // newest first, by headline
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
        QCOMPARE(find<QLabel>("cardRisk")->text(), QStringLiteral("Critical risk"));
        QCOMPARE(find<QLabel>("cardTitle")->text(), QStringLiteral("Delete orders; it cannot be undone"));
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
};

QTEST_MAIN(MainWindowTest)
#include "mainwindow_test.moc"
