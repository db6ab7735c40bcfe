#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace Countersign {

// The agents whose own tools reach Countersign through their hooks, described once, in one list read
// by everything that names them: the hook formats and payloads (server/hooks, and the
// countersign-hook shim, which links no Qt, so this header uses none), the installer (HookSetup,
// HookInstaller), the MCP entries setup writes (McpEntries), doctor's program and version checks
// (ClientCheck), the self-test's agents (SelftestClient), the command line and the Connections tab.
// docs/client-hooks.md has each one's format as its source shows it.
enum class HookClient { ClaudeCode, Codex, Gemini, Qwen, Copilot, OpenCode, Pi, Cline };

// The shape of a client's MCP entry (McpEntries writes each): the JSON ones by whose format they
// follow (Qwen Code's is Gemini CLI's), and Codex's TOML.
enum class McpForm { None, Claude, Gemini, Copilot, OpenCode, Cline, CodexToml };

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
    // The program on PATH (`countersign doctor` and setup look for it), the first version whose
    // hooks block a call when they fail (empty: any), and the version the tests run.
    std::string_view program = {};
    std::string_view oldestVersion = {};
    std::string_view testedVersion = {};
    // Where `countersign setup` writes its MCP entry, under the home folder (empty: none), and in
    // which client's shape (McpEntries).
    std::string_view mcpFile = {};
    McpForm mcpForm = McpForm::None;
    // The agent's own shell tool, as its model calls it (the self-test's scripted model does).
    std::string_view shellTool = {};
};

inline constexpr std::array<HookClientSpec, 8> kHookClients{{
    {.client = HookClient::ClaudeCode,
     .name = "claude-code",
     .title = "Claude Code",
     .settingsFile = ".claude/settings.json",
     .preEvent = "PreToolUse",
     .permissionEvent = "",
     .postEvent = "PostToolUse",
     .failureEvent = "PostToolUseFailure",
     .matcher = "^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$",
     .httpHook = true,
     .pluginFile = false,
     .timeoutInMs = false,
     .afterwards = "Claude Code 2.1.295 or later blocks a call when the hook fails (onFailure); an older one "
                   "lets it through.",
     .program = "claude",
     .oldestVersion = "2.1.295",
     .testedVersion = "2.1.328",
     .mcpFile = ".claude.json",
     .mcpForm = McpForm::Claude,
     .shellTool = "Bash"},
    {.client = HookClient::Codex,
     .name = "codex",
     .title = "Codex",
     .settingsFile = ".codex/hooks.json",
     .preEvent = "PreToolUse",
     .permissionEvent = "PermissionRequest",
     .postEvent = "PostToolUse",
     .failureEvent = "",
     .matcher = "^(Bash|apply_patch|mcp__.*)$",
     .httpHook = false,
     .pluginFile = false,
     .timeoutInMs = false,
     .afterwards =
         "Codex runs a hook only once you trust its hash: start codex and trust the Countersign hooks "
         "under /hooks (\"Trust all and continue\"); codex exec needs them trusted too, or "
         "--dangerously-bypass-hook-trust.",
     .program = "codex",
     .testedVersion = "0.169.0",
     .mcpFile = ".codex/config.toml", // under $CODEX_HOME (as config.toml) when it is set
     .mcpForm = McpForm::CodexToml,
     .shellTool = "exec_command"},
    // The read tools too: a read of a secret asks, as cat's does.
    {.client = HookClient::Gemini,
     .name = "gemini",
     .title = "Gemini CLI",
     .settingsFile = ".gemini/settings.json",
     .preEvent = "BeforeTool",
     .permissionEvent = "",
     .postEvent = "AfterTool",
     .failureEvent = "",
     .matcher = "^(run_shell_command|write_file|replace|read_file|read_many_files|list_directory|glob|"
                "search_file_content|grep_search)$",
     .httpHook = false,
     .pluginFile = false,
     .timeoutInMs = true,
     .afterwards = "Gemini CLI runs settings hooks only in trusted folders.",
     .program = "gemini",
     .testedVersion = "0.61.0",
     .mcpFile = ".gemini/settings.json",
     .mcpForm = McpForm::Gemini,
     .shellTool = "run_shell_command"},
    {.client = HookClient::Qwen,
     .name = "qwen",
     .title = "Qwen Code",
     .settingsFile = ".qwen/settings.json",
     .preEvent = "PreToolUse",
     .permissionEvent = "PermissionRequest",
     .postEvent = "PostToolUse",
     .failureEvent = "PostToolUseFailure",
     .matcher = "^(run_shell_command|write_file|edit|replace|Bash|Write|Edit|read_file|read_many_files|"
                "list_directory|glob|grep_search|search_file_content|mcp__.*)$",
     .httpHook = false,
     .pluginFile = false,
     .timeoutInMs = false,
     .afterwards = "Qwen Code runs project hooks only in trusted folders; these are user-level.",
     .program = "qwen",
     .testedVersion = "0.24.4",
     .mcpFile = ".qwen/settings.json",
     .mcpForm = McpForm::Gemini,
     .shellTool = "run_shell_command"},
    // Its hooks under the Claude Code names take Claude Code's payloads and answers (Copilot CLI
    // 1.0.21 and later), with Copilot's own argument names (path, file_text, old_str, new_str): the
    // payload parser renames them. Its own file, so that nothing else in the folder can void it.
    {.client = HookClient::Copilot,
     .name = "copilot",
     .title = "Copilot CLI",
     .settingsFile = ".copilot/hooks/countersign.json",
     .preEvent = "PreToolUse",
     .permissionEvent = "",
     .postEvent = "PostToolUse",
     .failureEvent = "",
     .matcher = "^(Bash|Read|Write|Edit|Grep|Glob|grep|glob|rg)$",
     .httpHook = false,
     .pluginFile = false,
     .timeoutInMs = false,
     .afterwards = "Copilot CLI 1.0.21 or later; in copilot -p, a tool the hook allows runs without "
                   "--allow-all-tools.",
     .program = "copilot",
     .oldestVersion = "1.0.21",
     .testedVersion = "1.0.102",
     .mcpFile = ".copilot/mcp-config.json",
     .mcpForm = McpForm::Copilot,
     .shellTool = "bash"},
    // No hook commands: a plugin of Countersign's own in its global plugin folder runs the shim
    // with Claude Code's payload (opencode's argument names renamed) and throws to stop a tool.
    {.client = HookClient::OpenCode,
     .name = "opencode",
     .title = "opencode",
     .settingsFile = ".config/opencode/plugin/countersign.js",
     .preEvent = "PreToolUse",
     .permissionEvent = "",
     .postEvent = "PostToolUse",
     .failureEvent = "",
     .matcher = "^(bash|edit|multiedit|write|read|glob|grep|list|patch)$",
     .httpHook = false,
     .pluginFile = true,
     .timeoutInMs = false,
     .afterwards =
         "opencode loads plugins when it starts: restart it. Its MCP tools and the tools the plugin "
         "does not know (webfetch, task) are not asked about.",
     .program = "opencode",
     .testedVersion = "1.18.33",
     .mcpFile = ".config/opencode/opencode.json",
     .mcpForm = McpForm::OpenCode,
     .shellTool = "bash"},
    // No hook commands either: an extension of Countersign's own in its global extensions folder.
    {.client = HookClient::Pi,
     .name = "pi",
     .title = "pi",
     .settingsFile = ".pi/agent/extensions/countersign.js",
     .preEvent = "PreToolUse",
     .permissionEvent = "",
     .postEvent = "PostToolUse",
     .failureEvent = "",
     .matcher = "^(bash|read|write|edit|grep|find|ls)$",
     .httpHook = false,
     .pluginFile = true,
     .timeoutInMs = false,
     .afterwards = "pi loads extensions when it starts: restart it. Tools of other extensions are not asked "
                   "about.",
     .program = "pi",
     .testedVersion = "0.73.1",
     .shellTool = "bash"},
    // A hook file named after its event in ~/.cline/hooks, a shell script of Countersign's that
    // runs the shim, which reads Cline's own payload (ClinePayload) and answers {"cancel": ...}.
    // A cancel stops Cline's whole run, not one tool; its fixed 120 s timeout lets the tool run.
    {.client = HookClient::Cline,
     .name = "cline",
     .title = "Cline CLI",
     .settingsFile = ".cline/hooks/PreToolUse",
     .preEvent = "PreToolUse",
     .permissionEvent = "",
     .postEvent = "PostToolUse",
     .failureEvent = "",
     .matcher = "^(run_commands|editor|read_files|search_codebase|apply_patch)$",
     .httpHook = false,
     .pluginFile = true,
     .timeoutInMs = false,
     .afterwards =
         "Cline CLI 3.0.65 runs the hook before each tool. A declined or still-waiting call stops its "
         "whole run (Cline has no way to refuse one tool): run the task again once the card is "
         "decided.",
     .fixedTimeoutSeconds = 120,
     .secondFile = ".cline/hooks/PostToolUse",
     .program = "cline",
     .testedVersion = "3.0.65",
     .mcpFile = ".cline/data/settings/cline_mcp_settings.json",
     .mcpForm = McpForm::Cline,
     .shellTool = "run_commands"},
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
