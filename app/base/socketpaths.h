#pragma once

#include <QString>

// Where a data folder's console listens on this machine: its own socket (a later start asks it to
// raise its window, or for its URL) and the one for `countersign --stdio` bridges and hook shims.
// In $XDG_RUNTIME_DIR when it is this user's and closed to others, else /tmp/countersign-<uid>;
// empty when neither is usable. Kept apart so the hook shim links nothing else.
namespace Countersign::SocketPaths {
QString console(const QString &dataDir);
QString bridge(const QString &dataDir);
} // namespace Countersign::SocketPaths
