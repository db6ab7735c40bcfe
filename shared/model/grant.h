#pragma once

#include "policy.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>
#include <QStringList>

namespace Countersign {

struct Operation;
struct Plan;

// "From now on", made from a card by the human at the window (issue 51): allow or deny the calls a
// narrow rule covers, for one connection, until it expires or is revoked. Four scopes, narrowest
// first, each offered only where it is narrow:
//   Call     this exact call: the tool and its arguments' digest (an agent's line: the same line, in
//            the same folder, by the same agent)
//   Command  an agent's shell line of plain words beginning with these words (a subcommand), with
//            any further arguments, in this folder; never for a shell, an interpreter or a wrapper
//            that runs what follows it (sh, python, env, sudo, npx, ...)
//   File     an agent's own file tool (Write, Edit) on this one file, never through a link
//   Tool     one MCP tool with any arguments (never an agent's own tool)
// A grant is a value; Grants keeps them in the audit chain. An allow never lets a call through
// whose plan cannot be taken back (the gate checks the plan before it applies one).
struct Grant final
{
    enum class Scope { Call, Command, File, Tool };

    QString id; // random, 16 hex characters
    Verdict verdict = Verdict::Allow;
    Scope scope = Scope::Call;
    QString principal; // the connection it was made for
    QString tool;
    QString argsDigest; // Call
    QStringList words;  // Command: the words the line begins with
    QString folder;     // Command: the folder it runs in (its cwd, exactly)
    QString others;     // Command: the call's other fields (the agent, its tool, its options), exactly
    QString path;       // File
    QString example;    // the call it was made from, in words (the line, the path, the arguments)
    qint64 createdMs = 0;
    qint64 expiresMs = 0; // 0: until revoked
    QString by;           // "console:<person>"
    // Not empty: only while this agent session lasts (the agent's own session id, as its hook
    // sends it: Operation::agentSession). Empty: any session, and MCP calls.
    QString session;

    // The narrowest grants a card's call can be given, narrowest first (Call always, the others
    // where they apply), for verdict, by, from nowMs until expiresMs.
    static QList<Grant> offersFor(const Operation &op, Verdict verdict);

    bool expiredAt(qint64 nowMs) const { return expiresMs != 0 && nowMs >= expiresMs; }
    // Whether it covers this call (not whether it is live: Grants knows that). A File grant's path
    // must not be a link now.
    bool covers(const QString &toolName, const QString &principalName, const nlohmann::json &arguments,
                const QString &digest, const QString &agentSession = {}) const;
    // What it lets through (or refuses), in words: "npm run lint with any further arguments, run
    // by claude-code in /ws, for connection "agent"".
    QString describe() const;
    // What it covers beyond the call it was made from; empty for Call.
    QString beyond() const;
    // The rule text an audit row records for a call it decided: "grant <id>: <describe>".
    QString ruleText() const;

    nlohmann::json toJson() const;
    static Result<Grant> fromJson(const nlohmann::json &value);

    // Whether the plan's reasons say the call runs code the agent wrote or changed (a script no git
    // repository keeps, or changed since the last commit: CommandJudge's and ProjectJudge's words):
    // an allow grant never covers it, since what it runs may differ at each call.
    static bool runsChangedCode(const Plan &plan);

    // Programs whose first arguments are themselves something to run: a Command grant never starts
    // with one.
    static bool runsWhatFollows(const QString &program);
};

QString grantScopeName(Grant::Scope scope);

} // namespace Countersign
