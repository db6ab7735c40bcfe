#pragma once

#include "result.h"

#include <QByteArray>
#include <QString>

namespace Countersign {

// bytes in place at once (a reader never sees half of it), readable by the user alone, its folder
// made when missing: a client's settings with a token in them, a token, a plugin, a ledger.
Status writePrivate(const QString &path, const QByteArray &bytes);

} // namespace Countersign
