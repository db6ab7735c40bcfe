#include "grant.h"

#include "operation.h"

#include <QDir>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace Countersign {

namespace {

using nlohmann::json;

QString grantField(const json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

std::optional<QStringList> argvOf(const json &arguments)
{
    const auto argv = arguments.is_object() ? arguments.find("argv") : arguments.end();
    if (!arguments.is_object() || argv == arguments.end() || !argv->is_array() || argv->empty())
        return std::nullopt;
    QStringList words;
    for (const json &w : *argv) {
        if (!w.is_string())
            return std::nullopt;
        words.append(QString::fromStdString(w.get<std::string>()));
    }
    return words;
}

QString newId()
{
    QString id;
    for (int i = 0; i < 2; ++i)
        id += QStringLiteral("%1").arg(QRandomGenerator::system()->generate(), 8, 16, QLatin1Char('0'));
    return id;
}

// What an agent's shell call holds beside its line (the agent, its tool, the folder and its options:
// Claude Code's dangerouslyDisableSandbox, run_in_background): a Command grant covers these exactly.
QString othersOf(json arguments)
{
    if (!arguments.is_object())
        return {};
    arguments.erase("command");
    arguments.erase("argv");
    return QString::fromStdString(arguments.dump(-1, ' ', true, json::error_handler_t::replace));
}

// An absolute path spelled once: no "." or ".." part, no doubled or trailing "/".
bool plainAbsolute(const QString &path)
{
    return path.startsWith(QLatin1Char('/')) && path.size() > 1 && QDir::cleanPath(path) == path;
}

QString compactCall(const json &arguments)
{
    QString text = QString::fromStdString(arguments.dump(-1, ' ', false, json::error_handler_t::replace));
    return text.size() > 200 ? text.left(200) + QStringLiteral("…") : text;
}

// The agent's text as one bounded line: a line break in a folder's name cannot write a sentence of
// its own into the grant's words.
QString oneLine(QString text)
{
    for (QChar &c : text) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
            c == QChar::ParagraphSeparator)
            c = QChar(0x23CE); // ⏎
    }
    return text.size() > 300 ? text.left(300) + QStringLiteral("…") : text;
}

} // namespace

QString grantScopeName(Grant::Scope scope)
{
    switch (scope) {
    case Grant::Scope::Call:
        return QStringLiteral("call");
    case Grant::Scope::Command:
        return QStringLiteral("command");
    case Grant::Scope::File:
        return QStringLiteral("file");
    case Grant::Scope::Tool:
        return QStringLiteral("tool");
    }
    return {};
}

bool Grant::runsWhatFollows(const QString &program)
{
    static const QSet<QString> wrappers = {
        QStringLiteral("sh"),      QStringLiteral("bash"),    QStringLiteral("zsh"),
        QStringLiteral("dash"),    QStringLiteral("fish"),    QStringLiteral("ksh"),
        QStringLiteral("env"),     QStringLiteral("sudo"),    QStringLiteral("doas"),
        QStringLiteral("su"),      QStringLiteral("xargs"),   QStringLiteral("nohup"),
        QStringLiteral("timeout"), QStringLiteral("nice"),    QStringLiteral("time"),
        QStringLiteral("command"), QStringLiteral("exec"),    QStringLiteral("eval"),
        QStringLiteral("busybox"), QStringLiteral("python"),  QStringLiteral("python3"),
        QStringLiteral("node"),    QStringLiteral("deno"),    QStringLiteral("bun"),
        QStringLiteral("ruby"),    QStringLiteral("perl"),    QStringLiteral("php"),
        QStringLiteral("npx"),     QStringLiteral("bunx"),    QStringLiteral("pnpx"),
        QStringLiteral("uvx"),     QStringLiteral("pipx"),    QStringLiteral("java"),
        QStringLiteral("docker"),  QStringLiteral("podman"),  QStringLiteral("ssh"),
        QStringLiteral("watch"),   QStringLiteral("find"),    QStringLiteral("make"),
        QStringLiteral("awk"),     QStringLiteral("git"),     QStringLiteral("strace"),
        QStringLiteral("chroot"),  QStringLiteral("unshare"), QStringLiteral("stdbuf"),
        QStringLiteral("setsid"),  QStringLiteral("flock"),   QStringLiteral("ionice"),
    };
    const QString name = program.section(QLatin1Char('/'), -1);
    static const QRegularExpression versioned(QStringLiteral("^(python|ruby|perl|php|node)[0-9.]*$"));
    return wrappers.contains(name) || versioned.match(name).hasMatch();
}

bool Grant::runsChangedCode(const Plan &plan)
{
    const auto asks = plan.blastRadius.is_object() ? plan.blastRadius.find("asks") : plan.blastRadius.end();
    if (!plan.blastRadius.is_object() || asks == plan.blastRadius.end() || !asks->is_array())
        return false;
    for (const json &reason : *asks) {
        const QString text =
            reason.is_string() ? QString::fromStdString(reason.get<std::string>()) : QString();
        // Every reason the judge gives for not vouching for what a line runs (CommandJudge's
        // scriptRefusal, ProjectJudge's refusals): a program or script outside the roots, not yet a
        // file, named only when the line runs, written or changed by the agent, makefiles it does
        // not read whole, an install nothing pins. Found missing by the second review.
        static const char *const kUnvouched[] = {
            "may have written",           "changed since the last commit",     "only when the line runs",
            "which is not a file yet",    "more files than Countersign reads", "would pin what it installs",
            "outside the workspace roots"};
        for (const char *phrase : kUnvouched) {
            if (text.contains(QLatin1String(phrase)))
                return true;
        }
    }
    return false;
}

QList<Grant> Grant::offersFor(const Operation &op, Verdict verdict)
{
    Grant base;
    base.verdict = verdict;
    base.principal = op.principal;
    base.tool = op.tool;
    QList<Grant> offers;
    const bool shell = op.tool == QLatin1String("agent:shell");
    const bool agentTool = op.tool.startsWith(QLatin1String("agent:"));
    const QString cwd = grantField(op.arguments, "cwd");

    Grant call = base;
    call.scope = Scope::Call;
    call.argsDigest = op.argsDigest;
    call.example = oneLine(shell ? QStringLiteral("%1 (in %2)").arg(grantField(op.arguments, "command"), cwd)
                           : agentTool ? grantField(op.arguments, "path")
                                       : QStringLiteral("%1 %2").arg(op.tool, compactCall(op.arguments)));
    offers.append(call);

    if (shell && plainAbsolute(cwd)) {
        if (const auto argv = argvOf(op.arguments); argv && !runsWhatFollows(argv->first())) {
            // The subcommand: the leading words that name what runs, before its options and paths.
            static const QRegularExpression word(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_:-]*$"));
            QStringList prefix;
            for (const QString &w : *argv) {
                if (prefix.size() == 3 || !word.match(w).hasMatch())
                    break;
                prefix.append(w);
            }
            // A subcommand that runs what follows it (npm exec, npx's x, dlx, uv run, bundle exec,
            // kubectl exec): the words after it are a program, not arguments. A package manager's
            // run names a script of the project's own file, which is kept as a word of the grant.
            static const QStringList runners = {
                QStringLiteral("exec"),  QStringLiteral("x"),    QStringLiteral("dlx"),
                QStringLiteral("run"),   QStringLiteral("runx"), QStringLiteral("tool"),
                QStringLiteral("shell"), QStringLiteral("eval"), QStringLiteral("create"),
                QStringLiteral("init"),  QStringLiteral("do"),   QStringLiteral("start"),
                QStringLiteral("debug")};
            static const QStringList scriptRunners = {QStringLiteral("npm"), QStringLiteral("pnpm"),
                                                      QStringLiteral("yarn"), QStringLiteral("bun")};
            const bool scriptRun = prefix.size() == 3 && prefix.at(1) == QLatin1String("run") &&
                                   scriptRunners.contains(prefix.first());
            const bool runsNext = std::any_of(prefix.cbegin() + 1, prefix.cend(),
                                              [](const QString &w) { return runners.contains(w); });
            if (prefix.size() >= 2 && (!runsNext || scriptRun)) {
                Grant command = base;
                command.scope = Scope::Command;
                command.words = prefix;
                command.folder = cwd;
                command.others = othersOf(op.arguments);
                command.example = call.example;
                offers.append(command);
            }
        }
    }
    const QString path = grantField(op.arguments, "path");
    if (agentTool && !shell && plainAbsolute(path)) {
        Grant file = base;
        file.scope = Scope::File;
        file.path = path;
        file.example = path;
        offers.append(file);
    }
    if (!agentTool) {
        Grant tool = base;
        tool.scope = Scope::Tool;
        tool.example = call.example;
        offers.append(tool);
    }
    for (Grant &g : offers)
        g.id = newId();
    return offers;
}

bool Grant::covers(const QString &toolName, const QString &principalName, const json &arguments,
                   const QString &digest, const QString &agentSession) const
{
    if (toolName != tool || principalName != principal || (!session.isEmpty() && agentSession != session))
        return false;
    switch (scope) {
    case Scope::Call:
        return !argsDigest.isEmpty() && digest == argsDigest;
    case Scope::Command: {
        const auto argv = argvOf(arguments);
        if (!argv || argv->size() < words.size() || words.size() < 2 ||
            grantField(arguments, "cwd") != folder || others.isEmpty() || othersOf(arguments) != others)
            return false;
        for (qsizetype i = 0; i < words.size(); ++i) {
            if (argv->at(i) != words.at(i))
                return false;
        }
        return true;
    }
    case Scope::File: {
        if (grantField(arguments, "path") != path || !plainAbsolute(path))
            return false;
        // Never through a link: not the file, not a folder above it (swapped in since the grant).
        const QFileInfo file(path);
        const QString parent = file.absolutePath();
        return !file.isSymLink() && QFileInfo(parent).canonicalFilePath() == parent;
    }
    case Scope::Tool:
        return !tool.startsWith(QLatin1String("agent:"));
    }
    return false;
}

QString Grant::describe() const
{
    const QString who =
        QStringLiteral(" for connection \"%1\"%2")
            .arg(principal,
                 session.isEmpty()
                     ? QString()
                     : QStringLiteral(" in this agent session only (%1)").arg(oneLine(session).left(40)));
    switch (scope) {
    case Scope::Call:
        return QStringLiteral("exactly this call: %1%2").arg(example, who);
    case Scope::Command:
        return QStringLiteral("\"%1\" with any further arguments, in %2%3")
            .arg(words.join(QLatin1Char(' ')), oneLine(folder), who);
    case Scope::File:
        return QStringLiteral("%1 on %2 (never through a link)%3").arg(tool, oneLine(path), who);
    case Scope::Tool:
        return QStringLiteral("%1 with any arguments%2").arg(tool, who);
    }
    return {};
}

QString Grant::beyond() const
{
    switch (scope) {
    case Scope::Call:
        return {};
    case Scope::Command:
        return QStringLiteral("also \"%1 ...\" with other arguments, options and paths (in %2)")
            .arg(words.join(QLatin1Char(' ')), folder);
    case Scope::File:
        return QStringLiteral("also any other content written to %1").arg(path);
    case Scope::Tool:
        return QStringLiteral("also %1 with any other arguments").arg(tool);
    }
    return {};
}

QString Grant::ruleText() const
{
    return QStringLiteral("grant %1 (%2 from now on): %3")
        .arg(id, verdict == Verdict::Allow ? QStringLiteral("allow") : QStringLiteral("deny"), describe());
}

json Grant::toJson() const
{
    json words_ = json::array();
    for (const QString &w : words)
        words_.push_back(w.toStdString());
    json out = {{"id", id.toStdString()},
                {"verdict", verdict == Verdict::Allow ? "allow" : "deny"},
                {"scope", grantScopeName(scope).toStdString()},
                {"principal", principal.toStdString()},
                {"tool", tool.toStdString()},
                {"argsDigest", argsDigest.toStdString()},
                {"words", words_},
                {"folder", folder.toStdString()},
                {"others", others.toStdString()},
                {"path", path.toStdString()},
                {"example", example.toStdString()},
                {"createdMs", createdMs},
                {"expiresMs", expiresMs},
                {"by", by.toStdString()}};
    if (!session.isEmpty()) // absent when empty: grants signed before sessions verify as they were
        out["session"] = session.toStdString();
    return out;
}

Result<Grant> Grant::fromJson(const json &value)
{
    if (!value.is_object())
        return failure(QStringLiteral("a grant must be an object"));
    Grant g;
    g.id = grantField(value, "id");
    static const QRegularExpression hexId(QStringLiteral("^[0-9a-f]{16}$"));
    if (!hexId.match(g.id).hasMatch())
        return failure(QStringLiteral("a grant's id must be 16 hex characters"));
    const QString verdict = grantField(value, "verdict");
    if (verdict != QLatin1String("allow") && verdict != QLatin1String("deny"))
        return failure(QStringLiteral("grant %1: verdict must be allow or deny").arg(g.id));
    g.verdict = verdict == QLatin1String("allow") ? Verdict::Allow : Verdict::Deny;
    const QString scope = grantField(value, "scope");
    bool known = false;
    for (Scope s : {Scope::Call, Scope::Command, Scope::File, Scope::Tool}) {
        if (grantScopeName(s) == scope) {
            g.scope = s;
            known = true;
        }
    }
    if (!known)
        return failure(QStringLiteral("grant %1: unknown scope \"%2\"").arg(g.id, scope));
    g.principal = grantField(value, "principal");
    g.tool = grantField(value, "tool");
    g.argsDigest = grantField(value, "argsDigest");
    g.folder = grantField(value, "folder");
    g.others = grantField(value, "others");
    g.path = grantField(value, "path");
    g.example = grantField(value, "example");
    g.by = grantField(value, "by");
    g.session = grantField(value, "session");
    for (const json &w : value.value("words", json::array())) {
        if (w.is_string())
            g.words.append(QString::fromStdString(w.get<std::string>()));
    }
    const auto integer = [&value](const char *key) {
        const auto it = value.find(key);
        return it != value.end() && it->is_number_integer() ? it->get<qint64>() : qint64(-1);
    };
    g.createdMs = integer("createdMs");
    g.expiresMs = integer("expiresMs");
    if (g.principal.isEmpty() || g.tool.isEmpty() || g.createdMs < 0 || g.expiresMs < 0)
        return failure(QStringLiteral("grant %1: principal, tool and times are required").arg(g.id));
    return g;
}

} // namespace Countersign
