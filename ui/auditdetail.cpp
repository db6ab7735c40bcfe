#include "auditdetail.h"

#include "auditmodel.h"
#include "auditstore.h"
#include "blastradiustext.h"
#include "riskstyle.h"
#include "toolresult.h"
#include "visibletext.h"

#include <QCoreApplication>
#include <QDateTime>

namespace Countersign::AuditDetail {

namespace {

// The audit view's words (the translation context they had when this page was its own).
QString tr(const char *text)
{
    return QCoreApplication::translate("Countersign::AuditView", text);
}

// Text from the store (the agent's, the plan command's) for the detail pane's markup.
QString html(const QString &text)
{
    return visibleText(text).toHtmlEscaped();
}

QString when(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

// The facts of an operation as a table: a label, then its lines, each escaped.
QString factRow(const QString &label, const QStringList &lines)
{
    QStringList escaped;
    for (const QString &line : lines)
        escaped.append(html(line));
    return QStringLiteral("<tr><td style=\"padding: 1px 12px 1px 0\"><b>%1</b></td><td style=\"padding: 1px "
                          "0\">%2</td></tr>")
        .arg(label, escaped.join(QStringLiteral("<br>")));
}

QString preformatted(const QString &label, const QString &text)
{
    return QStringLiteral("<p><b>%1</b></p><pre>%2</pre>").arg(label, html(text));
}

constexpr int kTargetsShown = 200;

} // namespace

QString page(AuditStore &store, const Operation &o)
{
    const Plan &plan = o.plan;
    QString page = QStringLiteral("<h3>%1</h3>").arg(html(plan.title.isEmpty() ? o.tool : plan.title));
    const QString client = o.clientName().isEmpty() ? tr("An unnamed client") : o.clientName();
    page += QStringLiteral("<p>%1</p>")
                .arg(html(tr("%1 asked through connection \"%2\" to run %3, at %4")
                              .arg(client, o.principal, o.tool, when(o.createdMs))));

    // What became of it, first (the decision and the run), then what the card showed: the risk,
    // the rule, the prompt, the summary where it says more, the targets and the blast radius.
    QString facts;
    QString decided;
    if (auto decision = store.decision(o.nonce); decision && decision.value()) {
        const Decision &d = *decision.value();
        decided = tr("%1 by %2 at %3").arg(statusName(d.outcome), d.by, when(d.atMs));
        if (!d.reason.isEmpty())
            decided += QStringLiteral(" — ") + d.reason;
    } else if (o.status == Operation::Status::Pending) {
        decided = tr("waiting for a decision");
    } else {
        decided = AuditModel::decisionWords(statusName(o.status));
    }
    facts += factRow(tr("Decision"), {decided});
    // Whether a human saw the card, for sure, and where first (a call a rule settled had none).
    if (o.status != Operation::Status::Allowed && o.status != Operation::Status::Denied) {
        auto seen = store.eventsOf(o.nonce, QStringLiteral("card-seen"));
        if (seen && !seen.value().isEmpty()) {
            const nlohmann::json &first = seen.value().first();
            const std::string where = first.value("where", nlohmann::json("")).is_string()
                                          ? first.value("where", std::string())
                                          : "";
            facts += factRow(tr("Seen"),
                             {tr("first at %1, %2")
                                  .arg(when(first.value("seenMs", nlohmann::json(0)).is_number_integer()
                                                ? first.value("seenMs", nlohmann::json(0)).get<qint64>()
                                                : 0),
                                       where == "window" ? tr("in the window")
                                                         : tr("on %1").arg(QString::fromStdString(where)))});
        } else if (seen) {
            facts += factRow(
                tr("Seen"),
                {o.status == Operation::Status::Pending ? tr("not yet") : tr("never: no one saw the card")});
        }
    }
    QString result, receipt;
    auto claim = store.claimOf(o.nonce);
    if (claim && claim.value()) {
        const Claim &c = *claim.value();
        if (!c.finishedMs) {
            facts +=
                factRow(tr("Outcome"),
                        {tr("unknown: the run was claimed at %1 and no end is recorded; it is still running, "
                            "or Countersign stopped during it and it may or may not have run (it is never "
                            "run again)")
                             .arg(when(c.claimedMs))});
        } else {
            const bool failed = ToolResult::failed(c.result);
            facts +=
                factRow(tr("Outcome"),
                        {(failed ? tr("failed, at %1") : tr("succeeded, at %1")).arg(when(c.finishedMs))});
            const auto meta = c.result.value("_meta", nlohmann::json::object());
            if (meta.is_object() && meta.contains("dev.countersign/receipt"))
                receipt = QString::fromStdString(meta["dev.countersign/receipt"].dump(
                    2, ' ', false, nlohmann::json::error_handler_t::replace));
            const auto content = c.result.value("content", nlohmann::json::array());
            if (content.is_array() && !content.empty() && content[0].is_object() &&
                content[0].contains("text") && content[0]["text"].is_string())
                result = QString::fromStdString(content[0]["text"].get<std::string>()).left(20'000);
        }
    } else {
        facts +=
            factRow(tr("Outcome"), {o.status == Operation::Status::Pending ? tr("waiting; nothing has run")
                                                                           : tr("not run")});
    }
    facts += factRow(tr("Risk"), {RiskStyle::words(plan.risk, plan.isIrreversible())});
    facts += factRow(tr("Rule"), {o.rule.isEmpty() ? tr("(none)") : o.rule});
    if (!plan.prompt.isEmpty())
        facts += factRow(tr("Prompt"), plan.prompt.split(QLatin1Char('\n')));
    if (!plan.summary.isEmpty() && !plan.prompt.contains(plan.summary))
        facts += factRow(tr("Summary"), plan.summary.split(QLatin1Char('\n')));
    QStringList targets = plan.targets;
    targets.sort();
    if (targets.size() > kTargetsShown) {
        const qsizetype more = targets.size() - kTargetsShown;
        targets = targets.mid(0, kTargetsShown);
        targets.append(tr("… and %1 more").arg(QLocale().toString(more)));
    }
    facts += factRow(tr("Targets"), targets.isEmpty() ? QStringList{tr("(none named)")} : targets);
    facts += factRow(tr("Blast radius"), BlastRadiusText::text(plan.blastRadius).split(QLatin1Char('\n')));
    page += QStringLiteral("<table cellspacing=\"0\">%1</table>").arg(facts);

    if (!result.isEmpty())
        page += preformatted(tr("Result"), result);
    if (!receipt.isEmpty())
        page += preformatted(tr("Receipt"), receipt);
    if (!plan.diff.isEmpty())
        page += preformatted(tr("Plan"), plan.diff.left(200'000));
    page += preformatted(tr("Arguments"), QString::fromStdString(o.arguments.dump(
                                              2, ' ', false, nlohmann::json::error_handler_t::replace)));
    page += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Id:"), html(o.nonce));
    return page;
}

} // namespace Countersign::AuditDetail
