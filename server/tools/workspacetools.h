#pragma once

#include <memory>

namespace Countersign {

class CommandRunner;
class Gate;
class SnapshotStore;
class ToolRegistry;
class Workspace;

// The built-in workspace tools, all served through the gate and confined to the workspace roots:
// read_file and list_directory (allowed by default), write_file and edit_file (the plan is the real
// unified diff), delete_path (what goes, and which files git cannot bring back), move_path, and
// run_command (an argv array, never a shell; a small read-only allow list, everything else asks).
// With snapshots, what a change overwrites or deletes is kept before it runs, for an undo, and its
// card says so (UndoableApply).
namespace WorkspaceTools {
void addTo(ToolRegistry &registry, const std::shared_ptr<const Workspace> &workspace, CommandRunner &runner,
           Gate &gate, const std::shared_ptr<SnapshotStore> &snapshots = nullptr);
} // namespace WorkspaceTools

} // namespace Countersign
