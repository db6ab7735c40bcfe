#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// The readers with a language of their own that can write files or run programs: sed (-i, and
// its w, r and e commands) and awk (system, pipes, getline, print > file).
namespace TextCommands {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);

} // namespace TextCommands

} // namespace Countersign::Shell
