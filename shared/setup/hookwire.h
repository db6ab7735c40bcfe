#pragma once

// The hook shim's wire contract with the console, written once for both ends: the shim
// (app/hookshim.cpp, which has no Qt) and the console's local socket and HTTP hook
// (server/mcp/localendpoint.cpp, server/hooks). Plain C++.

#include <cstddef>

namespace Countersign::HookWire {

// The shim's hello, {"countersign":"hook/1","token":"...","client":"codex"}: its next line is the
// hook's payload, answered with one line (the client's answer, or {"ok":false,"error":...} for a
// refused hello), and the connection ends.
inline constexpr char kHello[] = "hook/1";
// The most a hook's payload may hold, over the socket and over HTTP.
inline constexpr std::size_t kMaxPayloadBytes = 4 * 1024 * 1024;
// The most one shim's connection may send: its hello's line and its payload's.
inline constexpr std::size_t kMaxConnectionBytes = kMaxPayloadBytes + 4096;

} // namespace Countersign::HookWire
