#pragma once

#include "commandcatalog.h"

#include <QList>
#include <QString>

namespace Countersign::Shell {

namespace ArchiveCommands {

// tar, zip and unzip, the compressors and 7z (args: the whole command): what they pack and read,
// what they extract or write and where; an option that may run a program (tar's --to-command or
// -I, zip's -TT, 7z's switches) or forms it cannot read leave what they do unknown.
void read(CommandCatalog &c, const QString &program, const QList<Arg> &args);

} // namespace ArchiveCommands

} // namespace Countersign::Shell
