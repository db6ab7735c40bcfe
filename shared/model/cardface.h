#pragma once

#include "operation.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace Countersign {

// What an approval card shows, in the words the window, the phone and the queue's list share (issue
// 51): read top to bottom in three seconds, each fact once.
//   headline  what happens and what is lost, and whether it can be taken back ("Discards uncommitted
//             changes to src/a.js (+1 −1); a copy is kept")
//   command   the command or tool as it will run, and the folder it runs in
//   why       why it asks, the reasons the headline did not already give
//   evidence  what the call acts on: the diff it discards or writes, the files it deletes, the
//             hosts or names it reaches; empty when there is nothing to show (no empty box)
//   who       who asks and through which door, in one short line
//   details   folded away: targets, everything measured, the rule, the mode, the prompt, the
//             arguments and the digests
// Risk follows what can still be taken back: a change kept in full (Plan::keptInFull) or that git
// holds is never called irreversible, and the typed confirmation is Operation's (short, only where
// nothing is kept). Everything here is agent or plan text: shown as plain text, never as markup.
struct CardFace final
{
    enum class Evidence { None, Diff, Files, Targets };

    QString request; // the user's words behind the call (Plan::request), said first; empty when none
    QString headline;
    QString riskWords; // "High risk", "Medium risk": the level only; reversibility is in the headline
    QString command;   // "$ git reset --hard", "delete_path {"path":"build"}"
    QString folder;    // where it runs, shown beside the command; empty when it names none
    QStringList why;
    QStringList also; // further things it does, when it does more than the headline says
    QString summary;  // a tool's own summary, when it says what the headline does not
    Evidence evidence = Evidence::None;
    QString evidenceTitle; // "What it discards", "Files it deletes", "What it reaches"
    QString evidenceText;
    QString who;
    bool typed = false;
    QString typedText;
    QList<QPair<QString, QString>> details;

    static CardFace of(const Operation &op);
    // One line for the queue's list: the headline, then who and the risk.
    QString listEntry() const;
    // The shown text that reads as sentences (headline, command, why, also, summary, who, risk):
    // what the checks below and the tests read.
    QStringList shownSentences() const;
    // What would make the card hard to read in three seconds: a sentence said twice, "irreversible"
    // or "cannot be undone" beside a kept copy, a typed confirmation for a change that is kept or a
    // whole path to type. Empty for a good card.
    QStringList problems(const Operation &op) const;
    nlohmann::json toJson() const;
};

} // namespace Countersign
