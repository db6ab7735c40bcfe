#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// Programs that change files (mkdir, cp, mv, ln, rm, chmod, tar, ...), that reach the network
// (curl, wget, ssh, scp, rsync, cloud and database clients), and the readers with a language of
// their own that can write or run programs (find -exec and -delete, sed's w and e, awk's system).
namespace FileCommands {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);

} // namespace FileCommands

} // namespace Countersign::Shell
