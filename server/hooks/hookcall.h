#pragma once

#include "hookformat.h"
#include "hookwire.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <optional>

namespace Countersign {

namespace HookClients {
// "claude-code", "codex", "gemini", "qwen" (what `countersign hook CLIENT` and /hooks/CLIENT take).
std::optional<HookClient> parse(const QString &name);
QString name(HookClient client);
QString title(HookClient client); // "Claude Code", for the card
} // namespace HookClients

// One hook call as the client sent it, typed: before a tool runs (the gate decides) or after (what
// ran is recorded). Every field is checked; a payload that is not what the client sends is refused
// with the reason (and the hook answers deny).
struct HookCall final
{
    using Event = HookEvent;
    HookClient client = HookClient::ClaudeCode;
    Event event = Event::Pre;
    QString eventName;    // the client's own name for it (PreToolUse, BeforeTool, ...)
    QString tool;         // the client's tool name (Bash, run_shell_command, mcp__fs__write, ...)
    nlohmann::json input; // tool_input, an object
    QString toolUseId;    // the client's id for the call; empty where it sends none (Gemini)
    QString cwd;
    QString sessionId;
    QString
        transcriptPath; // Claude Code: its session record (the payload's transcript_path); empty when none
    nlohmann::json response; // Post: tool_response as sent (any JSON)
    bool failed = false;     // Post: the client reported the tool failed (PostToolUseFailure)
    // A tool the client's hook sends but no matcher of Countersign's would ask about (Cline's
    // hook has no matcher): allowed at once, as the other clients never send it.
    bool unasked = false;

    static constexpr qsizetype kMaxPayloadBytes = qsizetype(HookWire::kMaxPayloadBytes);

    static Result<HookCall> parse(HookClient client, const nlohmann::json &payload);
};

// What the client reads back, in its own format: stdout, stderr and the exit code of a command
// hook, or the body of an HTTP hook's 200 answer (stdout). Allow where the client's format has it;
// where it has none (Codex's PreToolUse) allowing is saying nothing.
struct HookAnswer final
{
    QByteArray stdoutText;
    QByteArray stderrText;
    int exitCode = 0;

    static HookAnswer allow(HookClient client, HookCall::Event event);
    // reason reaches the model word for word (the client may put its own words around it).
    static HookAnswer deny(HookClient client, HookCall::Event event, const QString &reason);
    // A post-tool report taken: nothing for the client to do.
    static HookAnswer recorded();
    nlohmann::json toJson() const;
    static std::optional<HookAnswer> fromJson(const nlohmann::json &json);
};

} // namespace Countersign
