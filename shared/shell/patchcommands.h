#pragma once

#include "commandcatalog.h"
#include "patchtext.h"

#include <QList>
#include <QString>

namespace Countersign::Shell {

namespace PatchCommands {

// git apply and git am (args: what follows the subcommand; cwd: where git runs) and GNU patch
// (args: the whole command): each file the patch touches judged as a write, a deletion or a link,
// the patch read from its files, a here-document or a redirected file (a pipe is not known).
void gitApply(CommandCatalog &c, const QString &sub, const QList<Arg> &args, const QString &cwd);
void patch(CommandCatalog &c, const QList<Arg> &args);

// Most bytes of a patch read to judge it; a larger one asks.
constexpr qint64 kMaxPatchBytes = 4 * 1024 * 1024;

} // namespace PatchCommands

} // namespace Countersign::Shell
