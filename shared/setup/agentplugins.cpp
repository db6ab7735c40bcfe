#include "agentplugins.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace Countersign::AgentPlugins {

namespace {

constexpr const char *kMarker = "// countersign-agent-plugin v1";
// A hook file that is a shell script (Cline's) starts with its interpreter, then the marker.
constexpr const char *kShellMarker = "#!/bin/sh\n# countersign-agent-plugin v1\n";

// The plugin, shim argv spliced in as a JSON array. Plain ECMAScript modules for opencode's Bun.
constexpr const char *kCommon = R"JS(
// Written by `countersign hooks install __CLIENT__`; `countersign hooks remove __CLIENT__` deletes it.
// The agent's own tools ask Countersign before they run, through the countersign-hook shim.
import { spawn } from "node:child_process";

const SHIM = __SHIM__;

function renamed(args, names) {
  const out = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    const name = names[key] ?? key;
    if (Object.prototype.hasOwnProperty.call(out, name) || (names[key] && Object.prototype.hasOwnProperty.call(args, name)))
      throw new Error(`Countersign refused the call: its arguments name ${name} twice`);
    out[name] = value;
  }
  return out;
}

function ask(payload) {
  return new Promise((resolve, reject) => {
    let out = "";
    let child;
    try {
      child = spawn(SHIM[0], SHIM.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    } catch (e) {
      return reject(new Error(`Countersign could not be asked (${e.message}). Nothing was allowed.`));
    }
    child.on("error", (e) => reject(new Error(`Countersign could not be asked (${e.message}). Nothing was allowed.`)));
    child.stdout.on("data", (d) => { out += d; });
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`Countersign's hook exited with ${code}. Nothing was allowed.`));
      resolve(out);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// Resolves when the answer is an allow; throws with the console's words otherwise.
async function gate(payload) {
  const answer = await ask(payload);
  let decision;
  try { decision = JSON.parse(answer).hookSpecificOutput; } catch { decision = undefined; }
  if (decision?.permissionDecision === "allow") return;
  throw new Error(decision?.permissionDecisionReason || "Countersign did not allow this call. Nothing was run.");
}
)JS";

// opencode 1.18: tool.execute.before(input {tool, sessionID, callID}, output {args}); a throw stops it.
constexpr const char *kOpenCode = R"JS(
const TOOLS = {
  bash: ["Bash", {}],
  edit: ["Edit", { filePath: "file_path", oldString: "old_string", newString: "new_string", replaceAll: "replace_all" }],
  multiedit: ["MultiEdit", { filePath: "file_path" }],
  write: ["Write", { filePath: "file_path" }],
  read: ["Read", { filePath: "file_path" }],
  glob: ["Glob", {}],
  grep: ["Grep", {}],
  list: ["LS", {}],
  patch: ["apply_patch", { patchText: "patch" }],
  apply_patch: ["apply_patch", { patchText: "patch" }],
};
// Its tools that change nothing on the machine: not asked about. Every other tool (an MCP tool,
// another plugin's) is asked about under its own name, which Countersign does not know: a card.
const FREE = new Set(["todowrite", "todoread", "task", "skill", "question", "webfetch", "websearch", "codesearch", "invalid"]);
const EDIT = { oldString: "old_string", newString: "new_string", replaceAll: "replace_all" };

function nameOf(tool) {
  return Object.prototype.hasOwnProperty.call(TOOLS, tool) ? TOOLS[tool][0] : String(tool);
}

function inputOf(tool, args) {
  if (!Object.prototype.hasOwnProperty.call(TOOLS, tool)) return args && typeof args === "object" ? args : { args };
  const input = renamed(args, TOOLS[tool][1]);
  if (tool === "multiedit" && Array.isArray(input.edits))
    input.edits = input.edits.map((e) => renamed(e, EDIT));
  return input;
}

export const Countersign = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (FREE.has(input.tool)) return;
    await gate({
      hook_event_name: "PreToolUse", session_id: input.sessionID, tool_use_id: input.callID, cwd: directory,
      tool_name: nameOf(input.tool), tool_input: inputOf(input.tool, output.args),
    });
  },
  "tool.execute.after": async (input, output) => {
    if (FREE.has(input.tool)) return;
    try {
      await ask({
        hook_event_name: "PostToolUse", session_id: input.sessionID, tool_use_id: input.callID, cwd: directory,
        tool_name: nameOf(input.tool), tool_input: inputOf(input.tool, input.args), tool_response: output?.output ?? null,
      });
    } catch { /* a report that cannot be made changes nothing that ran */ }
  },
});
)JS";

// pi 0.73: pi.on("tool_call", (event {toolName, toolCallId, input}, ctx {cwd})) answers
// { block: true, reason } to stop it; "tool_result" after it ran. Its edit takes a list of
// {oldText, newText} (or one at the top level, never both).
constexpr const char *kPi = R"JS(
const TOOLS = {
  bash: ["Bash", {}],
  read: ["Read", { path: "file_path" }],
  write: ["Write", { path: "file_path" }],
  edit: ["Edit", { path: "file_path", oldText: "old_string", newText: "new_string" }],
  grep: ["Grep", {}],
  find: ["Glob", {}],
  ls: ["LS", {}],
};
const EDIT = { oldText: "old_string", newText: "new_string" };

function toolOf(event) {
  // A tool Countersign does not know (another extension's) is asked about under its own name.
  if (!Object.prototype.hasOwnProperty.call(TOOLS, event.toolName))
    return [String(event.toolName), event.input && typeof event.input === "object" ? event.input : { input: event.input }];
  const input = renamed(event.input, TOOLS[event.toolName][1]);
  if (event.toolName !== "edit" || !Object.prototype.hasOwnProperty.call(input, "edits")) return [TOOLS[event.toolName][0], input];
  if (Object.prototype.hasOwnProperty.call(input, "old_string") || Object.prototype.hasOwnProperty.call(input, "new_string"))
    throw new Error("Countersign refused the call: it has both an edits list and a top-level edit");
  if (!Array.isArray(input.edits)) throw new Error("Countersign refused the call: its edits is not a list");
  return ["MultiEdit", { ...input, edits: input.edits.map((e) => renamed(e, EDIT)) }];
}

export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    try {
      const [name, input] = toolOf(event);
      await gate({ hook_event_name: "PreToolUse", session_id: "pi", tool_use_id: event.toolCallId, cwd: ctx.cwd,
                   tool_name: name, tool_input: input });
      return undefined;
    } catch (e) {
      return { block: true, reason: e.message };
    }
  });
  pi.on("tool_result", async (event, ctx) => {
    try {
      const [name, input] = toolOf(event);
      await ask({ hook_event_name: "PostToolUse", session_id: "pi", tool_use_id: event.toolCallId, cwd: ctx.cwd,
                  tool_name: name, tool_input: input, tool_response: { content: event.content ?? null, isError: !!event.isError } });
    } catch { /* a report that cannot be made changes nothing that ran */ }
    return undefined;
  });
}
)JS";

} // namespace

// Cline's hook: a shell script named after its event, the shim's argv quoted for sh.
static QString clineScript(const QStringList &shim)
{
    QStringList quoted;
    for (const QString &arg : shim)
        quoted.append(QLatin1Char('\'') + QString(arg).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
                      QLatin1Char('\''));
    return QLatin1String(kShellMarker) +
           QStringLiteral(
               "# Written by `countersign hooks install cline`; `countersign hooks remove cline` deletes "
               "it.\n# Cline runs it before each tool; the countersign-hook shim reads Cline's payload "
               "and answers.\nexec %1\n")
               .arg(quoted.join(QLatin1Char(' ')));
}

QString text(HookClient client, const QStringList &shim)
{
    if (client == HookClient::Cline)
        return clineScript(shim);
    const QByteArray argv = QJsonDocument(QJsonArray::fromStringList(shim)).toJson(QJsonDocument::Compact);
    const std::string_view name = hookClientSpec(client).name;
    return QLatin1String(kMarker) +
           QString::fromUtf8(kCommon)
               .replace(QStringLiteral("__SHIM__"), QString::fromUtf8(argv))
               .replace(QStringLiteral("__CLIENT__"),
                        QString::fromUtf8(name.data(), qsizetype(name.size()))) +
           QString::fromUtf8(client == HookClient::Pi ? kPi : kOpenCode);
}

bool isOurs(const QByteArray &text)
{
    return text.startsWith(kMarker) || text.startsWith(kShellMarker);
}

} // namespace Countersign::AgentPlugins
