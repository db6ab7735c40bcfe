#include "storedvalue.h"

#include "canonicaljson.h"

#include <nlohmann/json.hpp>

#include <QSqlRecord>
#include <QVariant>

namespace Countersign::StoredValue {

nlohmann::json parseJson(const QVariant &value)
{
    const QByteArray text = value.toByteArray();
    nlohmann::json parsed = nlohmann::json::parse(text.cbegin(), text.cend(), nullptr, false);
    return parsed.is_discarded() ? nlohmann::json() : parsed;
}

QString jsonText(const nlohmann::json &value)
{
    return QString::fromStdString(CanonicalJson::serialize(value));
}

QString notNull(const QString &text)
{
    return text.isNull() ? QStringLiteral("") : text;
}

int column(const QSqlRecord &record, const char *name)
{
    const int index = record.indexOf(QLatin1String(name));
    Q_ASSERT_X(index >= 0, "StoredValue::column", name);
    return index;
}

} // namespace Countersign::StoredValue
