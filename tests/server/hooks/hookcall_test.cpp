// Each client's hook payload read (HookCall::parse) and each client's answer written (HookAnswer,
// HookFormat), without a socket: the payloads are shaped as the real clients send them (their event
// names, ids and fields as the agents' tests record them), and every field an attacker controls is
// checked for the refusal it must get.
#include "hookcall.h"

#include "jsoncompare.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

json claudePre(const json &input)
{
    return {{"session_id", "3f1c"},
            {"transcript_path", "/home/u/.claude/projects/-ws/3f1c.jsonl"},
            {"cwd", "/ws"},
            {"permission_mode", "default"},
            {"hook_event_name", "PreToolUse"},
            {"tool_name", "Bash"},
            {"tool_input", input},
            {"tool_use_id", "toolu_01"}};
}

// The JSON a client reads from an answer's stdout (one line, ending in a newline).
json printed(const HookAnswer &answer)
{
    const QByteArray out = answer.stdoutText;
    if (out.isEmpty())
        return nullptr;
    if (!out.endsWith('\n') || out.count('\n') != 1)
        return "not one line";
    return json::parse(out.toStdString(), nullptr, false);
}

} // namespace

class HookCallTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void claudeCode_preToolUse_isReadWithItsIdsAndFolder()
    {
        const auto call = HookCall::parse(HookClient::ClaudeCode, claudePre({{"command", "ls -la"}}));
        QVERIFY2(call.ok(), call.ok() ? "" : qPrintable(call.error()));
        QCOMPARE(call.value().event, HookCall::Event::Pre);
        QCOMPARE(call.value().eventName, QStringLiteral("PreToolUse"));
        QCOMPARE(call.value().tool, QStringLiteral("Bash"));
        QCOMPARE_JSON(call.value().input, json({{"command", "ls -la"}}));
        QCOMPARE(call.value().toolUseId, QStringLiteral("toolu_01"));
        QCOMPARE(call.value().cwd, QStringLiteral("/ws"));
        QCOMPARE(call.value().sessionId, QStringLiteral("3f1c"));
        QVERIFY(!call.value().failed);
        QVERIFY(!call.value().unasked);
    }

    // After the tool: the report carries what it returned; a failure report is a Post that failed.
    void postReports_carryTheResponse_andAFailureIsMarked()
    {
        json post = claudePre({{"command", "false"}});
        post["hook_event_name"] = "PostToolUseFailure";
        post["tool_response"] = {{"exit_code", 1}, {"stderr", "boom"}};
        const auto failed = HookCall::parse(HookClient::Qwen, post);
        QVERIFY(failed.ok());
        QCOMPARE(failed.value().event, HookCall::Event::Post);
        QVERIFY(failed.value().failed);
        QCOMPARE(failed.value().response.value("exit_code", 0), 1);
        // Codex sends no failure event: the name is refused, not taken for a success.
        const auto codex = HookCall::parse(HookClient::Codex, post);
        QVERIFY(!codex.ok());
        QVERIFY2(codex.error().contains(QLatin1String("Codex hooks send no event PostToolUseFailure")),
                 qPrintable(codex.error()));
    }

    void codex_permissionRequest_isItsOwnEvent()
    {
        json payload = claudePre({{"command", "git push"}});
        payload["hook_event_name"] = "PermissionRequest";
        payload.erase("tool_use_id"); // Codex sends none with PermissionRequest
        const auto call = HookCall::parse(HookClient::Codex, payload);
        QVERIFY(call.ok());
        QCOMPARE(call.value().event, HookCall::Event::Permission);
        QVERIFY(call.value().toolUseId.isEmpty());
        // Claude Code has no such hook: a payload claiming it is refused.
        QVERIFY(!HookCall::parse(HookClient::ClaudeCode, payload).ok());
    }

    void gemini_beforeTool_hasNoToolUseId()
    {
        const json payload = {{"session_id", "g-1"},
                              {"transcript_path", "/home/u/.gemini/tmp/abc/chats/session.json"},
                              {"cwd", "/ws"},
                              {"hook_event_name", "BeforeTool"},
                              {"timestamp", "2026-12-07T21:00:00.000Z"},
                              {"tool_name", "run_shell_command"},
                              {"tool_input", {{"command", "npm test"}, {"description", "tests"}}}};
        const auto call = HookCall::parse(HookClient::Gemini, payload);
        QVERIFY(call.ok());
        QCOMPARE(call.value().event, HookCall::Event::Pre);
        QCOMPARE(call.value().tool, QStringLiteral("run_shell_command"));
        QVERIFY(call.value().toolUseId.isEmpty());
        // Claude Code's event name is not Gemini CLI's.
        json claudeNamed = payload;
        claudeNamed["hook_event_name"] = "PreToolUse";
        QVERIFY(!HookCall::parse(HookClient::Gemini, claudeNamed).ok());
    }

    // Copilot CLI's own argument names are read as Claude Code's; its patch comes as an Edit whose
    // input is the patch text; a payload with both spellings is refused rather than guessed.
    void copilot_spellings_areMapped_andBothAtOnceRefused()
    {
        json write = claudePre({{"path", "/ws/a.txt"}, {"file_text", "hello\n"}});
        write["tool_name"] = "Write";
        const auto mapped = HookCall::parse(HookClient::Copilot, write);
        QVERIFY(mapped.ok());
        QCOMPARE_JSON(mapped.value().input, json({{"path", "/ws/a.txt"}, {"content", "hello\n"}}));

        json both = claudePre({{"path", "/ws/a.txt"}, {"file_text", "shown"}, {"content", "written"}});
        both["tool_name"] = "Write";
        const auto refused = HookCall::parse(HookClient::Copilot, both);
        QVERIFY(!refused.ok());
        QVERIFY(refused.error().contains(QLatin1String("both file_text and content")));

        json patch = claudePre(nullptr);
        patch["tool_name"] = "Edit";
        patch["tool_input"] = "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n";
        const auto asPatch = HookCall::parse(HookClient::Copilot, patch);
        QVERIFY(asPatch.ok());
        QCOMPARE(asPatch.value().tool, QStringLiteral("apply_patch"));
        QCOMPARE(asPatch.value().input.value("input", ""), patch["tool_input"].get<std::string>());
        // Another client's string input is no patch: refused.
        QVERIFY(!HookCall::parse(HookClient::ClaudeCode, patch).ok());
    }

    void cline_toolCall_isReadAsClaudeCodes()
    {
        const json payload = {
            {"hookName", "tool_call"},
            {"taskId", "task-9"},
            {"workspaceRoots", json::array({"/ws"})},
            {"tool_call", {{"id", "call_7"}, {"name", "run_commands"}, {"input", {{"commands", {"ls"}}}}}}};
        const auto call = HookCall::parse(HookClient::Cline, payload);
        QVERIFY2(call.ok(), call.ok() ? "" : qPrintable(call.error()));
        QCOMPARE(call.value().tool, QStringLiteral("Bash"));
        QCOMPARE(call.value().event, HookCall::Event::Pre);
        QVERIFY(!call.value().input.value("command", "").empty());
    }

    // What an attacker (or a broken client) sends instead: each refused, with a reason that names
    // the field.
    void hostilePayloads_areRefused_withTheField()
    {
        const json good = claudePre({{"command", "ls"}});
        const auto refusedFor = [](json payload) {
            const auto call = HookCall::parse(HookClient::ClaudeCode, payload);
            return call.ok() ? QString() : call.error();
        };
        QVERIFY(refusedFor(json::array({good})).contains(QLatin1String("not a JSON object")));
        json p = good;
        p.erase("hook_event_name");
        QVERIFY(refusedFor(p).contains(QLatin1String("has no hook_event_name")));
        p = good;
        p["hook_event_name"] = "SessionStart";
        QVERIFY(refusedFor(p).contains(QLatin1String("no event SessionStart")));
        p = good;
        p["tool_name"] = "";
        QVERIFY(refusedFor(p).contains(QLatin1String("tool_name is empty")));
        p = good;
        p["tool_name"] = 7;
        QVERIFY(refusedFor(p).contains(QLatin1String("tool_name is not a string")));
        p = good;
        p["tool_name"] = std::string(300, 'B');
        QVERIFY(refusedFor(p).contains(QLatin1String("tool_name is longer than 256")));
        p = good;
        p["tool_input"] = json::array({"ls"});
        QVERIFY(refusedFor(p).contains(QLatin1String("tool_input is not an object")));
        p = good;
        p["tool_use_id"] = json::object();
        QVERIFY(refusedFor(p).contains(QLatin1String("tool_use_id is not a string")));
        p = good;
        p["cwd"] = std::string(5000, 'd');
        QVERIFY(refusedFor(p).contains(QLatin1String("cwd is longer than 4096")));
        p = good;
        p["session_id"] = false;
        QVERIFY(refusedFor(p).contains(QLatin1String("session_id is not a string")));
        // Absent optional fields are empty, and null counts as absent.
        p = good;
        p.erase("cwd");
        p["session_id"] = nullptr;
        QVERIFY(refusedFor(p).isEmpty());
    }

    // The answers in each client's own format: what allows and what denies, for each event.
    void answers_inEachClientsFormat()
    {
        for (const HookClient client : {HookClient::ClaudeCode, HookClient::Qwen, HookClient::Copilot,
                                        HookClient::OpenCode, HookClient::Pi}) {
            const json allow = printed(HookAnswer::allow(client, HookEvent::Pre));
            QCOMPARE_JSON(allow["hookSpecificOutput"]["permissionDecision"], json("allow"));
            QCOMPARE_JSON(allow["hookSpecificOutput"]["hookEventName"], json("PreToolUse"));
            const json deny = printed(HookAnswer::deny(client, HookEvent::Pre, QStringLiteral("no")));
            QCOMPARE_JSON(deny["hookSpecificOutput"]["permissionDecision"], json("deny"));
            QCOMPARE_JSON(deny["hookSpecificOutput"]["permissionDecisionReason"], json("no"));
        }
        // Codex's PreToolUse cannot allow: saying nothing is its allow. Its PermissionRequest can.
        QCOMPARE_JSON(printed(HookAnswer::allow(HookClient::Codex, HookEvent::Pre)), json(nullptr));
        const json permitted = printed(HookAnswer::allow(HookClient::Codex, HookEvent::Permission));
        QCOMPARE_JSON(permitted["hookSpecificOutput"]["decision"], json({{"behavior", "allow"}}));
        const json refused =
            printed(HookAnswer::deny(HookClient::Codex, HookEvent::Permission, QStringLiteral("x")));
        QCOMPARE_JSON(refused["hookSpecificOutput"]["decision"],
                      json({{"behavior", "deny"}, {"message", "x"}}));
        QCOMPARE_JSON(printed(HookAnswer::allow(HookClient::Gemini, HookEvent::Pre)),
                      json({{"decision", "allow"}}));
        QCOMPARE_JSON(printed(HookAnswer::deny(HookClient::Gemini, HookEvent::Pre, QStringLiteral("why"))),
                      json({{"decision", "deny"}, {"reason", "why"}}));
        QCOMPARE_JSON(printed(HookAnswer::allow(HookClient::Cline, HookEvent::Pre)),
                      json({{"cancel", false}}));
        QCOMPARE_JSON(printed(HookAnswer::deny(HookClient::Cline, HookEvent::Pre, QStringLiteral("stop"))),
                      json({{"cancel", true}, {"errorMessage", "stop"}}));
        // A report taken: nothing for the client to read.
        QVERIFY(HookAnswer::recorded().stdoutText.isEmpty());
        QCOMPARE(HookAnswer::recorded().exitCode, 0);
    }

    // A reason is the agent's and the human's words: a blank one still denies with words, and
    // quotes, newlines and invalid UTF-8 stay one line of valid JSON (a client that cannot parse
    // its hook's answer may let the call through).
    void denyWords_stayOneLineOfValidJson()
    {
        const json blank =
            printed(HookAnswer::deny(HookClient::Gemini, HookEvent::Pre, QStringLiteral(" \n")));
        QCOMPARE_JSON(blank["reason"], json("Countersign declined this call"));
        const std::string hostile = std::string("say \"allow\"\n}\x01{") + "\xff\xfe";
        const std::string out = HookFormat::deny(HookClient::ClaudeCode, HookEvent::Pre, hostile);
        QVERIFY(out.back() == '\n');
        QCOMPARE(std::count(out.begin(), out.end(), '\n'), 1);
        const json parsed = json::parse(out, nullptr, false);
        QVERIFY(!parsed.is_discarded());
        QCOMPARE_JSON(parsed["hookSpecificOutput"]["permissionDecision"], json("deny"));
        QVERIFY(parsed["hookSpecificOutput"]["permissionDecisionReason"].get<std::string>().starts_with(
            "say \"allow\"\n}\x01{"));
    }

    // The answer as the socket carries it to the shim, and back; anything else is not an answer.
    void answerJson_roundTrips_andRefusesOtherShapes()
    {
        HookAnswer answer = HookAnswer::deny(HookClient::Gemini, HookEvent::Pre, QStringLiteral("no"));
        answer.stderrText = "said";
        answer.exitCode = 2;
        const auto back = HookAnswer::fromJson(answer.toJson());
        QVERIFY(back);
        QCOMPARE(back->stdoutText, answer.stdoutText);
        QCOMPARE(back->stderrText, QByteArray("said"));
        QCOMPARE(back->exitCode, 2);
        QVERIFY(!HookAnswer::fromJson(json::array()));
        QVERIFY(!HookAnswer::fromJson({{"stdout", ""}, {"stderr", ""}}));
        QVERIFY(!HookAnswer::fromJson({{"stdout", 1}, {"stderr", ""}, {"exit", 0}}));
        QVERIFY(!HookAnswer::fromJson({{"stdout", ""}, {"stderr", ""}, {"exit", "0"}}));
    }

    void clientNames_readBothWays()
    {
        for (const HookClientSpec &spec : kHookClients) {
            const auto named = HookClients::parse(HookClients::name(spec.client));
            QVERIFY(named && *named == spec.client);
            QVERIFY(!HookClients::title(spec.client).isEmpty());
        }
        QVERIFY(!HookClients::parse(QStringLiteral("Claude-Code")));
        QVERIFY(!HookClients::parse(QString()));
    }
};

QTEST_GUILESS_MAIN(HookCallTest)
#include "hookcall_test.moc"
