#pragma once

namespace Countersign {

struct CommandLine;

// countersign undo OPERATION [--yes]: takes back an agent's change that ran with no card (its
// files' previous content was kept), as the audit view's Revert does. Shows the diff it would apply
// and asks on the terminal unless --yes; refuses when a file changed since. Returns the exit code:
// 0 reverted, 1 refused or failed (nothing written), 2 not confirmed.
int runUndoCommand(const CommandLine &cl);

} // namespace Countersign
