#pragma once

#include "policy.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace Countersign {

// A deny rule for a call that people keep declining, as it goes first into the configuration's
// "rules": the Declines view's "Deny this from now on".
//
// forCall() pins the tool's name and every argument to its value, each as a glob that matches that
// value (Rule: a glob covers the whole text); a list of strings called "argv" (run_command and its
// like) becomes argvPrefix. Where the rule language cannot pin a value, the rule denies more than
// the call and notes() says where, in words the human confirms: a glob has no escape, so a * or ? in
// a value is matched by ? (any one character there); argvPrefix also matches a longer argv; a value
// no glob matches (a line break or control character), a list or an object, a null, or a text over
// kMaxPinnedLength is left out of the rule (any value of that argument is then denied). A rule that
// would pin no argument of a call that has some (it would deny every call of the tool) is refused.
class DenyRule final
{
public:
    static constexpr qsizetype kMaxPinnedLength = 1024;

    // The rule denying this call.
    static Result<DenyRule> forCall(const QString &tool, const nlohmann::json &arguments,
                                    const QString &reason);
    // The rule denying this tool on this target, whatever its other arguments: the first argument of
    // the call (by name) whose value is the target's text. Refused when none is.
    static Result<DenyRule> forTarget(const QString &tool, const QString &target,
                                      const nlohmann::json &arguments, const QString &reason);

    // The rule as written in "rules" ({"tool", "arguments", "argvPrefix", "decision": "deny", "reason"}).
    const nlohmann::json &toJson() const { return m_json; }
    // As Policy reads it.
    const Rule &rule() const { return m_rule; }
    // Where the rule denies more than what it was made for, one sentence each; empty when exactly.
    const QStringList &notes() const { return m_notes; }

    // Writes the rule first in the file's "rules" (ConfigFile::update, which keeps the comments and
    // layout outside "rules"), making the file and its folder when missing. Refused with the reason,
    // and the file left as it was, when the file does not parse as a configuration (its line and
    // reason) or cannot be written.
    Status prependTo(const QString &configPath) const;

    // A glob that matches text: text itself, with each * and ? (a glob has no escape) as ?.
    static QString literalGlob(const QString &text);
    // Whether no glob matches text (Rule: a line break or a control character).
    static bool unmatchable(const QString &text);

private:
    static Result<DenyRule> make(nlohmann::json rule, QStringList notes);

    nlohmann::json m_json;
    Rule m_rule;
    QStringList m_notes;
};

} // namespace Countersign
