#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace Countersign {

// The agents whose own tools reach Countersign through their hooks, in one list read by everything
// that names them: the hook formats and payloads (server/hooks, and the countersign-hook shim, which
// links no Qt, so this header uses none), the installer (HookSetup, HookInstaller), the command line
// and the Connections tab. docs/client-hooks.md has each one's format as its source shows it.
enum class HookClient { ClaudeCode, Codex, Gemini, Qwen, Copilot, OpenCode, Pi, Cline };

struct HookClientSpec final
{
    HookClient client;
    std::string_view name;  // what `countersign hook CLIENT`, /hooks/CLIENT and `hooks install` take
    std::string_view title; // for a person ("Claude Code")
    // The user-level settings file the hooks go in, under the home folder (Codex: under
    // $CODEX_HOME when it is set, as "hooks.json").
    std::string_view settingsFile;
    // The client's own names of its hook events: before a tool runs, when it would ask its user
    // (empty where it has no such hook), after a tool ran, and after a tool failed (a post-tool
    // report too; empty where the client sends none).
    std::string_view preEvent;
    std::string_view permissionEvent;
    std::string_view postEvent;
    std::string_view failureEvent;
    // The tools its hooks are asked about, anchored: the clients read a matcher with anything but
    // letters, digits, _ and | as an unanchored regular expression (Bash would also match BashOutput).
    std::string_view matcher;
    bool httpHook;    // an HTTP hook on the console; otherwise a command hook that runs the shim
    bool pluginFile;  // no hook settings: a plugin of Countersign's own runs the shim (AgentPlugins)
    bool timeoutInMs; // its hook timeout is read in milliseconds (otherwise seconds)
    // What the person must still do in the client itself (a trust step, trusted folders).
    std::string_view afterwards;
    // The longest the client waits for its hook before it lets the call through, when no setting
    // changes it (0: the setup writes a timeout longer than the console's hold): the console holds
    // a call for the human a little less, and the shim answers deny before it.
    int fixedTimeoutSeconds = 0;
    // A plugin client's second file, under the home folder, with the same text (Cline: its hook
    // after a tool ran is a file of its own); empty for the others.
    std::string_view secondFile = {};
};

inline constexpr std::array<HookClientSpec, 8> kHookClients{{
    {HookClient::ClaudeCode, "claude-code", "Claude Code", ".claude/settings.json", "PreToolUse", "",
     "PostToolUse", "PostToolUseFailure",
     "^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$", true, false, false,
     "Claude Code 2.1.295 or later blocks a call when the hook fails (onFailure); an older one lets it "
     "through."},
    {HookClient::Codex, "codex", "Codex", ".codex/hooks.json", "PreToolUse", "PermissionRequest",
     "PostToolUse", "", "^(Bash|apply_patch|mcp__.*)$", false, false, false,
     "Codex runs a hook only once you trust its hash: start codex and trust the Countersign hooks under "
     "/hooks (\"Trust all and continue\"); codex exec needs them trusted too, or "
     "--dangerously-bypass-hook-trust."},
    // The read tools too: a read of a secret asks, as cat's does.
    {HookClient::Gemini, "gemini", "Gemini CLI", ".gemini/settings.json", "BeforeTool", "", "AfterTool", "",
     "^(run_shell_command|write_file|replace|read_file|read_many_files|list_directory|glob|"
     "search_file_content|grep_search)$",
     false, false, true, "Gemini CLI runs settings hooks only in trusted folders."},
    {HookClient::Qwen, "qwen", "Qwen Code", ".qwen/settings.json", "PreToolUse", "PermissionRequest",
     "PostToolUse", "PostToolUseFailure",
     "^(run_shell_command|write_file|edit|replace|Bash|Write|Edit|read_file|read_many_files|"
     "list_directory|glob|grep_search|search_file_content|mcp__.*)$",
     false, false, false, "Qwen Code runs project hooks only in trusted folders; these are user-level."},
    // Its hooks under the Claude Code names take Claude Code's payloads and answers (Copilot CLI
    // 1.0.21 and later), with Copilot's own argument names (path, file_text, old_str, new_str): the
    // payload parser renames them. Its own file, so that nothing else in the folder can void it.
    {HookClient::Copilot, "copilot", "Copilot CLI", ".copilot/hooks/countersign.json", "PreToolUse", "",
     "PostToolUse", "", "^(Bash|Read|Write|Edit|Grep|Glob|grep|glob|rg)$", false, false, false,
     "Copilot CLI 1.0.21 or later; in copilot -p, a tool the hook allows runs without --allow-all-tools."},
    // No hook commands: a plugin of Countersign's own in its global plugin folder runs the shim
    // with Claude Code's payload (opencode's argument names renamed) and throws to stop a tool.
    {HookClient::OpenCode, "opencode", "opencode", ".config/opencode/plugin/countersign.js", "PreToolUse", "",
     "PostToolUse", "", "^(bash|edit|multiedit|write|read|glob|grep|list|patch)$", false, true, false,
     "opencode loads plugins when it starts: restart it. Its MCP tools and the tools the plugin does not "
     "know (webfetch, task) are not asked about."},
    // No hook commands either: an extension of Countersign's own in its global extensions folder.
    {HookClient::Pi, "pi", "pi", ".pi/agent/extensions/countersign.js", "PreToolUse", "", "PostToolUse", "",
     "^(bash|read|write|edit|grep|find|ls)$", false, true, false,
     "pi loads extensions when it starts: restart it. Tools of other extensions are not asked about."},
    // A hook file named after its event in ~/.cline/hooks, a shell script of Countersign's that
    // runs the shim, which reads Cline's own payload (ClinePayload) and answers {"cancel": ...}.
    // A cancel stops Cline's whole run, not one tool; its fixed 120 s timeout lets the tool run.
    {HookClient::Cline, "cline", "Cline CLI", ".cline/hooks/PreToolUse", "PreToolUse", "", "PostToolUse", "",
     "^(run_commands|editor|read_files|search_codebase|apply_patch)$", false, true, false,
     "Cline CLI 3.0.65 runs the hook before each tool. A declined or still-waiting call stops its whole "
     "run (Cline has no way to refuse one tool): run the task again once the card is decided.",
     120, ".cline/hooks/PostToolUse"},
}};

constexpr const HookClientSpec &hookClientSpec(HookClient client)
{
    for (const HookClientSpec &spec : kHookClients) {
        if (spec.client == client)
            return spec;
    }
    return kHookClients[0]; // unreachable: every HookClient is in the list
}

// By name ("claude" is Claude Code's too); nothing for a name not in the list.
constexpr std::optional<HookClient> hookClientNamed(std::string_view name)
{
    if (name == "claude")
        return HookClient::ClaudeCode;
    for (const HookClientSpec &spec : kHookClients) {
        if (spec.name == name)
            return spec.client;
    }
    return std::nullopt;
}

} // namespace Countersign
