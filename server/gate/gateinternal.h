#pragma once

// What gate.cpp, gateclient.cpp and gaterun.cpp share, and nothing outside the gate reads: its
// logging category and a helper of its bookkeeping.
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

} // namespace Countersign::GateInternal
