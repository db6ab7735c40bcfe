// The gate and the client: a console-mode card's URL prompt and the clients that answer it on their own,
// client-mode cards decided by the client's confirmation, each era's rounds, and the clients measured to need
// their own handling.
#include "gatetestfixture.h"

#include <QTest>

class GateClientTest : public QObject, protected GateFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void firstPass_withoutDeclaredUrlMode_embedsNoRequest_withUrlMode_pointsAtTheCard()
    {
        json r;
        QVERIFY(asResult(call(params({{"service", "a"}})), r));
        QVERIFY(!r.contains("inputRequests"));
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        QVERIFY(asResult(call(params({{"service", "b"}})), r));
        const json url = r.at("inputRequests").at("approval").at("params");
        QCOMPARE_JSON(url.at("mode"), json("url"));
        QCOMPARE(QString::fromStdString(url.at("url").get<std::string>()),
                 QStringLiteral("http://127.0.0.1:9/approvals/") + m_queue->pending().first().nonce);
    }

    void clientMode_withoutFormCapability_is32021()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        ProtocolError e;
        QVERIFY(asProtocolError(call(params({{"service", "web-1"}})), e));
        QCOMPARE(e.code, JsonRpc::kMissingRequiredClientCapability);
        QCOMPARE_JSON(e.data.at("requiredCapabilities"), json({{"elicitation", {{"form", json::object()}}}}));
        QCOMPARE(m_queue->pending().size(), 0);
    }

    void clientMode_typedConfirmation_opens_wrongName_asksAgain()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        json first;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), first));
        QCOMPARE_JSON(first.at("inputRequests").at("confirm").at("params").at("mode"), json("form"));
        const std::string state = first.at("requestState").get<std::string>();
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-2"}}}}}};
        json r;
        QVERIFY(asResult(call(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(r.at("inputRequests")
                    .at("confirm")
                    .at("params")
                    .at("message")
                    .get<std::string>()
                    .find("did not match") != std::string::npos);
        QCOMPARE(m_action.applyRuns, 0);
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        QVERIFY(asResult(call(retry), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("client:agent"));
    }

    void consoleMode_clientAcceptAnswer_neverOpensTheGate()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "accept"}}},
                                   {"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        json r;
        QVERIFY(asResult(callHeld(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_action.applyRuns, 0);
    }

    // A 2025-era call of a client-mode tool: the form is asked on the held call; a wrong name is
    // asked again with the notice, the right one approves and the held call returns the result.
    void legacy_clientMode_formIsAsked_wrongNameAskedAgain_rightNameRunsOnce()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        QCOMPARE_JSON(asked->at(0).params.at("mode"), json("form"));
        QVERIFY(asked->at(0).params.at("message").get<std::string>().find("Type \"web-1\"") !=
                std::string::npos);
        QCOMPARE(m_gate->heldCount(), 1);
        asked->at(0).answer(json{{"action", "accept"}, {"content", {{"confirm", "web-2"}}}});
        QTRY_COMPARE(asked->size(), 2);
        QVERIFY(asked->at(1).params.at("message").get<std::string>().find("did not match") !=
                std::string::npos);
        QVERIFY(!out->has_value());
        QCOMPARE(m_action.applyRuns, 0);
        asked->at(1).answer(json{{"action", "accept"}, {"content", {{"confirm", "web-1"}}}});
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("client:agent"));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // Typed wrong three times: asked no more; the card still waits for the window.
    void legacy_clientMode_threeWrongNames_stopAsking()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        for (int round = 0; round < Gate::kConfirmRounds; ++round) {
            QTRY_COMPARE(asked->size(), round + 1);
            asked->at(round).answer(json{{"action", "accept"}, {"content", {{"confirm", "nope"}}}});
        }
        QTest::qWait(50);
        QCOMPARE(asked->size(), Gate::kConfirmRounds);
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(!out->has_value());
        QCOMPARE(m_action.applyRuns, 0);
    }

    // A console-mode tool: the card's URL is asked; the client's accept decides nothing (the human
    // decides in the window), an error answer neither; the window's approval then runs it once.
    void legacy_consoleMode_urlIsAsked_acceptDecidesNothing()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        const QString nonce = m_queue->pending().first().nonce;
        QCOMPARE_JSON(asked->at(0).params.at("mode"), json("url"));
        QCOMPARE_JSON(asked->at(0).params.at("url"),
                      json("http://127.0.0.1:9/approvals/" + nonce.toStdString()));
        QCOMPARE_JSON(asked->at(0).params.at("elicitationId"), json(nonce.toStdString()));
        asked->at(0).answer(json{{"action", "accept"}, {"content", {{"confirm", "web-1"}}}});
        asked->at(0).answer(std::nullopt);
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_action.applyRuns, 0);
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // Whatever the client answers the card's URL (Codex declines at once, headless Claude Code
    // cancels), a console-mode card stays with the human: the call is still held, and the
    // window's decision answers it.
    void legacy_consoleMode_clientAnswer_leavesTheCardToTheHuman_data()
    {
        QTest::addColumn<QString>("action");
        QTest::newRow("decline") << QStringLiteral("decline");
        QTest::newRow("cancel") << QStringLiteral("cancel");
        QTest::newRow("accept") << QStringLiteral("accept");
    }

    void legacy_consoleMode_clientAnswer_leavesTheCardToTheHuman()
    {
        QFETCH(QString, action);
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        asked->at(0).answer(json{{"action", action.toStdString()}});
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        QCOMPARE(m_gate->heldCount(), 1);
        QCOMPARE(m_queue->pending().size(), 1);
        const QString nonce = m_queue->pending().first().nonce;
        auto stored = m_store->decision(nonce);
        QVERIFY(stored.ok() && !stored.value());
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QTRY_VERIFY(out->has_value());
        json r;
        QVERIFY(asResult(std::move(**out), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("approver"), json("console:alice"));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // The same over 2026-07-28: a retry bringing the client's decline or cancel of the URL
    // request is held like any retry, and the card stays pending.
    void consoleMode_clientDeclineOrCancel_decidesNothing_data()
    {
        QTest::addColumn<QString>("action");
        QTest::newRow("decline") << QStringLiteral("decline");
        QTest::newRow("cancel") << QStringLiteral("cancel");
    }

    void consoleMode_clientDeclineOrCancel_decidesNothing()
    {
        QFETCH(QString, action);
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", action.toStdString()}}}};
        json r;
        QVERIFY(asResult(callHeld(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // A client that answers the card's prompt faster than a person could (headless Claude Code's
    // cancel) answers on its own: the card notes it, and its next cards carry no prompt; an answer
    // that took a person's time, or another client, keeps the prompt.
    void selfAnsweringClient_isNotPromptedAgain_theCardNotesItsAnswer()
    {
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        std::string state;
        json r;
        QVERIFY(asResult(call(params({{"service", "slow"}})), r));
        QVERIFY(r.contains("inputRequests"));
        state = r.at("requestState").get<std::string>();
        m_clock.advance(Gate::kSelfAnswerMs); // a person's answer
        json retry = params({{"service", "slow"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "decline"}}}};
        QVERIFY(asResult(callHeld(retry), r));
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QVERIFY2(r.contains("inputRequests"), "an answer after a person's time keeps the prompt");
        state = r.at("requestState").get<std::string>();
        retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", "cancel"}}}};
        QVERIFY(asResult(callHeld(retry), r));
        QString nonce;
        for (const Operation &op : m_queue->pending())
            if (op.arguments.value("service", "") == "web-1")
                nonce = op.nonce;
        QVERIFY2(
            m_queue->clientAnswerOf(nonce).contains(QLatin1String("\"cancel\", 0 ms after it was asked")),
            qPrintable(m_queue->clientAnswerOf(nonce)));
        QVERIFY(asResult(call(params({{"service", "web-2"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY2(!r.contains("inputRequests"), "a client that answers on its own is not prompted again");
        m_clientInfo = {{"name", "another-client"}, {"version", "1"}};
        QVERIFY(asResult(call(params({{"service", "web-3"}})), r));
        QVERIFY2(r.contains("inputRequests"), "another client of the connection is still prompted");
        QCOMPARE(m_action.applyRuns, 0);
    }

    // The official SDKs fail a call after 10 input_required rounds with an error the model cannot
    // act on: the last round a client takes says in words to call again, and that call joins the
    // same card, whose approval it then runs.
    void modern_lastRoundTheClientTakes_saysCallAgain_andTheCallJoins()
    {
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json r;
        for (int round = 2; round < Gate::kClientRounds; ++round) {
            QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r));
            QVERIFY2(r.value("resultType", "") == "input_required", qPrintable(QString::number(round)));
        }
        QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r));
        QVERIFY(QString::fromStdString(text(r)).contains(QLatin1String("again with the same arguments")));
        QVERIFY(r.value("isError", false));
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r)); // the model calls again
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        state = r.at("requestState").get<std::string>();
        QVERIFY(asResult(callHeld(params({{"service", "web-1"}}, state)), r)); // rounds start again
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-1"));
        QCOMPARE(m_action.applyRuns, 1);
    }

    // Codex in its 2026 mode declares URL mode but fails every call with a URL request: it gets
    // requestState-only rounds. A 2026 call whose client never comes back is abandoned at the TTL.
    void codex2026_getsNoUrlRound_andItsCardIsAbandonedWhenItNeverReturns()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        m_clientInfo = {{"name", "codex-mcp-client"}, {"title", "Codex"}, {"version", "0.169.0"}};
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY(!r.contains("inputRequests"));
        const QString nonce = m_queue->pending().first().nonce;
        QCOMPARE(m_queue->agentOf(nonce), ApprovalQueue::Agent::Waiting); // within a retry interval
        m_clock.advance(ApprovalQueue::kWaitingGraceMs);
        QCOMPARE(m_queue->agentOf(nonce), ApprovalQueue::Agent::Gone);
        m_clock.advance(300'000);
        m_queue->expireDue();
        QCOMPARE(m_store->operation(nonce).value()->status, Operation::Status::Abandoned);
    }

    // Copilot CLI speaks 2026-07-28 but fails a call on any input_required result: its call is
    // held on its own request for the human, and answered with the decision as a CallToolResult.
    void copilot2026_isHeldOnItsOwnRequest_andNeverGetsInputRequired()
    {
        m_caps = {{"elicitation", {{"url", json::object()}, {"form", json::object()}}}};
        m_clientInfo = {{"name", "copilot-cli"}, {"version", "1.0.102"}};
        for (const char *service : {"web-1", "web-2"}) {
            auto out = std::make_shared<std::optional<ToolReply>>();
            start(params({{"service", service}}), out);
            QTRY_COMPARE(m_queue->pending().size(), 1);
            QTest::qWait(50);
            QVERIFY2(!out->has_value(), "held while the card waits");
            const QString nonce = m_queue->pending().first().nonce;
            if (std::string(service) == "web-1")
                QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
            else
                QVERIFY(
                    m_queue->decline(nonce, QStringLiteral("console:alice"), QStringLiteral("not now")).ok());
            QTRY_VERIFY(out->has_value());
            json r;
            QVERIFY(asResult(**out, r));
            QVERIFY(r.value("resultType", "") != "input_required");
            QVERIFY(!r.contains("inputRequests"));
            if (std::string(service) == "web-1")
                QCOMPARE(text(r), std::string("deleted web-1"));
            else
                QVERIFY(QString::fromStdString(text(r)).contains(
                    QLatin1String("Declined by console:alice: not now")));
        }
        QCOMPARE(m_action.applyRuns, 1);
    }

    // A client that drops the round with the prompt (Codex in its 2026 mode fails the call on a URL
    // request) and calls again fresh is not prompted again: it gets a round it can take.
    void clientDroppingThePromptedRound_isNotPromptedAgain()
    {
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r));
        QVERIFY(r.contains("inputRequests"));
        QVERIFY(asResult(call(params({{"service", "web-1"}})), r)); // joins the card, fresh
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QVERIFY2(!r.contains("inputRequests"), "no prompt for a client that dropped one");
        QCOMPARE(m_queue->pending().size(), 1);
        QVERIFY(asResult(call(params({{"service", "web-2"}})), r));
        QVERIFY(!r.contains("inputRequests"));
        // Its next call with the ticket is held and run by the human's approval as any.
        const std::string state = r.at("requestState").get<std::string>();
        QString nonce;
        for (const Operation &op : m_queue->pending())
            if (op.arguments.value("service", "") == "web-2")
                nonce = op.nonce;
        QVERIFY(m_queue->approve(nonce, QStringLiteral("console:alice")).ok());
        QVERIFY(asResult(call(params({{"service", "web-2"}}, state)), r));
        QCOMPARE(text(r), std::string("deleted web-2"));
    }

    // The same for a 2025-era call: the URL asked on the held call, declined at once; the next
    // held call of that client is asked nothing.
    void legacy_selfAnsweringClient_isNotAskedAgain()
    {
        m_caps = {{"elicitation", {{"url", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "a"}}), out, asked);
        QTRY_COMPARE(asked->size(), 1);
        asked->at(0).answer(json{{"action", "decline"}});
        auto second = std::make_shared<std::optional<ToolReply>>();
        startLegacy(params({{"service", "b"}}), second, asked);
        QTRY_COMPARE(m_gate->heldCount(), 2);
        QTest::qWait(50);
        QCOMPARE(asked->size(), 1);
    }

    // A client-mode tool's form is that tool's approval: the client's decline declines it, but a
    // cancel (dismissed, not refused) decides nothing.
    void clientMode_clientDecline_declines_cancelDecidesNothing()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"confirm", {{"action", "cancel"}}}};
        json r;
        QVERIFY(asResult(callHeld(retry), r));
        QCOMPARE_JSON(r.at("resultType"), json("input_required"));
        QCOMPARE(m_queue->pending().size(), 1);
        retry["inputResponses"] = {{"confirm", {{"action", "decline"}}}};
        QVERIFY(asResult(call(retry), r));
        QCOMPARE(text(r), std::string("Declined by client:agent: declined in the client. Nothing was run."));
        QCOMPARE(m_queue->pending().size(), 0);
        QCOMPARE(m_action.applyRuns, 0);
    }

    // A 2025-era call brings no requestState or inputResponses: sent anyway, they are ignored (a
    // client-mode tool is not approved by them; the form is asked on the held call instead).
    void legacy_inputResponsesInParams_areIgnored()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        json p = params({{"service", "web-1"}});
        p["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        startLegacy(p, out, asked);
        QTRY_COMPARE(asked->size(), 1);
        QTest::qWait(50);
        QVERIFY(!out->has_value());
        QCOMPARE(m_action.applyRuns, 0);
        QCOMPARE(m_queue->pending().size(), 1);
    }

    // Without the capability (or with only form for a console-mode tool) nothing is asked: the call
    // is held for the window alone.
    void legacy_withoutTheMode_asksNothing()
    {
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        auto out = std::make_shared<std::optional<ToolReply>>();
        auto asked = std::make_shared<QList<Asked>>();
        startLegacy(params({{"service", "web-1"}}), out, asked);
        QTRY_COMPARE(m_gate->heldCount(), 1);
        QCOMPARE(asked->size(), 0);
        QVERIFY(!out->has_value());
    }

    void consoleVeto_beforeClientConfirmation_wins()
    {
        makeGate(nullptr, json{{"medium", "client"}});
        m_caps = {{"elicitation", json::object()}};
        json first;
        QVERIFY(asResult(call(params({{"service", "web-1"}})), first));
        QVERIFY(m_queue->decline(m_queue->pending().first().nonce, QStringLiteral("console:alice"), {}).ok());
        json retry = params({{"service", "web-1"}}, first.at("requestState").get<std::string>());
        retry["inputResponses"] = {{"confirm", {{"action", "accept"}, {"content", {{"confirm", "web-1"}}}}}};
        json r;
        QVERIFY(asResult(call(retry), r));
        QCOMPARE(text(r), std::string("Declined by console:alice. Nothing was run."));
        QCOMPARE(m_action.applyRuns, 0);
    }

    // The dispatcher types the envelope (a mistyped clientInfo never reaches the gate); the
    // answers inside inputResponses are the gate's to read, whatever their fields hold.
    void mistypedAnswers_areReadAsAbsent()
    {
        m_caps = {{"elicitation", {{"form", json::object()}}}};
        std::string state;
        QVERIFY(firstPass({{"service", "web-1"}}, &state));
        json retry = params({{"service", "web-1"}}, state);
        retry["inputResponses"] = {{"approval", {{"action", 5}}}, {"confirm", {{"action", json::array()}}}};
        json held;
        QVERIFY(asResult(callHeld(retry), held));
        QCOMPARE_JSON(held.value("resultType", json()), json("input_required"));
        QVERIFY(m_queue->approve(m_queue->pending().first().nonce, QStringLiteral("console:alice")).ok());
        json r;
        QVERIFY(asResult(call(params({{"service", "web-1"}}, state)), r));
        QCOMPARE_JSON(r.at("_meta").at(Gate::kReceiptMetaKey).at("client"), json("test-client"));
        QCOMPARE(m_action.applyRuns, 1);
    }
};

QTEST_GUILESS_MAIN(GateClientTest)
#include "gateclient_test.moc"
