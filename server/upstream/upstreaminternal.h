#pragma once

// What the session (upstreamlink.cpp) and its two transports (upstreamstdio.cpp,
// upstreamhttp.cpp) share, and nothing outside the upstream room reads.
#include <QLoggingCategory>

#include <nlohmann/json.hpp>

Q_DECLARE_LOGGING_CATEGORY(lcUpstream)

namespace Countersign::UpstreamInternal {

inline constexpr const char *kModern = "2026-07-28";
// The longest line of an upstream's stderr that is logged whole.
inline constexpr qsizetype kMaxErrLineBytes = 4096;

// The member key of value when value is an object, else null: what an upstream sends is not
// trusted to have the shape it should (json::value() throws on a wrong type).
inline const nlohmann::json &member(const nlohmann::json &value, const char *key)
{
    static const nlohmann::json null;
    if (!value.is_object())
        return null;
    const auto it = value.find(key);
    return it == value.end() ? null : *it;
}

} // namespace Countersign::UpstreamInternal
