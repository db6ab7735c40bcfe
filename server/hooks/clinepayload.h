#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

namespace Countersign::ClinePayload {

// Cline CLI's hook payload ({"hookName": "tool_call", "tool_call": {id, name, input},
// "workspaceRoots": [...], "taskId"} before a tool runs; "tool_result" with {id, name, input,
// output} after) in Claude Code's shape, which the rest of the hook path
// reads: its tools under the names the gate knows. Cline takes many spellings of each tool's
// input (a command as a string, a list, {commands}, {command, args}; a read as files, file_paths,
// paths, a path ...); each is read into one, and one that cannot be read is left under Cline's own
// tool name, which asks. run_commands is the shell (its commands one per line), editor an edit
// (with old_text), a write (without) or, inserting at a line, a tool that asks; read_files and
// search_codebase reads; apply_patch the patch. Its tools that change nothing outside the
// conversation (ask_question, submit_and_exit, skills) and fetch_web_content are not asked about,
// as the other clients' matchers leave them out: "unasked" is true.
Result<nlohmann::json> translate(const nlohmann::json &payload, bool *unasked);

} // namespace Countersign::ClinePayload
