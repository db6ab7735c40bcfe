#pragma once

#include <optional>
#include <string>

namespace Countersign {

// The agents whose own tools reach Countersign through their pre-tool hooks (docs/client-hooks.md
// has each one's hook format, as its source shows it), and the kinds of hook call.
enum class HookClient { ClaudeCode, Codex, Gemini, Qwen };
enum class HookEvent { Pre, Permission, Post };

// What each client reads back from a hook, in its own format, without Qt: the hook shim
// (countersign-hook) links nothing but the C++ library, so that it starts in a few milliseconds.
namespace HookFormat {
// "claude-code" (or "claude"), "codex", "gemini", "qwen".
std::optional<HookClient> parseClient(const std::string &name);
std::string clientName(HookClient client);
// The JSON a hook prints (a command hook's stdout, an HTTP hook's body), with its newline; empty
// where saying nothing is the client's allow (Codex's PreToolUse cannot allow).
std::string allow(HookClient client, HookEvent event);
// reason reaches the model word for word (the client may put its own words around it).
std::string deny(HookClient client, HookEvent event, const std::string &reason);
} // namespace HookFormat

} // namespace Countersign
