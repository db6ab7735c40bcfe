#pragma once

#include <nlohmann/json_fwd.hpp>

#include <QString>

#include <string>

class QSqlRecord;
class QVariant;

// Conversions between the store's columns and the values the records hold, shared by the store's
// units (AuditChain, OperationRecords, ClaimRecords).
namespace Countersign::StoredValue {

// A JSON text column as JSON; null when the column is NULL or not JSON.
nlohmann::json parseJson(const QVariant &value);
// JSON in its canonical text, as stored (and as the audit chain hashes it).
QString jsonText(const nlohmann::json &value);
// A text column's value as a JSON string's UTF-8.
inline std::string text(const QString &value)
{
    return value.toStdString();
}
// Qt binds a null QString as SQL NULL; the store's text columns are NOT NULL and empty is a value,
// so a null string is bound as "".
QString notNull(const QString &text);
// The position of the result column called name (its alias where it is an expression). Asserts
// that the result has it: a missing name is a mistake in the SQL text, not in the data.
int column(const QSqlRecord &record, const char *name);

} // namespace Countersign::StoredValue
