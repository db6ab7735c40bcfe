#pragma once

#include <string>

namespace Countersign {

// `countersign-hook CLIENT --socket PATH [--token-file FILE]` (also `countersign hook CLIENT
// [--data-dir DIR]`, which finds the socket itself): the
// command a client's pre- and post-tool hook runs (Codex, Gemini CLI, Qwen Code; Claude Code may use it or
// its HTTP hook). It reads the hook's JSON on stdin, hands it to the data folder's running console over its
// local socket with the connection's token from COUNTERSIGN_TOKEN (the stdio bridge's socket and rules), and
// prints the client's answer in the client's format, with its exit code. Every failure on the way (no
// console, no token, a revoked one, a malformed payload, a console that goes away) is a deny the agent can
// read, never an allow: most clients let a call through when the hook itself fails.
// argv[first] is the client (2 for `countersign hook CLIENT`, 1 for `countersign-hook CLIENT`).
int runHookShim(int argc, char **argv, int first, const std::string &defaultSocket = {});

} // namespace Countersign
