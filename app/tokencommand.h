#pragma once

#include <QStringList>

namespace Countersign {

// countersign token add|list|revoke: runs against the database in dataDir; returns the exit code.
int runTokenCommand(const QString &dataDir, const QStringList &command);

} // namespace Countersign
