#pragma once

namespace Countersign {

struct CommandLine;

// `countersign selftest CLIENT`: runs the agent installed on PATH headless against a scripted model
// (ScriptedModel), in a sandbox of its own (a HOME, a project, a console and data folder; the user's
// settings and console are never read or changed), set up as `countersign setup CLIENT` sets it up:
//   1. its own shell tool deletes a folder, with the console running: the call must be held for a
//      card before it runs; the self-test declines the card, and the agent must be told why;
//   2. (the agents whose MCP entry setup writes) Countersign's delete_path, the same;
//   3. the console killed, as a crash leaves it: the same shell call must be blocked.
// The folder must survive all three. Prints what happened at each step; exit status 0 when the
// gate held everywhere, 1 when it did not, 2 when the agent could not be run at all.
int runSelftestCommand(const CommandLine &cl);

} // namespace Countersign
