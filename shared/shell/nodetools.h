#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// npm, pnpm, yarn and bun, and npx: installs and publishing ask; a script runs as the project's
// only when the project's package.json defines it and no option changes how it runs; npx runs a
// tool the project has installed (one Countersign knows), else it fetches a package and asks.
namespace NodeTools {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);

} // namespace NodeTools

} // namespace Countersign::Shell
