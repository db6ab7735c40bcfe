#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// Programs that reach the network: curl and wget (a plain request to this machine is a read,
// anything else asks), ssh, scp, rsync (a local rsync is a copy), and the cloud, cluster,
// infrastructure and database clients.
namespace NetworkCommands {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);

// The host a URL or an scp/rsync operand names ("user@host:path"); empty when it names none.
QString hostOf(const QString &operand);
// Whether a host is this machine.
bool isLocalHost(const QString &host);

} // namespace NetworkCommands

} // namespace Countersign::Shell
