#include "clientcheck.h"

#include "hookclients.h"
#include "mcpentries.h"

#include <nlohmann/json.hpp>

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QVersionNumber>

#include <algorithm>
#include <optional>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace Countersign {

namespace {

using json = nlohmann::json;

// The client's program, as the one list of agents describes it (hookclients.h); null for a name
// not in it.
const HookClientSpec *programOf(const QString &client)
{
    const auto named = hookClientNamed(client.toStdString());
    return named ? &hookClientSpec(*named) : nullptr;
}

// A field of that list, as Qt text.
QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

QProcessEnvironment environmentFor(const HookInstaller::Place &place)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), place.home);
    if (!place.codexHome.isEmpty())
        env.insert(QStringLiteral("CODEX_HOME"), place.codexHome);
    return env;
}

// What a program prints, within a time limit (nothing when it does not start or finish).
QByteArray outputOf(const QString &program, const QStringList &arguments, const HookInstaller::Place &place,
                    const QByteArray &input = {}, int waitMs = 20'000)
{
    QProcess p;
    p.setProcessEnvironment(environmentFor(place));
    p.setWorkingDirectory(place.home);
    // A group of its own: whatever it starts is ended with it.
    p.setChildProcessModifier([] { ::setpgid(0, 0); });
    p.start(program, arguments);
    if (!p.waitForStarted(5000))
        return {};
    const qint64 group = p.processId();
    p.write(input);
    if (input.isEmpty())
        p.closeWriteChannel();
    QByteArray out;
    QDeadlineTimer deadline(waitMs);
    // app-server stays up until its stdin closes: read until the answer to request 2 is in.
    while (!deadline.hasExpired()) {
        if (p.waitForReadyRead(int(std::max<qint64>(deadline.remainingTime(), 1))))
            out += p.readAllStandardOutput();
        else if (p.state() == QProcess::NotRunning)
            break;
        if (const qsizetype at = out.indexOf("\"id\":2,");
            !input.isEmpty() && at >= 0 && out.indexOf('\n', at) > 0)
            break; // the whole line of the answer is in
    }
    out += p.readAllStandardOutput();
    p.closeWriteChannel();
    if (!p.waitForFinished(2000)) {
        p.kill();
        p.waitForFinished(2000);
    }
    if (group > 1)                      // never 0: that would be this program's own group
        ::kill(pid_t(-group), SIGKILL); // and what it left running (a child in the background)
    return out;
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A member as text ("" when it is missing or not text): what an agent prints is read without trust.
std::string textOf(const json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Countersign's hooks as `codex app-server` lists them for its hooks file (none when it did not
// answer): how many there are, how many it runs (enabled and trusted by hash), how many are disabled.
struct CodexHooks final
{
    int all = 0;
    int running = 0;
    int disabled = 0;
};
std::optional<CodexHooks> codexHooks(const QString &program, const QString &hooksFile,
                                     const HookInstaller::Place &place)
{
    const QByteArray requests =
        "{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"countersign\","
        "\"version\":\"1\"}}}\n"
        "{\"method\":\"initialized\"}\n{\"id\":2,\"method\":\"hooks/list\",\"params\":{}}\n";
    const QByteArray out = outputOf(program, {QStringLiteral("app-server")}, place, requests);
    for (const QByteArray &line : out.split('\n')) {
        const json message = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (!message.is_object() || message.value("id", json()) != json(2))
            continue;
        const json result = message.value("result", json());
        if (!result.is_object() || !result.value("data", json()).is_array())
            return std::nullopt; // an error: nothing is known
        CodexHooks found;
        for (const json &scope : result.at("data")) {
            const json hooks = scope.is_object() ? scope.value("hooks", json()) : json();
            if (!hooks.is_array())
                continue;
            for (const json &hook : hooks) {
                if (QString::fromStdString(textOf(hook, "sourcePath")) != hooksFile ||
                    !QString::fromStdString(textOf(hook, "command")).contains(QLatin1String("countersign")))
                    continue;
                ++found.all;
                const std::string status = textOf(hook, "trustStatus");
                if (hook.value("enabled", json(false)) != json(true))
                    ++found.disabled;
                else if (status == "trusted" || status == "managed")
                    ++found.running;
            }
        }
        return found;
    }
    return std::nullopt; // no answer
}

// A setting of the agent's own that turns every hook off, in its settings file (empty: none).
QString hooksTurnedOff(const QString &client, const QString &settingsPath)
{
    const QByteArray bytes = readFile(settingsPath);
    const json s = json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false, true);
    if (!s.is_object())
        return {};
    if (client == QLatin1String("claude-code") || client == QLatin1String("qwen")) {
        if (s.value("disableAllHooks", json(false)) == json(true))
            return QStringLiteral("\"disableAllHooks\": true in %1 turns every hook off").arg(settingsPath);
        if (s.value("allowManagedHooksOnly", json(false)) == json(true))
            return QStringLiteral("\"allowManagedHooksOnly\": true in %1 runs only managed hooks")
                .arg(settingsPath);
    }
    if (client == QLatin1String("gemini")) {
        const json config = s.value("hooksConfig", json());
        if (config.is_object() && config.value("enabled", json(true)) == json(false))
            return QStringLiteral("\"hooksConfig\": {\"enabled\": false} in %1 turns every hook off")
                .arg(settingsPath);
    }
    return {};
}

// The folders Gemini CLI trusts, or nothing when it trusts every folder (folder trust turned off).
std::optional<QStringList> geminiTrustedFolders(const HookInstaller::Place &place)
{
    const QByteArray settings = readFile(QDir(place.home).filePath(QStringLiteral(".gemini/settings.json")));
    const json s =
        json::parse(settings.constData(), settings.constData() + settings.size(), nullptr, false, true);
    const json security = s.is_object() ? s.value("security", json()) : json();
    const json folderTrust = security.is_object() ? security.value("folderTrust", json()) : json();
    if (folderTrust.is_object() && folderTrust.value("enabled", json(true)) == json(false))
        return std::nullopt;
    const QByteArray folders =
        readFile(QDir(place.home).filePath(QStringLiteral(".gemini/trustedFolders.json")));
    const json f =
        json::parse(folders.constData(), folders.constData() + folders.size(), nullptr, false, true);
    QStringList trusted;
    if (f.is_object())
        for (const auto &[path, level] : f.items())
            if (level == json("TRUST_FOLDER") || level == json("TRUST_PARENT"))
                trusted << QString::fromStdString(path);
    return trusted;
}

} // namespace

QString ClientCheck::programPath(const QString &client)
{
    const HookClientSpec *program = programOf(client);
    return program ? QStandardPaths::findExecutable(text(program->program)) : QString();
}

QString ClientCheck::verdictWord(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Ready:
        return QStringLiteral("ready");
    case Verdict::NeedsStep:
        return QStringLiteral("needs a step");
    case Verdict::FailsOpen:
        return QStringLiteral("fails open");
    case Verdict::NotInstalled:
        break;
    }
    return QStringLiteral("not installed");
}

ClientCheck ClientCheck::of(const QString &client, const HookInstaller::Place &place)
{
    ClientCheck c;
    c.client = client;
    const HookClientSpec *program = programOf(client);
    const QString title = HookInstaller::displayName(client);
    if (program) {
        c.program = programPath(client);
        if (!c.program.isEmpty()) {
            static const QRegularExpression number(QStringLiteral("\\d+\\.\\d+\\.\\d+"));
            c.version =
                number.match(QString::fromUtf8(outputOf(c.program, {QStringLiteral("--version")}, place)))
                    .captured();
        }
    }
    const HookInstaller::State state = HookInstaller::stateAt(place, client);
    const auto named = hookClientNamed(client.toStdString());
    const bool plugin = named && hookClientSpec(*named).pluginFile;
    const QString hooksWord = plugin ? QStringLiteral("plugin") : QStringLiteral("hooks");
    if (!state.problem.isEmpty())
        c.found << state.problem;
    else if (state.installed)
        c.found << QStringLiteral("Countersign's %1 in %2").arg(hooksWord, state.path);
    const QString mcpPath = McpEntries::configPath(client, place.home, place.codexHome);
    bool mcp = mcpPath.isEmpty();
    if (!mcpPath.isEmpty()) {
        auto in = McpEntries::installed(client, readFile(mcpPath));
        mcp = in && in.value();
        if (!in)
            c.found << QStringLiteral("%1: %2").arg(mcpPath, in.error());
        else if (mcp)
            c.found << QStringLiteral("Countersign's MCP server in %1").arg(mcpPath);
    } else {
        c.found << QStringLiteral("%1 has no MCP client: its own tools are gated through the %2 alone")
                       .arg(title, hooksWord);
    }
    const auto verdict = [&c](Verdict v, const QString &why, const QString &step) {
        c.verdict = v;
        c.why = why;
        c.step = step;
        return c;
    };
    if (c.program.isEmpty())
        return verdict(Verdict::NotInstalled,
                       program ? QStringLiteral("no `%1` on PATH").arg(text(program->program)) : QString(),
                       {});
    if (!state.installed)
        return verdict(Verdict::FailsOpen,
                       QStringLiteral("no Countersign %1: %2's own shell and edit tools run unasked")
                           .arg(hooksWord, title),
                       QStringLiteral("countersign setup %1").arg(client));
    if (const QString off = hooksTurnedOff(client, state.path); !off.isEmpty())
        return verdict(Verdict::FailsOpen, off + QStringLiteral(": %1's own tools run unasked").arg(title),
                       QStringLiteral("take that setting out"));
    const QVersionNumber have = QVersionNumber::fromString(c.version);
    if (program && !program->oldestVersion.empty()) {
        const QVersionNumber oldest = QVersionNumber::fromString(text(program->oldestVersion));
        if (c.version.isEmpty())
            return verdict(
                Verdict::NeedsStep,
                QStringLiteral("`%1 --version` said no version: %2 before %3 lets a call through when "
                               "its hook fails")
                    .arg(c.program, title, text(program->oldestVersion)),
                QStringLiteral("check that %1 is %2 or later").arg(title, text(program->oldestVersion)));
        if (have < oldest)
            return verdict(
                Verdict::FailsOpen,
                QStringLiteral("%1 %2 lets a call through when its hook fails (the console down); %3 "
                               "and later block it")
                    .arg(title, c.version, text(program->oldestVersion)),
                QStringLiteral("update %1").arg(title));
    }
    if (client == QLatin1String("codex")) {
        const auto hooks = codexHooks(c.program, state.path, place);
        if (!hooks)
            return verdict(
                Verdict::NeedsStep,
                QStringLiteral("`codex app-server` did not list its hooks: whether Codex trusts them is "
                               "not known, and until it does it runs every command unasked"),
                QStringLiteral("start codex and check /hooks: Countersign's must be trusted"));
        if (hooks->all == 0)
            return verdict(Verdict::FailsOpen,
                           QStringLiteral("Codex does not list Countersign's hooks in %1").arg(state.path),
                           QStringLiteral("countersign setup codex"));
        if (hooks->running < hooks->all)
            return verdict(
                Verdict::FailsOpen,
                hooks->disabled
                    ? QStringLiteral(
                          "%1 of Countersign's %2 hooks are disabled in Codex: its commands run unasked")
                          .arg(hooks->disabled)
                          .arg(hooks->all)
                    : QStringLiteral(
                          "Codex runs a hook only once you trust its hash, and %1 of Countersign's %2 "
                          "are not trusted: until then every command runs unasked")
                          .arg(hooks->all - hooks->running)
                          .arg(hooks->all),
                QStringLiteral(
                    "start codex, open /hooks, enable Countersign's hooks and choose \"Trust all and "
                    "continue\""));
        c.found << QStringLiteral("Codex runs all %1 of Countersign's hooks (enabled, trusted by hash)")
                       .arg(hooks->all);
    }
    if (client == QLatin1String("gemini")) {
        const auto trusted = geminiTrustedFolders(place);
        if (trusted && trusted->isEmpty())
            return verdict(
                Verdict::FailsOpen,
                QStringLiteral("Gemini CLI runs settings hooks (and MCP servers) only in folders it "
                               "trusts, and it trusts none yet"),
                QStringLiteral("trust your project folder when Gemini CLI asks, or add \"/path/to/project\": "
                               "\"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json"));
        c.found << (trusted ? QStringLiteral(
                                  "Gemini CLI runs them only in the folders it trusts: %1; elsewhere its "
                                  "own tools run unasked")
                                  .arg(trusted->join(QStringLiteral(", ")))
                            : QStringLiteral("Gemini CLI's folder trust is off: hooks run in every folder"));
    }
    if (!mcp)
        return verdict(
            Verdict::NeedsStep,
            QStringLiteral("no Countersign MCP server in %1: its gated tools are not there").arg(mcpPath),
            QStringLiteral("countersign setup %1").arg(client));
    if (program && !c.version.isEmpty() && have < QVersionNumber::fromString(text(program->testedVersion)))
        c.found << QStringLiteral("tested with %1 %2; this is %3")
                       .arg(title, text(program->testedVersion), c.version);
    if (plugin)
        c.found << QStringLiteral("%1 loads it when it starts: restart a running one").arg(title);
    return verdict(Verdict::Ready, {}, {});
}

QString ClientCheck::describe() const
{
    QString out = QStringLiteral("%1: %2").arg(HookInstaller::displayName(client), verdictWord(verdict));
    if (!version.isEmpty())
        out += QStringLiteral(" (%1 %2)").arg(program, version);
    out += QLatin1Char('\n');
    for (const QString &fact : found)
        out += QStringLiteral("  - %1\n").arg(fact);
    if (!why.isEmpty())
        out += QStringLiteral("  why: %1\n").arg(why);
    if (!step.isEmpty())
        out += QStringLiteral("  next: %1\n").arg(step);
    return out;
}

} // namespace Countersign
