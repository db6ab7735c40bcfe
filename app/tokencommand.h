#pragma once

#include <QStringList>

namespace Countersign {

// countersign token add|list|revoke: runs against the database in dataDir; returns the exit code.
// command is the whole command, "token" first.
int runTokenCommand(const QString &dataDir, const QStringList &command);

} // namespace Countersign
