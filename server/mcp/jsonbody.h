#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>

namespace Countersign::JsonBody {

inline constexpr int kMaxDepth = 64;

// Parses one JSON text received from a client. Refuses, with a reason: invalid JSON or UTF-8,
// nesting deeper than kMaxDepth, and an object with the same key twice (which parsers resolve
// differently, so a check and a use could read different values).
Result<nlohmann::json> parse(const QByteArray &bytes);

} // namespace Countersign::JsonBody
