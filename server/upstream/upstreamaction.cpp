#include "upstreamaction.h"

#include "actionspec.h"
#include "commandaction.h"
#include "commandrunner.h"
#include "tool.h"
#include "toolresult.h"
#include "upstreamlink.h"
#include "workspace.h"

#include <QDir>

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr qsizetype kMaxPlanBytes = 1024 * 1024;
constexpr qsizetype kMaxResultBytes = 1024 * 1024;

QString valueText(const json &v)
{
    return v.is_string() ? QString::fromStdString(v.get<std::string>())
                         : QString::fromStdString(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

// A dry run's output without the Markdown fence some servers wrap a diff in.
QString unfenced(QString text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.startsWith(QLatin1String("```")) && trimmed.endsWith(QLatin1String("```")) &&
        trimmed.size() > 6) {
        const qsizetype firstLine = trimmed.indexOf(QLatin1Char('\n'));
        if (firstLine > 0)
            return trimmed.mid(firstLine + 1, trimmed.size() - firstLine - 1 - 3).trimmed() +
                   QLatin1Char('\n');
    }
    return text;
}

} // namespace

UpstreamAction::UpstreamAction(UpstreamLink *link, const UpstreamSpec &spec, json tool,
                               UpstreamTrust::Standing standing, CommandRunner &runner)
    : m_link(link), m_upstream(spec.name), m_tool(QString::fromStdString(tool.value("name", std::string()))),
      m_descriptor(std::move(tool)), m_standing(std::move(standing)),
      m_cwd(spec.cwd.isEmpty() ? QDir::homePath() : spec.cwd), m_timeoutMs(spec.timeoutSeconds * 1000),
      m_runner(runner)
{
    m_name = spec.prefix + m_tool;
    m_settings = spec.settingsOf(m_tool);
}

bool UpstreamAction::destructive() const
{
    return m_standing.destructive;
}

json UpstreamAction::capped(json result, const QString &upstream)
{
    // Stored with the claim and kept in the audit log: an upstream's result is held to what a
    // workspace read may return. Text is cut, other blocks and structured content dropped, and said.
    const std::size_t size = result.dump(-1, ' ', false, json::error_handler_t::replace).size();
    if (size <= std::size_t(kMaxResultBytes))
        return result;
    json kept = json::array();
    qsizetype budget = kMaxResultBytes - 1024;
    for (const json &block : result["content"]) {
        if (budget <= 0)
            break;
        if (!block.is_object() || block.value("type", json()) != "text" ||
            !block.value("text", json()).is_string())
            continue;
        const std::string &text = block["text"].get_ref<const std::string &>();
        QString cut = QString::fromStdString(text.substr(0, std::size_t(budget)));
        if (!cut.isEmpty() && cut.back().isHighSurrogate())
            cut.chop(1);
        budget -= qsizetype(text.size());
        kept.push_back({{"type", "text"}, {"text", cut.toStdString()}});
    }
    kept.push_back(
        {{"type", "text"},
         {"text", QStringLiteral("[Countersign: the result of upstream %1 was %2 bytes; it was cut to %3 "
                                 "bytes, keeping text only]")
                      .arg(upstream)
                      .arg(size)
                      .arg(kMaxResultBytes)
                      .toStdString()}});
    json out = {{"content", std::move(kept)}};
    if (ToolResult::failed(result))
        out["isError"] = true;
    return out;
}

int UpstreamAction::stripOurFields(json &answer)
{
    static const std::string ours = "dev.countersign/";
    int removed = 0;
    std::vector<json *> todo{&answer};
    while (!todo.empty()) {
        json *node = todo.back();
        todo.pop_back();
        if (node->is_object()) {
            for (auto it = node->begin(); it != node->end();) {
                if (it.key().compare(0, ours.size(), ours) == 0) {
                    it = node->erase(it);
                    ++removed;
                } else {
                    todo.push_back(&it.value());
                    ++it;
                }
            }
        } else if (node->is_array()) {
            for (json &element : *node)
                todo.push_back(&element);
        }
    }
    return removed;
}

json UpstreamAction::descriptor() const
{
    json d = m_descriptor;
    d["name"] = m_name.toStdString();
    const std::string description =
        d.value("description", json()).is_string() ? d["description"].get<std::string>() : "";
    d["description"] =
        description + (description.empty() ? "" : "\n\n") + "(Served by Countersign from upstream \"" +
        m_upstream.toStdString() +
        "\": calls that change something wait for a human's approval in the Countersign window.)";
    // Countersign's own answers (input_required, "still pending", refusals) carry no structured
    // content, which a client would hold against a declared outputSchema.
    d.erase("outputSchema");
    d.erase("execution");
    // What clients are told of it is what Countersign takes it to be (UpstreamTrust), not what the
    // upstream claims while that waits for the human; nothing in Countersign's namespace.
    json annotations = d.value("annotations", json::object());
    if (!annotations.is_object())
        annotations = json::object();
    annotations["readOnlyHint"] = m_standing.readOnly;
    annotations["destructiveHint"] = m_standing.destructive;
    d["annotations"] = std::move(annotations);
    stripOurFields(d);
    return d;
}

Verdict UpstreamAction::defaultVerdict(const json &arguments) const
{
    Q_UNUSED(arguments)
    return defaultFor(m_standing, m_settings);
}

Verdict UpstreamAction::defaultFor(const json &tool, const UpstreamToolSettings &settings)
{
    return defaultFor(UpstreamTrust::claimed(tool), settings);
}

PathSpellings UpstreamAction::pathSpellings(const json &arguments) const
{
    PathSpellings paths;
    for (const QString &target : m_settings.targets) {
        const auto value = arguments.find(target.toStdString());
        if (value == arguments.end() || !value->is_string())
            continue;
        const QString path = QString::fromStdString(value->get<std::string>());
        if (!path.startsWith(QLatin1Char('/')))
            continue;
        paths[target] = Workspace::spellings(m_workspace.get(), path);
    }
    return paths;
}

Verdict UpstreamAction::defaultFor(const UpstreamTrust::Standing &standing,
                                   const UpstreamToolSettings &settings)
{
    if (settings.decision)
        return *settings.decision;
    return standing.readOnly ? Verdict::Allow : Verdict::Ask;
}

QString UpstreamAction::sourceOf(const QString &upstream, const UpstreamTrust::Standing &standing,
                                 const UpstreamToolSettings &settings)
{
    if (settings.decision)
        return QStringLiteral("the configuration's setting for this tool of upstream %1").arg(upstream);
    if (!standing.held.isEmpty())
        return standing.held;
    return standing.readOnly ? QStringLiteral("upstream %1 says readOnlyHint").arg(upstream)
                             : QStringLiteral("upstream %1 does not say readOnlyHint").arg(upstream);
}

QString UpstreamAction::resultText(const json &result)
{
    QStringList parts;
    const json content = result.value("content", json::array());
    if (content.is_array()) {
        for (const json &block : content) {
            if (!block.is_object())
                continue;
            if (block.value("type", json()) == "text" && block.value("text", json()).is_string())
                parts.append(QString::fromStdString(block["text"].get<std::string>()));
            else
                parts.append(
                    QStringLiteral("[%1 content]").arg(valueText(block.value("type", json("unknown")))));
        }
    }
    return parts.join(QLatin1Char('\n'));
}

QString UpstreamAction::argumentsText(const json &arguments)
{
    QString text;
    if (!arguments.is_object())
        return valueText(arguments);
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
        const QString name = QString::fromStdString(it.key());
        const json &v = it.value();
        const QString value =
            v.is_string() ? QString::fromStdString(v.get<std::string>())
                          : QString::fromStdString(v.dump(2, ' ', false, json::error_handler_t::replace));
        if (value.contains(QLatin1Char('\n')) || value.size() > 80)
            text += QStringLiteral("%1:\n%2\n\n").arg(name, value);
        else
            text += QStringLiteral("%1: %2\n").arg(name, value);
    }
    return text;
}

Plan UpstreamAction::basePlan(const json &arguments) const
{
    Plan plan;
    for (const QString &argument : m_settings.targets) {
        const auto v = arguments.find(argument.toStdString());
        if (v == arguments.end())
            continue;
        if (v->is_array()) {
            for (const json &e : *v)
                plan.targets.append(valueText(e));
        } else {
            plan.targets.append(valueText(*v));
        }
    }
    plan.risk = m_settings.risk ? *m_settings.risk : destructive() ? Risk::High : Risk::Medium;
    plan.title =
        plan.targets.isEmpty()
            ? QStringLiteral("%1: %2").arg(m_upstream, m_tool)
            : QStringLiteral("%1: %2 %3").arg(m_upstream, m_tool, plan.targets.join(QStringLiteral(", ")));
    const QString description = m_descriptor.value("description", json()).is_string()
                                    ? QString::fromStdString(m_descriptor["description"].get<std::string>())
                                          .section(QLatin1Char('\n'), 0, 0)
                                    : QString();
    plan.prompt = QStringLiteral("Call %1 on upstream \"%2\"?").arg(m_tool, m_upstream) +
                  (description.isEmpty() ? QString() : QLatin1Char('\n') + description.left(300));
    plan.blastRadius = {{"irreversible", destructive()}};
    return plan;
}

void UpstreamAction::plan(const json &arguments, PlanDone done)
{
    Plan plan = basePlan(arguments);
    if (!m_settings.planWith.is_null()) {
        if (!m_link)
            return done(failure(QStringLiteral("upstream %1 is gone").arg(m_upstream)));
        // A planWith argument the tool does not take would be ignored by it: the "dry run" would
        // then be the real call, made before anyone decided.
        const json &properties = m_descriptor["inputSchema"].value("properties", json::object());
        for (auto it = m_settings.planWith.begin(); it != m_settings.planWith.end(); ++it) {
            if (!properties.is_object() || !properties.contains(it.key()))
                return done(
                    failure(QStringLiteral("the configured planWith argument \"%1\" is not one %2 takes "
                                           "(its inputSchema): no dry run is made, and nothing runs")
                                .arg(QString::fromStdString(it.key()), m_tool)));
        }
        json dryRun = arguments;
        dryRun.update(m_settings.planWith);
        // Said on the card: the plan is the upstream's own word, from a call made before the decision.
        plan.prompt +=
            QStringLiteral("\nThe plan below is upstream %1's own answer to a dry run (%2 called with its "
                           "planWith arguments before your decision), not what Countersign measured.")
                .arg(m_upstream, m_tool);
        m_link->request(
            QStringLiteral("tools/call"), {{"name", m_tool.toStdString()}, {"arguments", dryRun}},
            m_timeoutMs, [plan, done = std::move(done)](const UpstreamLink::Outcome &outcome) mutable {
                if (outcome.kind != UpstreamLink::Outcome::Kind::Answered)
                    return done(
                        failure(QStringLiteral("the dry run (planWith) failed: %1").arg(outcome.text)));
                const QString text = resultText(outcome.result);
                if (ToolResult::failed(outcome.result))
                    return done(
                        failure(QStringLiteral("the dry run (planWith) failed: %1").arg(text.left(2000))));
                if (text.size() > kMaxPlanBytes)
                    return done(
                        failure(QStringLiteral("the dry run printed more than %1 bytes").arg(kMaxPlanBytes)));
                plan.diff = unfenced(text);
                done(std::move(plan));
            });
        return;
    }
    if (!m_settings.plan.isEmpty()) {
        auto argv = ActionSpec::fillArgv(m_settings.plan, arguments);
        if (!argv)
            return done(failure(argv.error()));
        CommandAction::runPlan(m_runner, argv.value(), m_cwd, m_timeoutMs,
                               [plan, done = std::move(done)](Result<QByteArray> out) mutable {
                                   if (!out)
                                       return done(failure(out.error()));
                                   plan.diff = QString::fromUtf8(out.value());
                                   done(std::move(plan));
                               });
        return;
    }
    plan.diff = argumentsText(arguments);
    done(std::move(plan));
}

void UpstreamAction::apply(const json &arguments, ApplyDone done)
{
    if (!m_link)
        return done(textResult(
            QStringLiteral("Not run: upstream %1 is no longer configured.").arg(m_upstream), true));
    const QString upstream = m_upstream;
    m_link->request(
        QStringLiteral("tools/call"), {{"name", m_tool.toStdString()}, {"arguments", arguments}}, m_timeoutMs,
        [upstream, done = std::move(done)](const UpstreamLink::Outcome &outcome) {
            using Kind = UpstreamLink::Outcome::Kind;
            switch (outcome.kind) {
            case Kind::Answered: {
                const json &r = outcome.result;
                if (r.value("resultType", json("complete")) == json("input_required"))
                    return done(textResult(
                        QStringLiteral("Not run: upstream %1 asked for more input, which Countersign "
                                       "does not relay.")
                            .arg(upstream),
                        true));
                json result = {{"content", r.value("content", json::array())}};
                if (!result["content"].is_array())
                    result["content"] = json::array();
                if (r.contains("structuredContent"))
                    result["structuredContent"] = r["structuredContent"];
                if (ToolResult::failed(r))
                    result["isError"] = true;
                if (const int removed = stripOurFields(result); removed > 0)
                    result["content"].push_back(
                        {{"type", "text"},
                         {"text",
                          QStringLiteral("[Countersign: removed %1 field(s) in Countersign's own namespace "
                                         "(dev.countersign/) from the result of upstream %2; only "
                                         "Countersign writes those]")
                              .arg(removed)
                              .arg(upstream)
                              .toStdString()}});
                return done(capped(std::move(result), upstream));
            }
            case Kind::Refused:
                return done(textResult(
                    QStringLiteral("Upstream %1 refused the call: %2").arg(upstream, outcome.text), true));
            case Kind::NotSent:
                return done(textResult(QStringLiteral("Not run: %1.").arg(outcome.text), true));
            case Kind::Lost:
                break;
            }
            done(textResult(
                QStringLiteral("Outcome unknown: %1. The call reached the upstream, which may have acted; "
                               "Countersign does not call it again. Check its effect before asking again.")
                    .arg(outcome.text),
                true));
        });
}

} // namespace Countersign
