// "From now on" in the window (issue 51), offscreen: a card's Allow from now on opens the dialog
// that offers the narrowest rule first and shows the rule it writes; confirmed, the card is approved
// and the grant kept in the audit chain (Grants), listed in Settings with its use count, and
// revoked there after a question. A card whose loss cannot be taken back offers no allow; its
// Deny from now on declines the card and grants the deny.
#include "grantdialog.h"
#include "grants.h"
#include "grantspanel.h"
#include "mainwindowfixture.h"

#include <QComboBox>
#include <QRadioButton>
#include <QTableWidget>

class GrantsTest : public QObject, private MainWindowFixture
{
    Q_OBJECT
private:
    std::unique_ptr<Grants> m_grants;

    GrantDialog *dialog() { return m_window->findChild<GrantDialog *>(QStringLiteral("grantDialog")); }

private Q_SLOTS:
    void init()
    {
        setUp();
        m_grants = std::make_unique<Grants>(*m_store, m_clock, m_signer);
        QVERIFY(m_grants->load().ok());
        m_window->setGrants(m_grants.get(), QStringLiteral("console:alice"));
    }
    void cleanup()
    {
        tearDown();
        m_grants.reset();
    }

    void allowFromNowOn_approvesTheCardAndKeepsTheNarrowRuleChosen()
    {
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-1"));
        QTRY_COMPARE(shownNonce(), op.nonce);
        auto *allow = find<QPushButton>("allowFromNow");
        QVERIFY(allow->isVisible());
        QVERIFY(!allow->isEnabled()); // the card has not been on screen long enough
        readTheCard();
        QTRY_VERIFY(allow->isEnabled());
        QTest::mouseClick(allow, Qt::LeftButton);
        QTRY_VERIFY(dialog());
        // The narrowest first and chosen: this exact call; the rule it writes is shown.
        auto *exact = dialog()->findChild<QRadioButton *>(QStringLiteral("grantScope_call"));
        QVERIFY(exact && exact->isChecked());
        QVERIFY(dialog()->findChild<QRadioButton *>(QStringLiteral("grantScope_tool")));
        auto *rule = dialog()->findChild<QLabel *>(QStringLiteral("grantRule"));
        QVERIFY(rule->text().contains(QLatin1String("\"scope\": \"call\"")));
        // A call that came with no agent session (an MCP client's): "this agent session" is not offered.
        auto *lasts = dialog()->findChild<QComboBox *>(QStringLiteral("grantLasts"));
        QCOMPARE(lasts->findData(int(GrantDialog::Lasts::Session)), -1);
        dialog()->choose(1, GrantDialog::Lasts::Hour);
        QVERIFY(rule->text().contains(QLatin1String("\"scope\": \"tool\"")));
        QVERIFY(!decisionOf(op.nonce)); // nothing decided before the confirmation
        QTest::mouseClick(dialog()->findChild<QPushButton *>(QStringLiteral("confirmGrant")), Qt::LeftButton);
        QTRY_COMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Approved);
        const QList<Grant> live = m_grants->live();
        QCOMPARE(live.size(), 1);
        QCOMPARE(live.first().scope, Grant::Scope::Tool);
        QCOMPARE(live.first().tool, QStringLiteral("restart_service"));
        QCOMPARE(live.first().by, m_queue->reviewer());
        QCOMPARE(live.first().expiresMs, m_clock.nowMs() + 3600 * 1000);
        // It is in the chain, and verify holds.
        QCOMPARE(m_store->eventsOf(QStringLiteral("grant:") + live.first().id, QStringLiteral("grant-added"))
                     .value()
                     .size(),
                 1);
        QVERIFY(m_store->verifyChain(m_signer.publicKey()).ok());

        // Settings lists it; Revoke asks first, then takes it back.
        auto *table = find<QTableWidget>("grantsTable");
        QTRY_COMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("Allow"));
        QVERIFY(table->item(0, 1)->text().contains(QLatin1String("restart_service with any arguments")));
        QCOMPARE(table->item(0, 3)->text(), QStringLiteral("0"));
        table->selectRow(0);
        QTest::mouseClick(find<QPushButton>("revokeGrant"), Qt::LeftButton);
        auto *question = m_window->findChild<QMessageBox *>(QStringLiteral("revokeGrantQuestion"));
        QTRY_VERIFY(question = m_window->findChild<QMessageBox *>(QStringLiteral("revokeGrantQuestion")));
        QCOMPARE(m_grants->live().size(), 1);
        QTest::mouseClick(question->findChild<QPushButton *>(QStringLiteral("confirmRevokeGrant")),
                          Qt::LeftButton);
        QTRY_COMPARE(m_grants->live().size(), 0);
        QTRY_COMPARE(table->rowCount(), 0);
    }

    // One person's grant never stands for a team's two-person review.
    // An agent's call that came with its session id: "while this agent session lasts" binds the
    // grant to it, for at most a day, and its rule says so.
    void agentSessionCard_offersAGrantForThatSession()
    {
        const Operation parked =
            park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-9"));
        Operation op = parked;
        op.clientInfo["session"] = "session-42";
        GrantDialog dialog(Grant::offersFor(op, Verdict::Allow), m_clock, op.agentSession());
        dialog.choose(0, GrantDialog::Lasts::Session);
        const Grant chosen = dialog.chosen();
        QCOMPARE(chosen.session, QStringLiteral("session-42"));
        QCOMPARE(chosen.expiresMs, m_clock.nowMs() + GrantDialog::kSessionGrantMs);
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("grantRule"))
                    ->text()
                    .contains(QLatin1String("session-42")));
        dialog.choose(0, GrantDialog::Lasts::Hour);
        QVERIFY(dialog.chosen().session.isEmpty());
    }

    void cardThatNeedsTwoPeople_offersNoAllow()
    {
        Review review;
        review.people = 2;
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-9"),
                                  "Claude Code", QStringLiteral("vscode"), true, review);
        QTRY_COMPARE(shownNonce(), op.nonce);
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("denyFromNow")->isEnabled());
        QVERIFY(!find<QPushButton>("allowFromNow")->isEnabled());
    }

    void cancelledDialog_decidesAndGrantsNothing()
    {
        const Operation op = park(Risk::Medium, QStringLiteral("restart_service"), QStringLiteral("web-2"));
        QTRY_COMPARE(shownNonce(), op.nonce);
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("allowFromNow")->isEnabled());
        find<QPushButton>("allowFromNow")->click();
        QTRY_VERIFY(dialog());
        QTest::keyClick(dialog(), Qt::Key_Return); // not a default button: Enter grants nothing
        QVERIFY(!decisionOf(op.nonce));
        QVERIFY(m_grants->live().isEmpty());
        dialog()->findChild<QPushButton *>(QStringLiteral("cancelGrant"))->click();
        QVERIFY(!decisionOf(op.nonce));
        QVERIFY(m_grants->live().isEmpty());
    }

    void irreversibleCard_offersNoAllow_andDenyFromNowOnDeclinesIt()
    {
        const Operation op = park(Risk::High, QStringLiteral("delete_service"), QStringLiteral("db-1"));
        QTRY_COMPARE(shownNonce(), op.nonce);
        readTheCard();
        QTRY_VERIFY(find<QPushButton>("denyFromNow")->isEnabled());
        QVERIFY(!find<QPushButton>("allowFromNow")->isEnabled());
        QVERIFY(find<QPushButton>("allowFromNow")->toolTip().contains(QLatin1String("cannot be taken back")));
        find<QPushButton>("allowFromNow")->click(); // disabled: nothing opens
        QVERIFY(!dialog());
        find<QPushButton>("denyFromNow")->click();
        QTRY_VERIFY(dialog());
        QCOMPARE(dialog()->windowTitle(), QStringLiteral("Deny from now on"));
        dialog()->choose(0, GrantDialog::Lasts::Always);
        dialog()->findChild<QPushButton *>(QStringLiteral("confirmGrant"))->click();
        QTRY_COMPARE(decisionOf(op.nonce)->outcome, Operation::Status::Declined);
        QCOMPARE(m_grants->live().size(), 1);
        const Grant g = m_grants->live().first();
        QCOMPARE(g.verdict, Verdict::Deny);
        QCOMPARE(g.expiresMs, 0);
        QVERIFY(decisionOf(op.nonce)->reason.contains(g.id));
        QVERIFY(g.covers(op.tool, op.principal, op.arguments, op.argsDigest));
    }
};

QTEST_MAIN(GrantsTest)
#include "grants_test.moc"
