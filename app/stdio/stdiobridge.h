#pragma once

namespace Countersign {

struct CommandLine;

// `countersign --stdio`: a thin bridge between the IDE that started it (stdin/stdout) and the data
// folder's running console, over the console's local socket, authenticated with the connection's
// token from COUNTERSIGN_TOKEN. Cards of its calls appear in the one window and are decided there.
// With no console running it starts one (a window where a display exists, headless otherwise;
// its log in the data folder's console.log) and waits up to kStartWaitMs for it. Returns the exit
// code: 0 when stdin ended and every request had its answer, 1 when the bridge could not start or
// the console ended the connection.
int runStdioBridge(const CommandLine &cl);

constexpr int kStartWaitMs = 10'000;

} // namespace Countersign
