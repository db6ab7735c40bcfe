#pragma once

#include <nlohmann/json.hpp>

namespace Countersign::ToolResult {

// Whether a tool result says it failed: an object whose isError is true. Anything else (no
// isError, false, a value of another type, a result that is no object) is not a failure, and
// never throws: read the same way wherever a result is kept, shown, counted or signed.
inline bool failed(const nlohmann::json &result)
{
    if (!result.is_object())
        return false;
    const auto it = result.find("isError");
    return it != result.end() && it->is_boolean() && it->get<bool>();
}

} // namespace Countersign::ToolResult
