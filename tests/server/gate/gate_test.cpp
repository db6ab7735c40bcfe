// The gate end to end without sockets: a real SQLite file, the real sealer and signer, the approval
// queue deciding, a fake clock for expiry, and a fake action that counts its runs.
#include "gatetestfixture.h"

#include <QTest>

class GateTest : public QObject, protected GateFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void firstPass_parksCard_andAsksWithSealedState()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QCOMPARE(m_queue->pending().size(), 1);
        const Operation card = m_queue->pending().first();
        QCOMPARE(card.tool, QStringLiteral("delete_service"));
        QCOMPARE(card.principal, QStringLiteral("agent"));
        QCOMPARE(card.clientName(), QStringLiteral("test-client"));
        QCOMPARE(card.plan.prompt, QStringLiteral("Delete service web-1?"));
        QCOMPARE(card.expiresMs - card.createdMs, 300'000);
        QVERIFY(QString::fromStdString(state).startsWith(QLatin1String("cs1.k1.")));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void approved_runsOnce_withVerifiableReceipt()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
        const json receipt = r.at("_meta").at(Gate::kReceiptMetaKey);
        QVERIFY(ReceiptSigner::verify(receipt, m_signer->publicKey()).ok());
        QCOMPARE_JSON(receipt.at("approver"), json("console:alice"));
        QCOMPARE_JSON(receipt.at("nonce"), json(nonce.toStdString()));
        QCOMPARE_JSON(receipt.at("connection"), json("agent"));
        json forged = receipt;
        forged["approver"] = "console:mallory";
        QVERIFY(!ReceiptSigner::verify(forged, m_signer->publicKey()).ok());
        // Every later retry converges on the stored result; nothing runs again.
        json again;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), again));
        QCOMPARE_JSON(again, r);
        QCOMPARE(m_action.applyRuns, 1);
    }

    void tamperedState_everyBitFlip_isRejected()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        // Flip each bit of a sample of positions across the whole sealed string.
        for (size_t i = 0; i < state.size(); i += 7) {
            for (int bit = 0; bit < 8; bit += 3) {
                std::string bad = state;
                bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
                ProtocolError e;
                QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, bad)), e));
                QCOMPARE(e.code, JsonRpc::kInvalidParams);
            }
        }
        ProtocolError foreign;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, std::string("cs1.k1.AAAA"))), foreign));
        QCOMPARE(foreign.code, JsonRpc::kInvalidParams);
        QCOMPARE(m_action.applyRuns, 0);
    }

    void argsSwappedAfterApproval_isRejected()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "staging"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "production"}}, state)), e));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
        QVERIFY(e.message.contains(QLatin1String("arguments differ")));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void anotherPrincipalsTicket_isRejected()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        const Principal other{2, QStringLiteral("other-agent"), {}};
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, state), &other), e));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
        QVERIFY(e.message.contains(QLatin1String("another connection")));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void foreignKeyTicket_isRejected()
    {
        TicketSealer other(TicketSealer::generateKey(), QStringLiteral("k1"));
        Ticket t;
        t.sub = QStringLiteral("agent");
        t.op = QStringLiteral("delete_service");
        t.nonce = QStringLiteral("00000000000000000000000000000000");
        t.exp = m_clock.nowMs() + 1000;
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}}, other.seal(t).toStdString())), e));
        QCOMPARE(e.code, JsonRpc::kInvalidParams);
    }

    void decline_withReason_namesWhoAndWhy()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("wrong cluster"))
                    .ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QVERIFY(r.value("isError", false));
        QCOMPARE(text(r), std::string("Declined by console:alice: wrong cluster. Nothing was run."));
        QCOMPARE_JSON(r.at("structuredContent").at("reason"), json("wrong cluster"));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void planDrift_supersedesTheCard_andStartsAFreshOne()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString oldNonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(oldNonce, QStringLiteral("console:alice")).ok());
        m_action.diff = QStringLiteral("-service web-1\n-volume data-7\n"); // the world moved
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(r.at("requestState").get<std::string>() != state);
        QCOMPARE(m_action.applyRuns, 0);
        QCOMPARE(m_queue->pending().size(), 1);
        const Operation fresh = m_queue->pending().first();
        QCOMPARE(fresh.supersedes, oldNonce);
        QCOMPARE(fresh.plan.diff, m_action.diff);
        auto old = m_store->operation(oldNonce);
        QCOMPARE(old.value()->status, Operation::Status::Superseded);
        // The old ticket stays dead: a retry of it is handed the one replacement card.
        json stale;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), stale));
        QCOMPARE_JSON(stale.at("resultType"), json("input_required"));
        QVERIFY(stale.at("requestState").get<std::string>() != state); // a ticket for the replacement
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_action.applyRuns, 0);
    }

    void twentyConcurrentRetries_runExactlyOnce()
    {
        m_action.applyDelayMs = 200;
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        std::vector<std::shared_ptr<std::optional<ToolReply>>> outs;
        for (int i = 0; i < 20; ++i) {
            outs.push_back(std::make_shared<std::optional<ToolReply>>());
            start(params({{"service", "web-1"}}, state), outs.back());
        }
        for (const auto &out : outs)
            QTRY_VERIFY_WITH_TIMEOUT(out->has_value(), 5000);
        QCOMPARE(m_action.applyRuns, 1);
        json first;
        QVERIFY(asResult(**outs.front(), first));
        for (const auto &out : outs) {
            json each;
            QVERIFY(asResult(**out, each));
            QCOMPARE_JSON(each, first);
        }
    }

    void drain_refusesNewCalls_letsTheRunInFlightEnd_thenIsIdle()
    {
        m_action.applyDelayMs = 200;
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        std::string other;
        QVERIFY(firstPass({{"service", "web-2"}}, &other));
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out);
        QTRY_COMPARE(m_gate->runningCount(), 1);
        QSignalSpy idle(m_gate, &Gate::idle);
        m_gate->drain();
        QCOMPARE(idle.count(), 0); // a run is in flight
        json refused;
        QVERIFY(asResult(call(params({{"service", "web-3"}})), refused));
        QCOMPARE_JSON(refused.at("isError"), json(true));
        QVERIFY(QString::fromStdString(text(refused)).startsWith(QLatin1String("Countersign is quitting")));
        json retry;
        QVERIFY(asResult(call(params({{"service", "web-2"}}, other)), retry));
        QCOMPARE_JSON(retry.at("isError"), json(true)); // retries too: nothing new starts
        QCOMPARE(m_queue->pending().size(), 1);
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QCOMPARE(said, std::string("deleted web-1"));
        QCOMPARE(idle.count(), 1);
        QCOMPARE(m_gate->runningCount(), 0);
        QCOMPARE(m_action.applyRuns, 1);
    }

    void drain_aHeldRetryApprovedDuringTheQuit_startsNothing_andTheApprovalStays()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        auto out = std::make_shared<std::optional<ToolReply>>();
        start(params({{"service", "web-1"}}, state), out); // held, waiting for the human
        QTRY_COMPARE(m_gate->heldCount(), 1);
        m_gate->drain();
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok()); // wakes the held retry
        QTRY_VERIFY(out->has_value());
        std::string said;
        QVERIFY(textOf(**out, said));
        QVERIFY(QString::fromStdString(said).startsWith(QLatin1String("Countersign is quitting")));
        QCOMPARE(m_action.applyRuns, 0);
        QVERIFY(!m_store->claimOf(nonce).value());
        QCOMPARE(m_store->decision(nonce).value()->outcome, Operation::Status::Approved);
    }

    void drain_withNothingRunning_isIdleAtOnce()
    {
        QSignalSpy idle(m_gate, &Gate::idle);
        m_gate->drain();
        QCOMPARE(idle.count(), 1);
    }

    void claimWithoutFinish_afterCrash_isOutcomeUnknown_neverRerun()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        // What a crash between claim and the end of the run leaves behind: a claim with no result,
        // and a fresh gate (a restarted process) that never saw the run.
        QVERIFY(m_store->claim(nonce).value());
        makeGate();
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).startsWith(QLatin1String("Outcome unknown")));
        QCOMPARE(m_action.applyRuns, 0);
    }

    void denyRule_refusesWithoutCard_allowRule_runsWithoutCard()
    {
        makeGate(json::array(
            {{{"tool", "delete_*"},
              {"arguments", {{"service", "prod-*"}}},
              {"decision", "deny"},
              {"reason", "production is off limits"}},
             {{"tool", "delete_service"}, {"arguments", {{"service", "tmp-*"}}}, {"decision", "allow"}}}));
        json r;
        QVERIFY(asResult(call(params({{"service", "prod-db"}})), r));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("production is off limits")));
        QCOMPARE(m_queue->pending().size(), 0);
        QVERIFY(asResult(call(params({{"service", "tmp-1"}})), r));
        QCOMPARE(text(r), std::string("deleted tmp-1"));
        QCOMPARE(m_action.applyRuns, 1);
        QCOMPARE(m_queue->pending().size(), 0);
        auto rows = m_store->report(false);
        QCOMPARE(rows.value().size(), 2);
        QCOMPARE_JSON(rows.value()[0].at("decision"), json("denied"));
        QCOMPARE_JSON(rows.value()[1].at("decision"), json("allowed"));
        QCOMPARE_JSON(rows.value()[1].at("outcome"), json("succeeded"));
    }

    // Declined, the words reach a model that reads only the structured result (Codex does).
    void declined_structuredContentCarriesTheWords()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("not on a Friday"))
                    .ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("structuredContent").at("message"),
                      json("Declined by console:alice: not on a Friday. Nothing was run."));
    }

    void tooManyWaitingCards_fromOneConnection_areRefused()
    {
        for (int i = 0; i < Gate::kMaxPendingPerConnection; ++i)
            QVERIFY(firstPass({{"service", "s" + std::to_string(i)}}));
        json r;
        QVERIFY(asResult(call(params({{"service", "one-more"}})), r));
        QVERIFY(r.value("isError", false));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("approvals waiting")));
        const Principal other{2, QStringLiteral("other-agent"), {}};
        QVERIFY(asResult(call(params({{"service", "x"}}), &other), r));
        QCOMPARE_JSON(r.value("resultType", json()), json("input_required"));
        m_clock.advance(300'001); // expired cards no longer count
        QVERIFY(asResult(call(params({{"service", "y"}})), r));
        QCOMPARE_JSON(r.value("resultType", json()), json("input_required"));
    }

    void highRisk_needsTheTargetTyped_atTheConsole()
    {
        m_action.risk = Risk::High;
        QVERIFY(firstPass());
        const QString nonce = m_queue->pending().first().nonce;
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(!m_queue->approve(nonce, QStringLiteral("console:alice"), QStringLiteral("web-2")).ok());
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice"), QStringLiteral("web-1")).ok());
    }

    void auditChain_holdsAfterTheFlow()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        QVERIFY(m_queue
                    ->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"),
                              QStringLiteral("no"))
                    .ok());
        QVERIFY(firstPass({{"service", "web-2"}}));
        auto report = m_store->verifyChain(m_stack->signer().publicKey());
        QVERIFY(report.ok());
        QCOMPARE(report.value().firstBrokenSeq, 0);
        QCOMPARE(report.value().rows, 3); // minted, declined, minted
    }
};

QTEST_GUILESS_MAIN(GateTest)
#include "gate_test.moc"
