#include "hookformat.h"

#include <nlohmann/json.hpp>

namespace Countersign::HookFormat {

using json = nlohmann::json;

namespace {

std::string encode(const json &value)
{
    return value.dump(-1, ' ', false, json::error_handler_t::replace) + '\n';
}

// Claude Code's format, which Codex, Qwen Code and Copilot CLI (under the Claude Code event names) read too.
json claudeStyle(HookEvent event, bool allow, const std::string &reason)
{
    if (event == HookEvent::Permission) {
        json decision = {{"behavior", allow ? "allow" : "deny"}};
        if (!allow)
            decision["message"] = reason;
        return {{"hookSpecificOutput", {{"hookEventName", "PermissionRequest"}, {"decision", decision}}}};
    }
    json out = {{"hookEventName", "PreToolUse"}, {"permissionDecision", allow ? "allow" : "deny"}};
    if (!reason.empty())
        out["permissionDecisionReason"] = reason;
    return {{"hookSpecificOutput", out}};
}

} // namespace

std::string allow(HookClient client, HookEvent event)
{
    switch (client) {
    case HookClient::Codex:
        // Codex's PreToolUse cannot allow (only deny, or say nothing); its PermissionRequest can.
        return event == HookEvent::Permission ? encode(claudeStyle(event, true, {})) : std::string();
    case HookClient::Gemini:
        return encode({{"decision", "allow"}});
    case HookClient::Cline:
        return encode({{"cancel", false}});
    case HookClient::ClaudeCode:
    case HookClient::Qwen:
    case HookClient::Copilot:
    case HookClient::OpenCode: // Countersign's own plugins read Claude Code's answer
    case HookClient::Pi:
        return encode(claudeStyle(event, true, "Countersign: allowed (a rule, or approved)"));
    }
    return {};
}

std::string deny(HookClient client, HookEvent event, const std::string &reason)
{
    const std::string words = reason.find_first_not_of(" \t\n") == std::string::npos
                                  ? std::string("Countersign declined this call")
                                  : reason;
    if (client == HookClient::Gemini)
        return encode({{"decision", "deny"}, {"reason", words}});
    if (client == HookClient::Cline) // its only refusal: the whole run stops, with these words
        return encode({{"cancel", true}, {"errorMessage", words}});
    return encode(claudeStyle(event, false, words));
}

} // namespace Countersign::HookFormat
