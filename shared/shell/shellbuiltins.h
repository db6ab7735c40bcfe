#pragma once

#include "commandcatalog.h"
#include "shellscript.h"

namespace Countersign::Shell {

// The shell's own commands and the few readers that write, run or dump the environment: env and
// printenv dumps, export/declare/read/printf -v (poisoning names, names that expand), shopt,
// umask, alias, hash -p, jobs -x, let, source, date -f, ps e, jq env, sort -o, uniq, tee, and the
// ones that run, schedule or stop programs (crontab, systemctl, kill...).
namespace ShellBuiltins {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);
// The word a grep after an environment dump keeps the lines of (env | grep -i java), when it only
// keeps the lines holding one plain word that names no secret; empty for any other command.
QString environmentFilter(const Command &c);

} // namespace ShellBuiltins

} // namespace Countersign::Shell
