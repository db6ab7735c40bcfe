#pragma once

#include "commandrunner.h"

#include <QString>
#include <QStringList>

namespace Countersign {

class Workspace;

// The run_command forms that run without a card (docs/threat-model.md): pwd, ls and git status,
// diff, log and show, each with a fixed list of options, every other argument a path (or a git
// revision, taken as a path) confined to the workspace roots, and git only in a repository whose
// folders are inside the roots and whose own configuration names no program. They run hardened:
// git without system or global configuration, fsmonitor, hooks, pager, external diff, textconv
// or network. Anything else asks.
namespace ReadOnlyCommand {

// Why argv, run in cwd (already resolved inside the roots), is not a read-only form; empty when it is.
QString refusal(const QStringList &argv, const QString &cwd, const Workspace &ws);

// How run_command runs argv: git status, diff, log and show hardened (its switches, no system or
// global configuration, the repository's filter drivers emptied) whoever allowed them, a rule or
// a human; everything else as it is.
CommandSpec spec(const QStringList &argv, const QString &cwd, const Workspace &ws);

// The folders git may not climb into looking for a repository: the parent of each root.
QStringList gitCeilings(const Workspace &ws);

} // namespace ReadOnlyCommand

} // namespace Countersign
