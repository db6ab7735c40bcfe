// The gate over time: retries held for the poll window, the progress hold and a task's, woken by their
// decision; expiry by the injected clock, abandoned and timed-out cards, and an approval waiting for the next
// identical call.
#include "gatetestfixture.h"

#include <QTest>

class GateHoldTest : public QObject, protected GateFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void expiry_isDecidedByTheInjectedClock()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        m_clock.advance(300'001);
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Approval expired")));
        QCOMPARE(m_queue->pending().size(), 0); // the card left the queue
        auto d = m_store->decision(nonce);
        QVERIFY(d.ok() && d.value());
        QCOMPARE(d.value()->outcome, Operation::Status::Expired);
        // Approving an expired card is refused, and nothing runs.
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(m_action.applyRuns, 0);
    }

    void approvedThenRetriedAfterExpiry_isExpired()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        m_clock.advance(300'001);
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Approval expired")));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void queueSweep_expiresCardsWithoutAnyRetry()
    {
        QVERIFY(firstPass());
        m_clock.advance(300'001);
        m_queue->expireDue();
        QCOMPARE(m_queue->pending().size(), 0);
    }

    void pending_isHeldForThePollWindow_thenAsksAgain()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json r;
        QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE_JSON(r.at("requestState"), json(state));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void heldRetry_isWokenByTheDecision()
    {
        makeGate(nullptr, nullptr, 10'000);
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out);
        QTest::qWait(100);
        QVERIFY(!out->has_value());
        QCOMPARE(m_gate->heldCount(), 1);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 2000);
        QVERIFY(timer.elapsed() < 1000); // woken, not timed out after 10 s
        std::string said;
        QVERIFY(textOf(**out, said));
        QCOMPARE(said, std::string("deleted web-1"));
    }

    // Approved after the agent stopped waiting (a 2026 client that gave up its rounds): the
    // agent's next identical call, without the ticket, runs the approved card once, with its
    // receipt, instead of making a new card; a call after that gets a new card.
    void approvedWhileNoCallWaits_nextIdenticalCall_runsIt()
    {
        QVERIFY(firstPass({{"service", "web-1"}}));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("nonce"), json(nonce.toStdString()));
        QCOMPARE(m_action.applyRuns, 1);
        QCOMPARE(m_queue->pending().size(), 0);
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_action.applyRuns, 1);
    }

    // The same for a 2025-era call: held, answered "still waiting" at the hold limit, approved
    // before the agent calls again; the next call runs it. Another connection's identical call,
    // or a different argument, never does.
    void legacy_approvedBetweenHoldLimitAndNextCall_nextCallRunsIt()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{300'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_clock.advance(500);
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY(QString::fromStdString(said).contains(QLatin1String("same arguments")));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        // Not another connection's call, nor other arguments.
        const Principal other{2, QStringLiteral("other"), {}};
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}), &other), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(asResult(call(params({{"service", "web-2"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 0);
        out->reset();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_VERIFY(out->has_value());
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("nonce"), json(nonce.toStdString()));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // A 2025-era call that gets progress notes (it sent a progress token) is held for the progress
    // hold; one that gets none, for the legacy hold.
    void legacy_withProgress_isHeldForTheProgressHold()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{300'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500, 2000});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        auto quiet = std::make_shared<std::optional<ToolReply>>();
        auto patient = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "quiet"}}), quiet, asked);
        startLegacy(params({{"service", "patient"}}), patient, asked, json(7));
        QTRY_COMPARE(m_gate->heldCount(), 2);
        m_clock.advance(500);
        QTRY_VERIFY(quiet->has_value());
        QTest::qWait(20);
        QVERIFY(!patient->has_value());
        m_clock.advance(1499);
        QTest::qWait(20);
        QVERIFY(!patient->has_value());
        m_clock.advance(1);
        QTRY_VERIFY(patient->has_value());
        std::string said;
        QVERIFY(textOf(**patient, said));
        QVERIFY(QString::fromStdString(said).contains(QLatin1String("same arguments")));
    }

    // A 2025-11-25 task's call is held past both hold limits, until its ticket expires (its
    // client polls the task, not this request); decided meanwhile, it is answered at once.
    void legacy_task_isHeldUntilTheTicketExpires()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{10'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500, 2000});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "task"}}), out, asked, json(7), std::make_shared<CallCancel>());
        QTRY_COMPARE(m_gate->heldCount(), 1);
        QVERIFY(asked->isEmpty()); // a task's request was answered already: nothing to ask on
        m_clock.advance(9'999);
        QTest::qWait(20);
        QVERIFY(!out->has_value());
        m_clock.advance(1);
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY2(QString::fromStdString(said).contains(QLatin1String("expired")), said.c_str());
        QCOMPARE(m_action.applyRuns, 0);
    }

    // tasks/cancel ends the hold at once with nothing run, and decides nothing: the card waits,
    // and approved, it waits for the next identical call, which runs it once.
    void legacy_task_cancelled_endsItsHold_runsNothing_cardWaits()
    {
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        auto task = std::make_shared<CallCancel>();
        startLegacy(params({{"service", "web-1"}}), out, asked, nullptr, task);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        const QString nonce = m_queue->pending().first().nonce;
        task->cancel();
        QTRY_VERIFY(out->has_value());
        QCOMPARE(m_gate->heldCount(), 0);
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY2(QString::fromStdString(said).contains(QLatin1String("cancelled")), said.c_str());
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTest::qWait(50);
        QCOMPARE(m_action.applyRuns, 0);
        auto again = std::make_shared<std::optional<ToolReply>>();
        startLegacy(params({{"service", "web-1"}}), again, asked);
        QTRY_VERIFY(again->has_value());
        QVERIFY(textOf(**again, said));
        QCOMPARE(said, std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // A 2026-07-28 round whose transport sends progress notes (a progress token) is held for the
    // progress hold rather than the poll window.
    void roundWithProgress_isHeldForTheProgressHold()
    {
        m_stack->rebuildGate(
            Policy::fromJson(nullptr, nullptr).value(),
            Gate::Settings{300'000, 300, QStringLiteral("http://127.0.0.1:9/approvals/"), 500, 2000});
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        McpRequest request;
        request.id = 2;
        request.method = QStringLiteral("tools/call");
        request.params = params({{"service", "web-1"}}, state);
        request.envelope.protocolVersion = QLatin1String(JsonRpc::kProtocolVersion);
        request.envelope.progressToken = "p-1";
        QVERIFY(!request.envelope.readClient(m_caps, m_clientInfo));
        auto out = std::make_shared<std::optional<ToolReply>>();
        const CallContext context{m_principal, Transport::Http};
        const json arguments = request.params.at("arguments");
        McpGate::call(*m_gate, m_actionPtr, ToolCall{arguments, request.params, request, context},
                      [out](ToolReply reply) { *out = std::move(reply); });
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_clock.advance(1999);
        QTest::qWait(20);
        QVERIFY(!out->has_value()); // past the 300 ms poll window
        m_clock.advance(1);
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(**out, r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
    }

    // An approved card whose ticket expired is not run by a later call: that call gets a new card.
    void approvedThenExpired_nextCall_makesANewCard()
    {
        QVERIFY(firstPass({{"service", "web-1"}}));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        m_clock.advance(300'000);
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(m_queue->pending().first().nonce != nonce);
        QCOMPARE(m_action.applyRuns, 0);
    }

    // No one decided before the TTL: "abandoned" when its agent had stopped waiting (its last
    // held call ended and none came back), "expired" while a call of its agent waited. Both are in
    // the chain, and it verifies.
    void undecidedAtTtl_agentGone_isAbandoned_agentWaiting_isExpired()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "gone"}}, &state));
        const QString gone = m_queue->pending().first().nonce;
        json r;
        QVERIFY(asResult(callHeld(params({{"service", "gone"}}, state)), r)); // held, then it gave up
        QVERIFY(firstPass({{"service", "waits"}}, &state));
        QString waits;
        for (const Operation &op : m_queue->pending())
            if (op.nonce != gone)
                waits = op.nonce;
        auto held = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "waits"}}, state), held);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        QTRY_COMPARE(m_queue->agentOf(waits), ApprovalQueue::Agent::Waiting);
        m_clock.advance(300'000);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(gone).value()->status, Operation::Status::Abandoned);
        QCOMPARE(m_store->decision(gone).value()->reason,
                 QStringLiteral("the ticket expired after its agent stopped waiting"));
        QCOMPARE(m_store->operation(waits).value()->status, Operation::Status::Expired);
        QTRY_VERIFY(held->has_value());
        QVERIFY(asResult(std::move(**held), r));
        QCOMPARE_JSON(r.at("structuredContent").at("decision"), json("expired"));
        auto verified = m_store->verifyChain(m_signer->publicKey());
        QVERIFY2(verified.ok() && verified.value().firstBrokenSeq == 0,
                 qPrintable(verified.ok() ? verified.value().problem : verified.error()));
        QCOMPARE(m_action.applyRuns, 0);
    }

    // Approved, but its agent never called again before the TTL: the approval times out (nothing
    // ran, nothing can run it any more), recorded in the chain; a run already claimed never does.
    void approvedNeverRun_timesOutAtTtl_aRunOneDoesNot()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "lapse"}}, &state));
        const QString lapse = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(lapse, QStringLiteral("console:alice")).ok());
        std::string ranState;
        QVERIFY(firstPass({{"service", "ran"}}, &ranState));
        const QString ran = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(ran, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "ran"}}, ranState)), r));
        QCOMPARE(text(r), std::string("deleted ran"));
        m_clock.advance(299'999);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(lapse).value()->status, Operation::Status::Approved);
        m_clock.advance(1);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(lapse).value()->status, Operation::Status::TimedOut);
        QCOMPARE(m_store->operation(ran).value()->status, Operation::Status::Approved);
        // Neither its ticket nor a fresh identical call runs it now.
        QVERIFY(asResult(call(params({{"service", "lapse"}}, state)), r));
        QCOMPARE_JSON(r.at("structuredContent").at("decision"), json("expired"));
        QVERIFY(asResult(call(params({{"service", "lapse"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 1);
        auto verified = m_store->verifyChain(m_signer->publicKey());
        QVERIFY2(verified.ok() && verified.value().firstBrokenSeq == 0,
                 qPrintable(verified.ok() ? verified.value().problem : verified.error()));
        auto rows = m_store->report(false);
        QVERIFY(rows.ok());
        QStringList decisions;
        for (const json &row : rows.value())
            decisions.append(QString::fromStdString(row.value("decision", "")));
        QVERIFY2(decisions.contains(QStringLiteral("timed-out")), qPrintable(decisions.join(',')));
    }

    // Deciding one card answers only the calls held for it: a held call for another card, of
    // another connection or of the same one, goes on waiting.
    void decidingOneCard_releasesOnlyItsOwnHeldCalls()
    {
        const Principal other{2, QStringLiteral("other"), {}};
        auto a = std::make_shared<std::optional<ToolReply>>();
        auto b = std::make_shared<std::optional<ToolReply>>();
        auto c = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "a"}}), a, asked);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        startLegacy(params({{"service", "c"}}), c, asked);
        QTRY_COMPARE(m_gate->heldCount(), 2);
        std::string stateB;
        json first;
        QVERIFY(asResult(call(params({{"service", "b"}}), &other), first));
        stateB = first.at("requestState").get<std::string>();
        start(params({{"service", "b"}}, stateB), b, &other);
        QTRY_COMPARE(m_gate->heldCount(), 3);
        QString nonceA;
        for (const Operation &op : m_queue->pending()) {
            if (op.arguments.value("service", "") == "a")
                nonceA = op.nonce;
        }
        QVERIFY(!nonceA.isEmpty());
        QVERIFY(m_queue->approve(nonceA, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(a->has_value());
        QTest::qWait(400); // past the 200 ms store poll
        QVERIFY(!b->has_value());
        QVERIFY(!c->has_value());
        QCOMPARE(m_gate->heldCount(), 2);
        QCOMPARE(m_action.applyRuns, 1);
    }

    // A held call whose connection is revoked before the approval arrives runs nothing.
    void heldCall_ofARevokedConnection_runsNothing_evenApproved()
    {
        bool active = true;
        m_gate->setConnectionCheck([&active](const Principal &) { return active; });
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(m_queue->pending().size(), 1);
        active = false;
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QVERIFY2(text(r).find("was revoked before this approved call ran. Nothing was run.") !=
                     std::string::npos,
                 text(r).c_str());
        QCOMPARE(m_action.applyRuns, 0);
    }
};

QTEST_GUILESS_MAIN(GateHoldTest)
#include "gatehold_test.moc"
