#pragma once

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>

namespace Countersign::AuditExport {

// The rows of AuditStore::report() as CSV (RFC 4180, a header line, ISO 8601 UTC times). Cells that a
// spreadsheet would run as a formula (=, +, -, @ first) are prefixed with an apostrophe.
QByteArray csv(const QList<nlohmann::json> &rows);
// As one JSON array, times left as milliseconds since the epoch.
QByteArray json(const QList<nlohmann::json> &rows);

} // namespace Countersign::AuditExport
