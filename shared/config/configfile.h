#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>

namespace Countersign::ConfigFile {

// Sets a top-level key of a JSON-with-comments configuration text, leaving every other byte (the
// comments and the layout included) as it was: the value is replaced in place, or the key is added
// after the opening brace. The result must still parse as a Config, or the change is refused.
Result<QByteArray> setTopLevel(const QByteArray &text, const QString &key, const nlohmann::json &value);

// Reads the file (missing: "{}"), applies the changes and writes it atomically.
Status update(const QString &path, const nlohmann::json &changes);

} // namespace Countersign::ConfigFile
