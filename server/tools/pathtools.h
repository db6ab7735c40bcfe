#pragma once

#include <memory>

namespace Countersign {

class GatedAction;
class SnapshotStore;
class Workspace;

// delete_path and move_path: what goes (every file, its bytes, which git cannot bring back, in the
// words of an agent's own rm -r), what a move overwrites, and their undo (WorkspaceAction).
namespace PathTools {
std::shared_ptr<GatedAction> deletePath(std::shared_ptr<const Workspace> ws,
                                        std::shared_ptr<SnapshotStore> snapshots);
std::shared_ptr<GatedAction> movePath(std::shared_ptr<const Workspace> ws,
                                      std::shared_ptr<SnapshotStore> snapshots);
} // namespace PathTools

} // namespace Countersign
