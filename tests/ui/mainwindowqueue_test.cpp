// The queue of cards in the window under the offscreen platform: the list and its order, declining several or
// a connection's, the countdown, cards from before a restart, the keyboard's way through, and quitting with
// cards waiting.
#include "mainwindowfixture.h"

#include <QTest>

class MainWindowQueueTest : public QObject, protected MainWindowFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

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
        QCOMPARE(agent->text(), QStringLiteral("Agent waiting"));
        QVERIFY(agent->toolTip().contains(QLatin1String("waiting for your answer")));
        m_queue->setWaiting(op.nonce, 0);
        QCOMPARE(agent->property("agent").toString(), QStringLiteral("waiting")); // a retry's gap
        m_clock.advance(ApprovalQueue::kWaitingGraceMs);
        QTRY_COMPARE(agent->property("agent").toString(), QStringLiteral("gone"));
        QCOMPARE(agent->text(), QStringLiteral("Agent not waiting"));
        QVERIFY(agent->toolTip().contains(QLatin1String("not waiting now")));
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
        QVERIFY(list->item(0)->text().startsWith(QLatin1String("Delete med"))); // newest first
        auto *sort = find<QComboBox>("cardSort");
        sort->setCurrentIndex(sort->findText(QStringLiteral("Highest risk first")));
        QVERIFY(list->item(0)->text().startsWith(QLatin1String("Delete crit")));
        QVERIFY(list->item(2)->text().startsWith(QLatin1String("Delete low")));
        sort->setCurrentIndex(sort->findText(QStringLiteral("Oldest first")));
        QVERIFY(list->item(0)->text().startsWith(QLatin1String("Delete low")));
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
};

QTEST_MAIN(MainWindowQueueTest)
#include "mainwindowqueue_test.moc"
