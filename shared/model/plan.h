#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign {

enum class Risk { Low, Medium, High, Critical };

QString riskName(Risk risk);

// Whether one entry of what an agent's command was measured to do (blastRadius.measured) loses
// something: files deleted or replaced, changes discarded, a stash, a branch's or a remote's
// commits. "Nothing is there now" and an append lose nothing. A card says the entries that lose
// something first (an agent cannot push the real loss behind a harmless one by its order).
bool measuredLoses(const nlohmann::json &entry);
std::optional<Risk> parseRisk(const QString &name);

// What a gated call would do, computed by the server before anything runs (docs/design.md, step 3).
// The human approves exactly this; its digest is sealed into the ticket and recomputed on retry.
struct Plan final
{
    QString title;       // one line: "Delete service web-1"
    QString prompt;      // the verbatim text the human is asked to decide on
    QString summary;     // what the plan command said in a sentence, if anything
    QString diff;        // a unified diff or a rendered preview
    QStringList targets; // what is touched, by name
    nlohmann::json blastRadius = nlohmann::json::object(); // counts, bytes, irreversible
    Risk risk = Risk::High;
    // The user's words behind the call (their request in the agent's session record, and what the
    // call reaches that it never named), said first on its card; empty when none is known.
    QString request;

    // The plan recorded for a call a rule (or the default) allowed or denied at once: nothing was
    // planned; targets are what the call names (the file it writes, the command it runs), for its
    // audit row.
    static Plan settledByRule(const QString &tool, const QStringList &targets = {});

    nlohmann::json toJson() const;
    static Result<Plan> fromJson(const nlohmann::json &value);
    // Hex SHA-256 of the canonical JSON of toJson().
    QString digest() const;
    // blastRadius.irreversible when it is true; anything else (absent, or not a boolean, as a plan
    // command may write) is not.
    bool isIrreversible() const
    {
        const auto it = blastRadius.find("irreversible");
        return it != blastRadius.end() && it->is_boolean() && it->get<bool>();
    }
    // Whether Countersign keeps, before it runs, a copy of everything it would lose (blastRadius.undo
    // names the kept files, and nothing else is irreversible).
    bool keptInFull() const;
};

} // namespace Countersign
