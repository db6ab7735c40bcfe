#pragma once

// What gate.cpp, gateclient.cpp and gaterun.cpp share, and nothing outside the gate reads: its
// logging category and two small helpers of its bookkeeping.
#include "gate.h"

#include <QHash>
#include <QLoggingCategory>
#include <QString>

#include <nlohmann/json.hpp>

#include <string>

Q_DECLARE_LOGGING_CATEGORY(lcGate)

namespace Countersign::GateInternal {

// Bookkeeping per card, dropped when the card ends (Gate::forget). Cards are bounded (per
// connection, kMaxPendingPerConnection); past the cap, as a last resort, it all goes at once: it
// only shapes prompts and rounds.
template <typename T> void remember(QHash<QString, T> &map, const QString &nonce, T value)
{
    if (map.size() >= Gate::kMaxRemembered && !map.contains(nonce))
        map.clear();
    map.insert(nonce, value);
}

// An ElicitResult's action; empty when absent or not a string.
inline std::string actionOf(const nlohmann::json &answer)
{
    const auto field = answer.find("action");
    return field != answer.end() && field->is_string() ? field->get<std::string>() : std::string();
}

} // namespace Countersign::GateInternal
