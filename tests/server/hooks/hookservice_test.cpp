// The hooks' service between the clients' payloads and the gate (HookService), without sockets: a
// real SQLite file, the real gate, sealer and signer (GateStack), and the payloads as the clients
// send them. Before a tool runs, the answer is the client's own allow or deny; after it ran, the
// report is matched to the allow it follows (by the client's tool-use id and the input's digest,
// or by the digest alone where the client sends no id), and what does not match is flagged.
#include "approvalqueue.h"
#include "auditstore.h"
#include "fakeclock.h"
#include "gatestack.h"
#include "hookservice.h"
#include "jsoncompare.h"
#include "workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class HookServiceTest final : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    std::unique_ptr<HookService> m_service;
    const Principal m_agent{1, QStringLiteral("agent"), {}};

    void makeService(const json &rules)
    {
        auto policy = Policy::fromJson(rules, nullptr);
        QVERIFY(policy.ok());
        auto stack = GateStack::create(
            m_clock, m_dir.filePath(QStringLiteral("hooks-%1.db").arg(QTest::currentTestFunction())),
            policy.value(), Gate::Settings{300'000, 300, QString(), 50'000});
        QVERIFY(stack.ok());
        m_stack = std::move(stack).value();
        m_service = std::make_unique<HookService>(m_stack->gate(), m_stack->store());
        HookService::Settings settings;
        settings.workspace = std::make_shared<const Workspace>(QStringList{m_dir.path()});
        settings.holdMs = 2000;
        m_service->configure(settings);
    }
    json payload(const char *event, const std::string &command, const char *toolUseId = "toolu_01") const
    {
        json p = {{"session_id", "s-1"},
                  {"cwd", m_dir.path().toStdString()},
                  {"hook_event_name", event},
                  {"tool_name", "Bash"},
                  {"tool_input", {{"command", command}}}};
        if (toolUseId)
            p["tool_use_id"] = toolUseId;
        return p;
    }
    std::optional<HookAnswer> handle(HookClient client, const json &sent, const Principal *who = nullptr)
    {
        std::optional<HookAnswer> out;
        m_service->handle(client, who ? *who : m_agent, Transport::Http, sent,
                          [&out](HookAnswer answer) { out = std::move(answer); });
        (void)QTest::qWaitFor([&] { return out.has_value(); }, 5000);
        return out;
    }
    static json printed(const std::optional<HookAnswer> &answer)
    {
        return answer ? json::parse(answer->stdoutText.toStdString(), nullptr, false) : json();
    }
    QList<AuditChain::EventRow> events(const QString &event)
    {
        auto rows = m_stack->store().eventsSince(event, 0);
        return rows.ok() ? rows.value() : QList<AuditChain::EventRow>{};
    }

private Q_SLOTS:
    void cleanup()
    {
        m_service.reset();
        m_stack.reset();
    }

    // Allowed by a rule, then reported: the report joins the allowed call's operation in the chain,
    // with its exit code; the same report again matches nothing (one allow, one report).
    void anAllowedCallsReport_joinsItsOperation_once()
    {
        makeService(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        const auto allowed = handle(HookClient::ClaudeCode, payload("PreToolUse", "make build"));
        QVERIFY(allowed);
        QCOMPARE_JSON(printed(allowed)["hookSpecificOutput"]["permissionDecision"], json("allow"));

        json report = payload("PostToolUse", "make build");
        report["tool_response"] = {{"exit_code", 0}, {"stdout", "ok"}};
        const auto taken = handle(HookClient::ClaudeCode, report);
        QVERIFY(taken);
        QVERIFY(taken->stdoutText.isEmpty());
        const auto ran = events(QStringLiteral("agent-tool-ran"));
        QCOMPARE(ran.size(), 1);
        QVERIFY(!ran[0].nonce.isEmpty());
        QCOMPARE_JSON(ran[0].detail.value("tool", ""), "Bash");
        QCOMPARE_JSON(ran[0].detail.value("exitCode", -1), 0);
        QCOMPARE_JSON(ran[0].detail.value("session", ""), "s-1");
        QVERIFY(events(QStringLiteral("agent-tool-flagged")).isEmpty());

        QSignalSpy flagged(m_service.get(), &HookService::flagged);
        QVERIFY(handle(HookClient::ClaudeCode, report));
        QCOMPARE(flagged.size(), 1);
        QVERIFY2(flagged[0][0].toString().contains(QLatin1String("which Countersign never allowed")),
                 qPrintable(flagged[0][0].toString()));
        QCOMPARE(events(QStringLiteral("agent-tool-flagged")).size(), 1);
    }

    // A report under the allowed call's id whose input is not what was allowed is flagged, and the
    // allow stays for the call's own report.
    void aReportWithOtherInput_isFlagged_andTheAllowStays()
    {
        makeService(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        QVERIFY(handle(HookClient::ClaudeCode, payload("PreToolUse", "ls")));
        QSignalSpy flagged(m_service.get(), &HookService::flagged);
        QVERIFY(handle(HookClient::ClaudeCode, payload("PostToolUse", "rm -rf build")));
        QCOMPARE(flagged.size(), 1);
        QVERIFY(flagged[0][0].toString().contains(QLatin1String("with other input than was allowed")));
        QVERIFY(handle(HookClient::ClaudeCode, payload("PostToolUse", "ls")));
        QCOMPARE(flagged.size(), 1);
        QCOMPARE(events(QStringLiteral("agent-tool-ran")).size(), 1);
    }

    // Another connection cannot end (or take over) an allowed call's report with the same id.
    void anotherConnectionsReport_matchesNothing()
    {
        makeService(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        QVERIFY(handle(HookClient::ClaudeCode, payload("PreToolUse", "ls")));
        const Principal other{2, QStringLiteral("other"), {}};
        QSignalSpy flagged(m_service.get(), &HookService::flagged);
        QVERIFY(handle(HookClient::ClaudeCode, payload("PostToolUse", "ls"), &other));
        QCOMPARE(flagged.size(), 1);
        QVERIFY(handle(HookClient::ClaudeCode, payload("PostToolUse", "ls")));
        QCOMPARE(flagged.size(), 1);
        const auto ran = events(QStringLiteral("agent-tool-ran"));
        QCOMPARE(ran.size(), 1);
        QCOMPARE_JSON(ran[0].detail.value("connection", ""), "agent");
    }

    // Gemini CLI sends no tool-use id: its report is matched by the input's digest alone.
    void geminisReport_isMatchedByItsInput()
    {
        makeService(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        json before = payload("BeforeTool", "npm test", nullptr);
        before["tool_name"] = "run_shell_command";
        const auto allowed = handle(HookClient::Gemini, before);
        QCOMPARE_JSON(printed(allowed), json({{"decision", "allow"}}));
        json after = before;
        after["hook_event_name"] = "AfterTool";
        after["tool_response"] = {{"llmContent", "passed"}};
        QVERIFY(handle(HookClient::Gemini, after));
        const auto ran = events(QStringLiteral("agent-tool-ran"));
        QCOMPARE(ran.size(), 1);
        QCOMPARE_JSON(ran[0].detail.value("toolUseId", "x"), "");
        QVERIFY(events(QStringLiteral("agent-tool-flagged")).isEmpty());
    }

    // A rule's deny reaches the agent in its client's words and format, and what it then reports
    // running anyway is flagged.
    void aDeny_isTheClientsDeny_andARunAnywayIsFlagged()
    {
        makeService(
            json::parse(R"([{"tool": "agent:shell", "decision": "deny", "reason": "not on this box"}])"));
        const auto denied = handle(HookClient::ClaudeCode, payload("PreToolUse", "make deploy"));
        const json out = printed(denied);
        QCOMPARE_JSON(out["hookSpecificOutput"]["permissionDecision"], json("deny"));
        QVERIFY2(out["hookSpecificOutput"]["permissionDecisionReason"].get<std::string>().find(
                     "not on this box") != std::string::npos,
                 out.dump().c_str());
        QSignalSpy flagged(m_service.get(), &HookService::flagged);
        QVERIFY(handle(HookClient::ClaudeCode, payload("PostToolUse", "make deploy")));
        QCOMPARE(flagged.size(), 1);
        QVERIFY(events(QStringLiteral("agent-tool-ran")).isEmpty());
    }

    // Claude Code's session record (transcript_path): the card says first what the user asked, and
    // marks what the call reaches that the request never named: asked to remove a symlink, the
    // agent deletes its parent folder. A record that is not this session's own is never read.
    void aCard_saysWhatTheUserAsked_andMarksWhatItDidNotName()
    {
        const QByteArray home = m_dir.filePath(QStringLiteral("home")).toUtf8();
        const QByteArray savedHome = qgetenv("HOME");
        qputenv("HOME", home);
        const auto restore = qScopeGuard([savedHome] { qputenv("HOME", savedHome); });
        QVERIFY(QDir().mkpath(QString::fromUtf8(home) + QStringLiteral("/.pi/agent/sessions")));
        const QString record = QString::fromUtf8(home) + QStringLiteral("/.claude/projects/-ws/s-1.jsonl");
        QVERIFY(QDir().mkpath(QFileInfo(record).path()));
        QFile file(record);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // The user's request, and the agent's call of its tool (this payload's tool_use_id) under it.
        file.write(
            "{\"parentUuid\":null,\"uuid\":\"p\",\"type\":\"user\",\"message\":{\"role\":\"user\","
            "\"content\":\"remove the symlink ~/.pi/agent/sessions\"}}\n"
            "{\"parentUuid\":\"p\",\"uuid\":\"a\",\"type\":\"assistant\",\"message\":{\"role\":"
            "\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"Bash\"}]}}\n");
        file.close();
        makeService(json::parse(R"([{"tool": "agent:shell", "decision": "ask"}])"));

        json sent = payload("PreToolUse", "rm -rf " + home.toStdString() + "/.pi");
        sent["transcript_path"] = record.toStdString();
        std::optional<HookAnswer> answer;
        m_service->handle(HookClient::ClaudeCode, m_agent, Transport::Http, sent,
                          [&answer](HookAnswer a) { answer = std::move(a); });
        QTRY_COMPARE(m_stack->queue().pending().size(), 1);
        const Plan shown = m_stack->queue().pending().first().plan;
        QCOMPARE(shown.request,
                 QStringLiteral("Claude Code's session record says you asked: \u201cremove the symlink "
                                "~/.pi/agent/sessions\u201d. Your request did not name ~/.pi."));
        QVERIFY(!shown.summary.contains(QLatin1String("You asked")));
        QVERIFY(m_stack->queue()
                    .decline(m_stack->queue().pending().first().nonce, QStringLiteral("console:alice"))
                    .ok());
        QTRY_VERIFY(answer.has_value());

        // Another session's record, and a record outside Claude Code's projects folder: not read.
        const QString elsewhere = m_dir.filePath(QStringLiteral("s-1.jsonl"));
        QVERIFY(QFile::copy(record, elsewhere));
        for (const auto &[path, session] : {std::pair{record, "s-2"}, std::pair{elsewhere, "s-1"}}) {
            json other = payload("PreToolUse", "rm -rf " + home.toStdString() + "/.pi/agent");
            other["transcript_path"] = path.toStdString();
            other["session_id"] = session;
            std::optional<HookAnswer> out;
            m_service->handle(HookClient::ClaudeCode, m_agent, Transport::Http, other,
                              [&out](HookAnswer a) { out = std::move(a); });
            QTRY_COMPARE(m_stack->queue().pending().size(), 1);
            const Operation card = m_stack->queue().pending().first();
            QVERIFY2(card.plan.request.isEmpty(), qPrintable(card.plan.request));
            QVERIFY(m_stack->queue().decline(card.nonce, QStringLiteral("console:alice")).ok());
            QTRY_VERIFY(out.has_value());
            QTRY_COMPARE(m_stack->queue().pending().size(), 0);
        }
    }

    // A payload that is not what the client sends is denied in that client's format, saying why;
    // nothing reaches the gate.
    void anUnreadablePayload_isDeniedInTheClientsFormat()
    {
        makeService(json::parse(R"([{"tool": "agent:shell", "decision": "allow"}])"));
        json bad = payload("BeforeTool", "ls", nullptr);
        bad["tool_input"] = "ls";
        const json out = printed(handle(HookClient::Gemini, bad));
        QCOMPARE_JSON(out.value("decision", ""), "deny");
        QVERIFY2(out.value("reason", "")
                         .find("refused the hook call: the hook payload's tool_input is not an "
                               "object") != std::string::npos,
                 out.dump().c_str());
        QVERIFY(m_stack->queue().pending().isEmpty());
        QVERIFY(events(QStringLiteral("agent-tool-ran")).isEmpty());
    }
};

QTEST_GUILESS_MAIN(HookServiceTest)
#include "hookservice_test.moc"
