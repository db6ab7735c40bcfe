#pragma once

#include <nlohmann/json.hpp>

#include "result.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

namespace Countersign::AuditExport {

// The rows of AuditStore::report() as CSV (RFC 4180, a header line, ISO 8601 UTC times). Cells that a
// spreadsheet would run as a formula (=, +, -, @ first) are prefixed with an apostrophe.
QByteArray csv(const QList<nlohmann::json> &rows);
// As one JSON array, times left as milliseconds since the epoch.
QByteArray json(const QList<nlohmann::json> &rows);

// The rows of report whose "id" is one of ids, in report's order, written to path as JSON (asJson)
// or CSV, all or nothing (QSaveFile): how many rows were written, or why none were.
Result<int> save(QList<nlohmann::json> report, const QStringList &ids, const QString &path, bool asJson);

} // namespace Countersign::AuditExport
