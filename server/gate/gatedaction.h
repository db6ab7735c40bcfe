#pragma once

#include "plan.h"
#include "policy.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <functional>

namespace Countersign {

// A tool that changes something, served only through the Gate: it can say what it would do (a
// Plan, measured by the server) and do it. Both steps answer through a callback, from the server
// thread's event loop.
class GatedAction
{
public:
    using PlanDone = std::function<void(Result<Plan>)>;
    // The complete tool result (content, isError, structuredContent).
    using ApplyDone = std::function<void(nlohmann::json)>;

    virtual ~GatedAction() = default;
    virtual QString name() const = 0;
    // The tools/list entry, annotations included.
    virtual nlohmann::json descriptor() const = 0;
    // Whether it says it changes nothing (readOnlyHint): a rule allowing it then records it with
    // relaxed durability. Never a reason to skip the gate.
    virtual bool readsOnly() const { return false; }
    // The arguments that name paths, resolved, in the spellings the rules match (PathSpellings);
    // none for a tool whose arguments the rules see as sent.
    virtual PathSpellings pathSpellings(const nlohmann::json &arguments) const
    {
        Q_UNUSED(arguments)
        return {};
    }
    // What a call settled with no card names in its audit row (the file it writes, the command it
    // runs): by default its path arguments, as given.
    virtual QStringList targetsOf(const nlohmann::json &arguments) const
    {
        QStringList targets;
        for (const auto &[name, spellings] : pathSpellings(arguments)) {
            const auto given = arguments.find(name.toStdString());
            if (given != arguments.end() && given->is_string())
                targets.append(QString::fromStdString(given->get<std::string>()));
            else if (!spellings.isEmpty())
                targets.append(spellings.first());
        }
        return targets;
    }
    // Where the default comes from, in words for the card and the audit row ("upstream fs says
    // readOnlyHint"); empty when it is Countersign's own for the tool.
    virtual QString defaultSource() const { return {}; }
    // What the policy does when no rule matches.
    virtual Verdict defaultVerdict(const nlohmann::json &arguments) const
    {
        Q_UNUSED(arguments)
        return Verdict::Ask;
    }
    // The default and why, in words for the card and the audit row: for a tool whose default
    // depends on what this call would do (an agent's shell command), the reason is the call's own.
    struct Default final
    {
        Verdict verdict = Verdict::Ask;
        QString why;
    };
    virtual Default byDefault(const nlohmann::json &arguments) const
    {
        return {defaultVerdict(arguments), defaultSource()};
    }

    // arguments are already validated against the inputSchema. A plan that cannot be made is an
    // Error shown to the agent; no card is made.
    virtual void plan(const nlohmann::json &arguments, PlanDone done) = 0;
    // Runs once per approved ticket; never called without the gate's claim.
    virtual void apply(const nlohmann::json &arguments, ApplyDone done) = 0;
    // Puts a row in the audit chain under the operation being run: an event and its detail.
    using Recorder = std::function<void(const QString &event, const nlohmann::json &detail)>;
    // What the gate calls to run it: with the plan it runs under (the approved card's, made again
    // just now; for a call a rule allowed, one with nothing planned) and a recorder bound to its
    // operation. A tool that holds its run to what the plan promised, or puts something of its run
    // in the chain itself (what it kept for an undo), overrides this. The default runs apply.
    virtual void applyRecorded(const nlohmann::json &arguments, const Plan &plan, Recorder record,
                               ApplyDone done)
    {
        Q_UNUSED(plan)
        Q_UNUSED(record)
        apply(arguments, std::move(done));
    }
};

} // namespace Countersign
