#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QMetaType>
#include <QString>

namespace Countersign {

// The Declines view's reads over the operations and decisions of a period (DeclineSql): what was
// declined most (tools, targets, reasons), the calls declined again and again, how long people take
// to decide each tool and how often they approve it, and the approvals made faster than their card
// can be read (ReadingTime). "Declined" counts the calls refused by a decision (at a console or in
// the agent's client); "denied" those a rule refused; they are counted apart. Time to decide, the
// approval rate and the fast approvals count a person's decisions at a console only
// ("console:NAME"): a client's answer may be the agent's own.
//
// Each call prepares, binds and runs its statements on the connection and reads them to their end;
// nothing is cached. Failures are Errors with the engine's words. Calls run on the thread that owns
// the connection.
class DeclineQuery final
{
public:
    // A tool or target, with how often it was declined and denied.
    struct Count final
    {
        QString name;
        int declined = 0; // by a decision
        int denied = 0;   // by a rule
        int total() const { return declined + denied; }
    };

    // One reason and how often it was given.
    struct Reason final
    {
        enum class Kind { Person, Client, Rule };
        Kind kind = Kind::Person;
        QString text; // the reason typed (may be empty), or the denying rule in words
        int count = 0;
    };

    // A call declined again and again: the same tool and arguments, or the same tool and target
    // through different arguments.
    struct Repeat final
    {
        enum class Same { Call, Target };
        Same same = Same::Call;
        QString tool;
        QString target;    // Same::Target: the target; Same::Call: the latest call's first target
        int declines = 0;  // in the period
        int calls = 1;     // distinct arguments among them
        int people = 0;    // distinct deciders
        qint64 lastMs = 0; // the latest one's creation
        // The latest of them: its arguments, their digest, its reason and who declined it.
        nlohmann::json arguments = nlohmann::json::object();
        QString argsDigest;
        QString lastReason;
        QString lastDecidedBy;
    };

    // A person's decisions on one tool at a console.
    struct ToolTiming final
    {
        QString tool;
        int approved = 0;
        int declined = 0;
        qint64 medianMs = 0; // card creation to decision, nearest rank
        qint64 p90Ms = 0;
        // approved / (approved + declined), 0 to 1.
        double approvalRate() const
        {
            return approved + declined == 0 ? 0.0 : double(approved) / double(approved + declined);
        }
    };

    // One person's approvals of one tool, and how many of them came faster than the card's reading time.
    struct FastApprovals final
    {
        QString person; // decided_by, "console:NAME"
        QString tool;
        int fast = 0;
        int approvals = 0;
        qint64 fastestMs = 0;        // the quickest fast one, from the card's creation
        qint64 fastestReadingMs = 0; // and the reading time its card needed
    };

    struct Report final
    {
        qint64 sinceMs = 0;
        double cardMinimumSeconds = 0;
        int declined = 0;
        int denied = 0;
        // Calls no one decided in time, each outcome apart (kUnanswered).
        int expired = 0;
        int abandoned = 0;
        int timedOut = 0;
        int superseded = 0;
        QList<Count> tools;        // most declined and denied first
        QList<Count> targets;      // likewise
        QList<Reason> reasons;     // most given first
        QList<Repeat> repeats;     // same calls, then same targets, most declined first each
        QList<ToolTiming> timings; // by tool name
        QList<FastApprovals> fast; // people and tools with a fast approval, most first
        int fastTotal = 0;         // fast approvals in the period
        int approvalsTotal = 0;    // a person's approvals at a console in the period
    };

    // connectionName: a QSqlDatabase connection of this thread (Database::connectionName()).
    explicit DeclineQuery(QString connectionName);

    // Everything from sinceMs (ms since the epoch; 0 for all), the top lists and repeats cut at limit
    // rows each; reading times under cardMinimumSeconds (the configuration's).
    Result<Report> report(qint64 sinceMs, double cardMinimumSeconds, int limit = 10) const;

    // The value at the nearest rank of fraction (0 to 1] of sorted values; 0 when there are none.
    static qint64 nearestRank(const QList<qint64> &sorted, double fraction);

private:
    QString m_connectionName;
};

} // namespace Countersign

Q_DECLARE_METATYPE(Countersign::DeclineQuery::Report)
