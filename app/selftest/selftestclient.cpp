#include "selftestclient.h"

#include "hookclients.h"

#include <QDateTime>
#include <QDir>
#include <QSaveFile>

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr char kModel[] = "scripted-model";
constexpr char kKey[] = "countersign-selftest";

Status writeText(const QString &path, const QByteArray &bytes)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return failure(QStringLiteral("cannot create the folder of %1").arg(path));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return success();
}

Status writeJson(const QString &path, const json &value)
{
    return writeText(path, QByteArray::fromStdString(value.dump(2)) + '\n');
}

// Nothing of the user's environment but PATH: no keys, proxies or settings of theirs.
QProcessEnvironment baseEnvironment(const QString &home)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"),
               qEnvironmentVariable("PATH", QStringLiteral("/usr/local/bin:/usr/bin:/bin")));
    env.insert(QStringLiteral("HOME"), home);
    const QDir h(home);
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), h.filePath(QStringLiteral(".config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), h.filePath(QStringLiteral(".local/share")));
    env.insert(QStringLiteral("XDG_CACHE_HOME"), h.filePath(QStringLiteral(".cache")));
    env.insert(QStringLiteral("XDG_STATE_HOME"), h.filePath(QStringLiteral(".local/state")));
    env.insert(QStringLiteral("TMPDIR"), h.filePath(QStringLiteral("tmp")));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    env.insert(QStringLiteral("TERM"), QStringLiteral("dumb"));
    env.insert(QStringLiteral("NO_COLOR"), QStringLiteral("1"));
    return env;
}

void insertAll(QProcessEnvironment &env, std::initializer_list<std::pair<const char *, QString>> values)
{
    for (const auto &[name, value] : values)
        env.insert(QLatin1String(name), value);
}

// The set-up of each agent in the sandbox: its model configuration written under HOME, and its
// arguments and environment in launch.

void prepareClaudeCode(SelftestClient::Launch &launch, const QString &modelBase, const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    // Its tools pre-approved by name, so that its own permission prompt (a refusal headless)
    // never stands in for the gate; MCP tools listed at once, not behind its tool search.
    launch.arguments = {QStringLiteral("-p"),
                        prompt,
                        QStringLiteral("--output-format"),
                        QStringLiteral("stream-json"),
                        QStringLiteral("--verbose"),
                        QStringLiteral("--allowedTools"),
                        QStringLiteral("Bash"),
                        QStringLiteral("mcp__countersign__delete_path")};
    insertAll(env, {{"ANTHROPIC_BASE_URL", modelBase},
                    {"ANTHROPIC_API_KEY", QLatin1String(kKey)},
                    {"ENABLE_TOOL_SEARCH", QStringLiteral("false")},
                    {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", QStringLiteral("1")},
                    {"DISABLE_AUTOUPDATER", QStringLiteral("1")},
                    {"DISABLE_TELEMETRY", QStringLiteral("1")},
                    {"DISABLE_ERROR_REPORTING", QStringLiteral("1")}});
}

Status prepareCodex(SelftestClient::Launch &launch, const QDir &home, const QString &openai,
                    const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    // Codex's own approvals and sandbox off: the gate alone decides. Its hooks run untrusted
    // here (the sandbox's CODEX_HOME has no /hooks review); `setup --check` reports the trust of
    // the user's own.
    const QString codexHome = home.filePath(QStringLiteral(".codex"));
    Status written = writeText(
        QDir(codexHome).filePath(QStringLiteral("config.toml")),
        QStringLiteral(
            "model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\napproval_policy = \"never\"\n"
            "check_for_update_on_startup = false\n"
            "[analytics]\nenabled = false\n[feedback]\nenabled = false\n[otel]\nexporter = \"none\"\n"
            "[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"%1\"\n"
            "wire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n"
            "request_max_retries = 0\nstream_max_retries = 0\n")
            .arg(openai)
            .toUtf8());
    launch.arguments = {QStringLiteral("exec"),
                        QStringLiteral("--skip-git-repo-check"),
                        QStringLiteral("--json"),
                        QStringLiteral("--dangerously-bypass-hook-trust"),
                        QStringLiteral("--sandbox"),
                        QStringLiteral("danger-full-access"),
                        prompt};
    insertAll(env, {{"CODEX_HOME", codexHome}, {"SCRIPTED_API_KEY", QLatin1String(kKey)}});
    return written;
}

Status prepareGemini(SelftestClient::Launch &launch, const QDir &home, const QString &modelBase,
                     const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    Status written =
        writeJson(home.filePath(QStringLiteral(".gemini/settings.json")),
                  {{"security", {{"auth", {{"selectedType", "gemini-api-key"}}}}},
                   {"privacy", {{"usageStatisticsEnabled", false}}},
                   {"telemetry", {{"enabled", false}}},
                   {"general", {{"enableAutoUpdate", false}, {"enableAutoUpdateNotification", false}}}});
    launch.arguments = {QStringLiteral("-p"),
                        prompt,
                        QStringLiteral("--approval-mode"),
                        QStringLiteral("yolo"),
                        QStringLiteral("--output-format"),
                        QStringLiteral("stream-json")};
    insertAll(
        env, {{"GEMINI_API_KEY", QLatin1String(kKey)},
              {"GOOGLE_GEMINI_BASE_URL", modelBase},
              {"GEMINI_CLI_TRUST_WORKSPACE", QStringLiteral("true")},
              {"GEMINI_CLI_SYSTEM_SETTINGS_PATH", home.filePath(QStringLiteral("none/system-settings.json"))},
              {"GEMINI_CLI_SYSTEM_DEFAULTS_PATH", home.filePath(QStringLiteral("none/system-defaults.json"))},
              {"GEMINI_TELEMETRY_ENABLED", QStringLiteral("false")},
              {"GEMINI_CLI_NO_RELAUNCH", QStringLiteral("true")}});
    return written;
}

Status prepareQwen(SelftestClient::Launch &launch, const QDir &home, const QString &openai,
                   const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    Status written =
        writeJson(home.filePath(QStringLiteral(".qwen/settings.json")),
                  {{"security", {{"auth", {{"selectedType", "openai"}}}}},
                   {"model", {{"name", kModel}}},
                   {"tools", {{"toolSearch", {{"enabled", false}}}}},
                   {"privacy", {{"usageStatisticsEnabled", false}}},
                   {"telemetry", {{"enabled", false}}},
                   {"general",
                    {{"enableAutoUpdate", false}, {"disableAutoUpdate", true}, {"disableUpdateNag", true}}}});
    launch.arguments = {QStringLiteral("-p"),
                        prompt,
                        QStringLiteral("--approval-mode"),
                        QStringLiteral("yolo"),
                        QStringLiteral("--output-format"),
                        QStringLiteral("stream-json")};
    insertAll(env, {{"OPENAI_API_KEY", QLatin1String(kKey)},
                    {"OPENAI_BASE_URL", openai},
                    {"OPENAI_MODEL", QLatin1String(kModel)},
                    {"QWEN_CODE_SUPPRESS_YOLO_WARNING", QStringLiteral("1")}});
    return written;
}

void prepareCopilot(SelftestClient::Launch &launch, const QString &openai, const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    // A gpt-4.1 name keeps its bash, edit and create tools.
    launch.arguments = {QStringLiteral("-p"), prompt, QStringLiteral("--allow-all-tools"),
                        QStringLiteral("--no-auto-update")};
    insertAll(env, {{"COPILOT_OFFLINE", QStringLiteral("true")},
                    {"COPILOT_AUTO_UPDATE", QStringLiteral("false")},
                    {"COPILOT_PROVIDER_BASE_URL", openai},
                    {"COPILOT_PROVIDER_TYPE", QStringLiteral("openai")},
                    {"COPILOT_PROVIDER_API_KEY", QLatin1String(kKey)},
                    {"COPILOT_MODEL", QStringLiteral("gpt-4.1")}});
}

Status prepareOpencode(SelftestClient::Launch &launch, const QDir &home, const QString &openai,
                       const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    const QString config = home.filePath(QStringLiteral("opencode-selftest.json"));
    Status written =
        writeJson(config, {{"autoupdate", false},
                           {"share", "disabled"},
                           {"model", "scripted/scripted-model"},
                           {"small_model", "scripted/scripted-model"},
                           {"provider",
                            {{"scripted",
                              {{"npm", "@ai-sdk/openai-compatible"},
                               {"name", "Scripted model"},
                               {"options", {{"baseURL", openai.toStdString()}, {"apiKey", kKey}}},
                               {"models",
                                {{kModel,
                                  {{"name", kModel},
                                   {"tool_call", true},
                                   {"limit", {{"context", 200000}, {"output", 8000}}}}}}}}}}},
                           {"permission", {{"*", "allow"}}}});
    launch.arguments = {QStringLiteral("run"), QStringLiteral("--format"), QStringLiteral("json"), prompt};
    insertAll(env, {{"OPENCODE_CONFIG", config},
                    {"OPENCODE_DISABLE_AUTOUPDATE", QStringLiteral("1")},
                    {"OPENCODE_DISABLE_MODELS_FETCH", QStringLiteral("1")},
                    {"OPENCODE_DISABLE_DEFAULT_PLUGINS", QStringLiteral("1")},
                    {"OPENCODE_DISABLE_LSP_DOWNLOAD", QStringLiteral("1")},
                    {"OPENCODE_DISABLE_SHARE", QStringLiteral("1")},
                    {"OPENCODE_DISABLE_CLAUDE_CODE", QStringLiteral("1")},
                    {"OPENCODE_DISABLE_EXTERNAL_SKILLS", QStringLiteral("1")}});
    return written;
}

Status preparePi(SelftestClient::Launch &launch, const QDir &home, const QString &openai,
                 const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    Status written =
        writeJson(home.filePath(QStringLiteral(".pi/agent/models.json")),
                  {{"providers",
                    {{"scripted",
                      {{"baseUrl", openai.toStdString()},
                       {"api", "openai-completions"},
                       {"apiKey", kKey},
                       {"compat", {{"supportsDeveloperRole", false}, {"supportsReasoningEffort", false}}},
                       {"models", {{{"id", kModel}}}}}}}}});
    launch.arguments = {QStringLiteral("--provider"),
                        QStringLiteral("scripted"),
                        QStringLiteral("--model"),
                        QLatin1String(kModel),
                        QStringLiteral("--no-session"),
                        QStringLiteral("-p"),
                        prompt};
    insertAll(env, {{"PI_OFFLINE", QStringLiteral("1")}, {"PI_TELEMETRY", QStringLiteral("0")}});
    return written;
}

Status prepareCline(SelftestClient::Launch &launch, const QDir &home, const QString &openai,
                    const QString &prompt)
{
    QProcessEnvironment &env = launch.environment;
    // As `cline auth` writes an openai-compatible provider; one process (no hub daemon), offline.
    const QDir data(home.filePath(QStringLiteral(".cline/data")));
    const std::string now = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
    Status written = writeJson(data.filePath(QStringLiteral("settings/providers.json")),
                               {{"version", 1},
                                {"lastUsedProvider", "openai-compatible"},
                                {"modes", json::object()},
                                {"providers",
                                 {{"openai-compatible",
                                   {{"settings",
                                     {{"provider", "openai-compatible"},
                                      {"apiKey", kKey},
                                      {"model", kModel},
                                      {"baseUrl", openai.toStdString()}}},
                                    {"updatedAt", now},
                                    {"tokenSource", "manual"}}}}}});
    if (written)
        written = writeJson(data.filePath(QStringLiteral("settings/global-settings.json")),
                            {{"telemetryOptOut", true}, {"autoUpdateEnabled", false}});
    if (written)
        written = writeJson(
            data.filePath(QStringLiteral("cache/feature-flags.json")),
            {{"version", 2},
             {"updatedAt", QDateTime::currentMSecsSinceEpoch()},
             {"userId", nullptr},
             {"flagsPayload", {{"featureFlags", json::object()}, {"featureFlagPayloads", json::object()}}}});
    launch.arguments = {QStringLiteral("--json"), QStringLiteral("-P"),  QStringLiteral("openai-compatible"),
                        QStringLiteral("-m"),     QLatin1String(kModel), prompt};
    insertAll(env, {{"CLINE_NO_AUTO_UPDATE", QStringLiteral("1")},
                    {"CLINE_SESSION_BACKEND_MODE", QStringLiteral("local")},
                    {"DO_NOT_TRACK", QStringLiteral("1")}});
    return written;
}

} // namespace

std::optional<SelftestClient> SelftestClient::of(const QString &client)
{
    // The shell tool from the one list of agents (hookclients.h); what is the self-test's own here.
    const auto named = hookClientNamed(client.toStdString());
    if (!named)
        return std::nullopt;
    const HookClientSpec &spec = hookClientSpec(*named);
    SelftestClient c;
    c.client = client;
    c.shellTool = QString::fromUtf8(spec.shellTool.data(), qsizetype(spec.shellTool.size()));
    // Countersign's MCP tools too: every agent whose MCP entry setup writes, but Codex, which the
    // self-test drives through its shell alone.
    c.mcp = !spec.mcpFile.empty() && *named != HookClient::Codex;
    if (*named == HookClient::Cline)
        c.stopLog = QStringLiteral(".cline/data/logs/cline.log");
    return c;
}

json SelftestClient::shellArgs(const QString &command, const Sandbox &) const
{
    const std::string c = command.toStdString();
    if (client == QLatin1String("codex"))
        return {{"cmd", c}};
    if (client == QLatin1String("cline"))
        return {{"commands", {c}}};
    if (client == QLatin1String("pi"))
        return {{"command", c}};
    return {{"command", c}, {"description", "countersign selftest"}};
}

Result<SelftestClient::Launch> SelftestClient::prepare(const Sandbox &sandbox, const QString &modelBase,
                                                       const QString &prompt) const
{
    const QDir home(sandbox.home);
    const QString openai = modelBase + QStringLiteral("/v1");
    Launch launch;
    launch.environment = baseEnvironment(sandbox.home);
    Status written = success();
    if (client == QLatin1String("claude-code"))
        prepareClaudeCode(launch, modelBase, prompt);
    else if (client == QLatin1String("codex"))
        written = prepareCodex(launch, home, openai, prompt);
    else if (client == QLatin1String("gemini"))
        written = prepareGemini(launch, home, modelBase, prompt);
    else if (client == QLatin1String("qwen"))
        written = prepareQwen(launch, home, openai, prompt);
    else if (client == QLatin1String("copilot"))
        prepareCopilot(launch, openai, prompt);
    else if (client == QLatin1String("opencode"))
        written = prepareOpencode(launch, home, openai, prompt);
    else if (client == QLatin1String("pi"))
        written = preparePi(launch, home, openai, prompt);
    else if (client == QLatin1String("cline"))
        written = prepareCline(launch, home, openai, prompt);
    if (!written)
        return failure(written.error());
    for (const char *folder : {"tmp", ".config", ".cache", ".local/share", ".local/state"})
        QDir().mkpath(home.filePath(QLatin1String(folder)));
    return launch;
}

} // namespace Countersign
