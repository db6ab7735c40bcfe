#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// Programs that change files (mkdir, cp, mv, ln, rm, chmod, tar, ...), that reach the network
// (curl, wget, ssh, scp, rsync, cloud and database clients), and the readers with a language of
// their own that can write or run programs (find -exec and -delete, sed's w and e, awk's system).
namespace FileCommands {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);

// The host a URL or an scp/rsync operand names ("user@host:path"); empty when it names none.
QString hostOf(const QString &operand);
// Whether a host is this machine.
bool isLocalHost(const QString &host);

} // namespace FileCommands

} // namespace Countersign::Shell
