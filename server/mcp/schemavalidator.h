#pragma once

#include "result.h"

#include <nlohmann/json_fwd.hpp>

namespace Countersign::SchemaValidator {

// Validates value against the JSON Schema subset that tool input schemas use: type (one or a list),
// properties, required, additionalProperties (bool or schema), enum, const, minLength, maxLength,
// pattern, minimum, maximum, items, minItems, maxItems. The error names the first failing place,
// as in "data/serviceName must be string". Keywords outside the subset are ignored.
Status validate(const nlohmann::json &schema, const nlohmann::json &value);

} // namespace Countersign::SchemaValidator
