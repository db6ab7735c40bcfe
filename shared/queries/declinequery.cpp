#include "declinequery.h"

#include "declinesql.h"
#include "plan.h"
#include "readingtime.h"
#include "storedvalue.h"

#include <QHash>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace Countersign {

namespace {

using StoredValue::column;

// The engine's own words ("no such table: operations"), without the driver's "Unable to fetch row".
QString engineMessage(const QSqlError &error)
{
    return QStringLiteral("database error: %1")
        .arg(error.databaseText().isEmpty() ? error.text() : error.databaseText());
}

// A forward-only query, executed: the caller reads it to its end.
Result<QSqlQuery> runDeclineQuery(const QString &connectionName, const char *sql,
                                  const QVariantList &bindings)
{
    QSqlQuery query(QSqlDatabase::database(connectionName, false));
    query.setForwardOnly(true);
    if (!query.prepare(QLatin1String(sql)))
        return failure(engineMessage(query.lastError()));
    for (const QVariant &value : bindings)
        query.addBindValue(value);
    if (!query.exec())
        return failure(engineMessage(query.lastError()));
    return query;
}

// Reads every row through read; an error while reading is the query's.
template <typename Read> Status eachRow(Result<QSqlQuery> query, Read read)
{
    if (!query)
        return failure(query.error());
    QSqlQuery &rows = query.value();
    const QSqlRecord record = rows.record();
    auto reader = read(record);
    while (rows.next())
        reader(rows);
    if (rows.lastError().isValid())
        return failure(engineMessage(rows.lastError()));
    return success();
}

Result<QList<DeclineQuery::Count>> counts(const QString &connectionName, const char *sql, qint64 sinceMs,
                                          int limit)
{
    QList<DeclineQuery::Count> out;
    const Status read = eachRow(runDeclineQuery(connectionName, sql, {sinceMs, limit}), [&out](
                                                                                            const QSqlRecord
                                                                                                &r) {
        return [&out, name = column(r, "name"), declined = column(r, "declined"),
                denied = column(r, "denied")](const QSqlQuery &row) {
            out.append({row.value(name).toString(), row.value(declined).toInt(), row.value(denied).toInt()});
        };
    });
    if (!read)
        return failure(read.error());
    return out;
}

DeclineQuery::Reason::Kind kindOf(const QString &name)
{
    if (name == QLatin1String("rule"))
        return DeclineQuery::Reason::Kind::Rule;
    if (name == QLatin1String("client"))
        return DeclineQuery::Reason::Kind::Client;
    return DeclineQuery::Reason::Kind::Person;
}

Status repeats(const QString &connectionName, const char *sql, DeclineQuery::Repeat::Same same,
               qint64 sinceMs, int limit, QList<DeclineQuery::Repeat> &out)
{
    return eachRow(runDeclineQuery(connectionName, sql, {sinceMs, limit}), [&out, same](const QSqlRecord &r) {
        return [&out, same, tool = column(r, "tool"), target = column(r, "target"),
                declines = column(r, "declines"), calls = column(r, "calls"), people = column(r, "people"),
                lastMs = column(r, "last_ms"), arguments = column(r, "arguments"),
                digest = column(r, "args_digest"), firstTarget = column(r, "first_target"),
                reason = column(r, "reason"), decidedBy = column(r, "decided_by")](const QSqlQuery &row) {
            DeclineQuery::Repeat repeat;
            repeat.same = same;
            repeat.tool = row.value(tool).toString();
            repeat.target = same == DeclineQuery::Repeat::Same::Target ? row.value(target).toString()
                                                                       : row.value(firstTarget).toString();
            repeat.declines = row.value(declines).toInt();
            repeat.calls = row.value(calls).toInt();
            repeat.people = row.value(people).toInt();
            repeat.lastMs = row.value(lastMs).toLongLong();
            repeat.arguments = StoredValue::parseJson(row.value(arguments));
            repeat.argsDigest = row.value(digest).toString();
            repeat.lastReason = row.value(reason).toString();
            repeat.lastDecidedBy = row.value(decidedBy).toString();
            out.append(std::move(repeat));
        };
    });
}

// Each tool's decision times, read in order of tool and time, as medians and 90th percentiles.
Result<QList<DeclineQuery::ToolTiming>> timings(const QString &connectionName, qint64 sinceMs)
{
    QList<DeclineQuery::ToolTiming> out;
    QList<qint64> times;
    const auto close = [&out, &times] {
        if (out.isEmpty())
            return;
        out.last().medianMs = DeclineQuery::nearestRank(times, 0.5);
        out.last().p90Ms = DeclineQuery::nearestRank(times, 0.9);
        times.clear();
    };
    const Status read =
        eachRow(runDeclineQuery(connectionName, DeclineSql::kDecisionTimes, {sinceMs}),
                [&out, &times, &close](const QSqlRecord &r) {
                    return [&out, &times, &close, tool = column(r, "tool"), outcome = column(r, "outcome"),
                            ms = column(r, "ms")](const QSqlQuery &row) {
                        const QString name = row.value(tool).toString();
                        if (out.isEmpty() || out.last().tool != name) {
                            close();
                            out.append({name, 0, 0, 0, 0});
                        }
                        if (row.value(outcome).toString() == QLatin1String("approved"))
                            ++out.last().approved;
                        else
                            ++out.last().declined;
                        times.append(std::max<qint64>(0, row.value(ms).toLongLong()));
                    };
                });
    if (!read)
        return failure(read.error());
    close();
    return out;
}

// The approvals made faster than their card's reading time, by person and tool.
Status fastApprovals(const QString &connectionName, qint64 sinceMs, double cardMinimumSeconds,
                     DeclineQuery::Report &report)
{
    QHash<QString, DeclineQuery::FastApprovals> byKey; // person + '\n' + tool
    const auto keyOf = [](const QString &person, const QString &tool) {
        return person + QLatin1Char('\n') + tool;
    };
    Status read = eachRow(runDeclineQuery(connectionName, DeclineSql::kApprovalsByPerson, {sinceMs}),
                          [&](const QSqlRecord &r) {
                              return [&, person = column(r, "decided_by"), tool = column(r, "tool"),
                                      approvals = column(r, "approvals")](const QSqlQuery &row) {
                                  DeclineQuery::FastApprovals entry;
                                  entry.person = row.value(person).toString();
                                  entry.tool = row.value(tool).toString();
                                  entry.approvals = row.value(approvals).toInt();
                                  report.approvalsTotal += entry.approvals;
                                  byKey.insert(keyOf(entry.person, entry.tool), entry);
                              };
                          });
    if (!read)
        return read;
    // Only approvals quicker than the longest reading time any card has are read, with their plans.
    read = eachRow(
        runDeclineQuery(connectionName, DeclineSql::kQuickApprovals,
                        {sinceMs, ReadingTime::longestMs(cardMinimumSeconds)}),
        [&](const QSqlRecord &r) {
            return [&, person = column(r, "decided_by"), tool = column(r, "tool"), ms = column(r, "ms"),
                    planAt = column(r, "plan")](const QSqlQuery &row) {
                // A plan that does not parse is read as an empty card: its minimum time still holds.
                auto parsed = Plan::fromJson(StoredValue::parseJson(row.value(planAt)));
                const qint64 reading = ReadingTime::ms(parsed ? parsed.value() : Plan(), cardMinimumSeconds);
                const qint64 took = std::max<qint64>(0, row.value(ms).toLongLong());
                if (took >= reading)
                    return;
                const QString key = keyOf(row.value(person).toString(), row.value(tool).toString());
                auto it = byKey.find(key);
                if (it == byKey.end()) // approved between the two reads
                    it = byKey.insert(key,
                                      {row.value(person).toString(), row.value(tool).toString(), 0, 0, 0, 0});
                if (it->fast == 0 || took < it->fastestMs) {
                    it->fastestMs = took;
                    it->fastestReadingMs = reading;
                }
                ++it->fast;
                it->approvals = std::max(it->approvals, it->fast);
                ++report.fastTotal;
            };
        });
    if (!read)
        return read;
    for (const DeclineQuery::FastApprovals &entry : std::as_const(byKey)) {
        if (entry.fast > 0)
            report.fast.append(entry);
    }
    std::sort(report.fast.begin(), report.fast.end(), [](const auto &a, const auto &b) {
        if (a.fast != b.fast)
            return a.fast > b.fast;
        return std::tie(a.person, a.tool) < std::tie(b.person, b.tool);
    });
    return success();
}

} // namespace

DeclineQuery::DeclineQuery(QString connectionName) : m_connectionName(std::move(connectionName)) {}

qint64 DeclineQuery::nearestRank(const QList<qint64> &sorted, double fraction)
{
    if (sorted.isEmpty())
        return 0;
    const auto rank = qsizetype(std::ceil(std::clamp(fraction, 0.0, 1.0) * double(sorted.size())));
    return sorted[std::clamp<qsizetype>(rank - 1, 0, sorted.size() - 1)];
}

Result<DeclineQuery::Report> DeclineQuery::report(qint64 sinceMs, double cardMinimumSeconds, int limit) const
{
    const bool postgres =
        QSqlDatabase::database(m_connectionName, false).driverName() == QLatin1String("QPSQL");
    Report report;
    report.sinceMs = sinceMs;
    report.cardMinimumSeconds = cardMinimumSeconds;
    const Status totals = eachRow(runDeclineQuery(m_connectionName, DeclineSql::kTotals, {sinceMs}),
                                  [&report](const QSqlRecord &r) {
                                      return [&report, declined = column(r, "declined"),
                                              denied = column(r, "denied")](const QSqlQuery &row) {
                                          report.declined = row.value(declined).toInt();
                                          report.denied = row.value(denied).toInt();
                                      };
                                  });
    if (!totals)
        return failure(totals.error());
    const Status unanswered =
        eachRow(runDeclineQuery(m_connectionName, DeclineSql::kUnanswered, {sinceMs}),
                [&report](const QSqlRecord &r) {
                    return [&report, expired = column(r, "expired"), abandoned = column(r, "abandoned"),
                            timedOut = column(r, "timed_out"),
                            superseded = column(r, "superseded")](const QSqlQuery &row) {
                        report.expired = row.value(expired).toInt();
                        report.abandoned = row.value(abandoned).toInt();
                        report.timedOut = row.value(timedOut).toInt();
                        report.superseded = row.value(superseded).toInt();
                    };
                });
    if (!unanswered)
        return failure(unanswered.error());
    auto tools = counts(m_connectionName, DeclineSql::kTools, sinceMs, limit);
    if (!tools)
        return failure(tools.error());
    report.tools = std::move(tools).value();
    auto targets = counts(m_connectionName, postgres ? DeclineSql::kPostgresTargets : DeclineSql::kTargets,
                          sinceMs, limit);
    if (!targets)
        return failure(targets.error());
    report.targets = std::move(targets).value();
    const Status reasons =
        eachRow(runDeclineQuery(m_connectionName, DeclineSql::kReasons, {sinceMs, limit}),
                [&report](const QSqlRecord &r) {
                    return [&report, kind = column(r, "kind"), text = column(r, "reason"),
                            count = column(r, "declines")](const QSqlQuery &row) {
                        report.reasons.append({kindOf(row.value(kind).toString()), row.value(text).toString(),
                                               row.value(count).toInt()});
                    };
                });
    if (!reasons)
        return failure(reasons.error());
    if (auto calls = repeats(m_connectionName, DeclineSql::kRepeatedCalls, Repeat::Same::Call, sinceMs, limit,
                             report.repeats);
        !calls)
        return failure(calls.error());
    if (auto byTarget = repeats(
            m_connectionName, postgres ? DeclineSql::kPostgresRepeatedTargets : DeclineSql::kRepeatedTargets,
            Repeat::Same::Target, sinceMs, limit, report.repeats);
        !byTarget)
        return failure(byTarget.error());
    auto perTool = timings(m_connectionName, sinceMs);
    if (!perTool)
        return failure(perTool.error());
    report.timings = std::move(perTool).value();
    if (auto fast = fastApprovals(m_connectionName, sinceMs, cardMinimumSeconds, report); !fast)
        return failure(fast.error());
    return report;
}

} // namespace Countersign
