#include "opencodeplugin.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace Countersign::OpenCodePlugin {

namespace {

constexpr const char *kMarker = "// countersign-opencode-plugin v1";

// The plugin, shim argv spliced in as a JSON array. Plain ECMAScript modules for opencode's Bun.
constexpr const char *kBody = R"JS(
// Written by `countersign hooks install opencode`; `countersign hooks remove opencode` deletes it.
// opencode's own tools ask Countersign before they run, through the countersign-hook shim.
import { spawn } from "node:child_process";

const SHIM = __SHIM__;
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
};
const EDIT = { oldString: "old_string", newString: "new_string", replaceAll: "replace_all" };

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

function inputOf(tool, args) {
  const input = renamed(args, TOOLS[tool][1]);
  if (tool === "multiedit" && Array.isArray(input.edits))
    input.edits = input.edits.map((e) => renamed(e, EDIT));
  return input;
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

export const Countersign = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (!Object.prototype.hasOwnProperty.call(TOOLS, input.tool)) return;
    const answer = await ask({
      hook_event_name: "PreToolUse", session_id: input.sessionID, tool_use_id: input.callID, cwd: directory,
      tool_name: TOOLS[input.tool][0], tool_input: inputOf(input.tool, output.args),
    });
    let decision;
    try { decision = JSON.parse(answer).hookSpecificOutput; } catch { decision = undefined; }
    if (decision?.permissionDecision === "allow") return;
    throw new Error(decision?.permissionDecisionReason || "Countersign did not allow this call. Nothing was run.");
  },
  "tool.execute.after": async (input, output) => {
    if (!Object.prototype.hasOwnProperty.call(TOOLS, input.tool)) return;
    try {
      await ask({
        hook_event_name: "PostToolUse", session_id: input.sessionID, tool_use_id: input.callID, cwd: directory,
        tool_name: TOOLS[input.tool][0], tool_input: inputOf(input.tool, input.args), tool_response: output?.output ?? null,
      });
    } catch { /* a report that cannot be made changes nothing that ran */ }
  },
});
)JS";

} // namespace

QString text(const QStringList &shim)
{
    const QByteArray argv = QJsonDocument(QJsonArray::fromStringList(shim)).toJson(QJsonDocument::Compact);
    return QLatin1String(kMarker) +
           QString::fromUtf8(kBody).replace(QStringLiteral("__SHIM__"), QString::fromUtf8(argv));
}

bool isOurs(const QByteArray &text)
{
    return text.startsWith(kMarker);
}

} // namespace Countersign::OpenCodePlugin
