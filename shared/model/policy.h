#pragma once

#include "plan.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>

namespace Countersign {

enum class Verdict { Allow, Ask, Deny };
// Who may open the gate for a risk level: the human at the console (default), or a typed
// confirmation in the client's form (the console can still veto while the card is open).
enum class ApprovalMode { Console, Client };

QString verdictName(Verdict verdict);
// "allow", "ask" or "deny"; nothing for anything else.
std::optional<Verdict> parseVerdict(const QString &name);

// The path arguments of a call as the rules see them (GatedAction::pathSpellings): for each
// argument that names a path, the path once resolved, in each spelling that names it (relative to
// the first workspace root when inside it, and absolute). A rule's glob on such an argument is
// matched against these, spelled the same way (no "./" in front, no "/" at the end), so a rule on
// build matches ./build, build/ and ROOT/build. An allow rule matches only these (what the call
// acts on); a deny or ask rule matches the text as sent too. An argument listed with no spelling
// (a path that cannot be resolved) is matched by no allow rule.
using PathSpellings = std::map<QString, QStringList>;

// One rule of the "rules" list: a tool name pattern, optional argument patterns, optional argv
// prefix (for run_command-like tools) and the verdict. Patterns are globs (* and ?), matched on
// the whole value; a value holding a control character or a line break (U+0000-U+001F, U+007F-U+009F,
// U+2028, U+2029) matches no pattern, so the rule does not apply to it.
struct Rule final
{
    QString tool = QStringLiteral("*");
    std::map<QString, QString> arguments; // argument name -> glob over its text form
    QStringList argvPrefix;               // matched against the "argv" argument, element by element
    Verdict verdict = Verdict::Ask;
    QString reason;

    bool matches(const QString &toolName, const nlohmann::json &args, const PathSpellings &paths = {}) const;
    // The text an argument glob is matched against: a string's value, a number's or boolean's
    // canonical JSON text (as the arguments digest writes it: 1.0 and 1e0 are "1"); nothing for
    // any other value (no argument glob matches it).
    static std::optional<QString> argumentText(const nlohmann::json &value);
    // Whether pattern, read as a JSON number, is value (a number) by value: a rule written "1.0"
    // matches 1, 1.0 and 1e0 alike.
    static bool sameNumber(const QString &pattern, const nlohmann::json &value);
    // A glob on a path argument spelled as PathSpellings spell paths: without "./" in front, "/./"
    // inside, doubled "/" or a "/" at the end ("." for a root itself).
    static QString pathGlob(QString glob);
    QString describe() const;
};

// What runs with no card when no rule decides (docs/threat-model.md): "standard" judges what a
// call would do (reads, the project's own build and tests, writes inside the roots run; deletions,
// the network, secrets and the rest ask); "strict" asks for everything that is not a read.
enum class GateMode { Standard, Strict };
QString gateModeName(GateMode mode);
std::optional<GateMode> parseGateMode(const QString &name);

struct PolicyDecision final
{
    Verdict verdict = Verdict::Ask;
    int ruleIndex = -1; // -1: no rule matched, the tool's default applied
    QString rule;       // the rule in words, for the card and the audit row
    QString reason;
};

// The "rules" and "approval" settings. First matching rule wins.
class Policy final
{
public:
    // rules: the "rules" array; approval: the "approval" object (risk name -> "console"|"client");
    // review: the "review" object ({"twoPeople": [risk...], "notOwnConnection": [risk...]}). Any may
    // be null. Errors name the element: "rules[2].decision: must be allow, ask or deny".
    static Result<Policy> fromJson(const nlohmann::json &rules, const nlohmann::json &approval,
                                   const nlohmann::json &review = nullptr);

    PolicyDecision evaluate(const QString &toolName, const nlohmann::json &args, Verdict fallback,
                            const PathSpellings &paths = {}) const;
    ApprovalMode approvalFor(Risk risk) const { return m_approval[static_cast<int>(risk)]; }
    // A team's review rules for a risk level: how many different people must approve (1 or 2),
    // and whether the person who owns the calling connection is barred from approving.
    int peopleFor(Risk risk) const { return m_twoPeople[static_cast<int>(risk)] ? 2 : 1; }
    bool ownConnectionBarred(Risk risk) const { return m_notOwnConnection[static_cast<int>(risk)]; }
    const QList<Rule> &rules() const { return m_rules; }
    // The effective policy, for the settings page and countersign_status.
    nlohmann::json toJson() const;

private:
    QList<Rule> m_rules;
    ApprovalMode m_approval[4] = {ApprovalMode::Console, ApprovalMode::Console, ApprovalMode::Console,
                                  ApprovalMode::Console};
    bool m_twoPeople[4] = {false, false, false, false};
    bool m_notOwnConnection[4] = {false, false, false, false};
};

} // namespace Countersign
