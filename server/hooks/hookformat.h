#pragma once

#include "hookclients.h"

#include <optional>
#include <string>

namespace Countersign {

// The kinds of hook call (the clients' own names for them are in kHookClients).
enum class HookEvent { Pre, Permission, Post };

// What each client reads back from a hook, in its own format, without Qt: the hook shim
// (countersign-hook) links nothing but the C++ library, so that it starts in a few milliseconds.
namespace HookFormat {
// The JSON a hook prints (a command hook's stdout, an HTTP hook's body), with its newline; empty
// where saying nothing is the client's allow (Codex's PreToolUse cannot allow).
std::string allow(HookClient client, HookEvent event);
// reason reaches the model word for word (the client may put its own words around it).
std::string deny(HookClient client, HookEvent event, const std::string &reason);
} // namespace HookFormat

} // namespace Countersign
