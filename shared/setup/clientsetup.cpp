#include "clientsetup.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr char kServerName[] = "countersign";
constexpr char kTokenVariable[] = "COUNTERSIGN_TOKEN";

QString pretty(const json &document)
{
    return QString::fromStdString(document.dump(2));
}

json strings(const QStringList &list)
{
    json array = json::array();
    for (const QString &s : list)
        array.push_back(s.toStdString());
    return array;
}

// One word for a POSIX shell: as is when it is plainly safe, else in single quotes.
QString shellWord(const QString &word)
{
    static const QString plain =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-");
    if (!word.isEmpty() && std::all_of(word.begin(), word.end(), [](QChar c) { return plain.contains(c); }))
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString shellLine(const QStringList &words)
{
    QStringList quoted;
    for (const QString &w : words)
        quoted << shellWord(w);
    return quoted.join(QLatin1Char(' '));
}

// A TOML basic string.
QString tomlString(const QString &s)
{
    return QString::fromStdString(json(s.toStdString()).dump());
}

json stdioEntry(const QStringList &command, const json &env)
{
    return {{"command", command.first().toStdString()}, {"args", strings(command.mid(1))}, {"env", env}};
}

} // namespace

QList<ClientSetup> ClientSetup::all(const QString &url, const QString &token, const QStringList &stdioCommand)
{
    const std::string u = url.toStdString();
    const std::string bearer = "Bearer " + token.toStdString();
    const json tokenEnv = {{kTokenVariable, token.toStdString()}};
    const json vsCodeInput = json::array({{{"type", "promptString"},
                                           {"id", "countersign-token"},
                                           {"description", "Countersign token"},
                                           {"password", true}}});
    QStringList tomlArgs;
    for (const QString &a : stdioCommand.mid(1))
        tomlArgs << tomlString(a);
    const QString server = QLatin1String(kServerName);
    // Gemini CLI disables every MCP server in a folder it does not trust, and says only "Disabled".
    const QString geminiTrust = QCoreApplication::translate(
        "ClientSetup",
        "Gemini CLI runs MCP servers only in folders it trusts (`gemini mcp list` says \"Disabled\" "
        "elsewhere): trust the project folder when Gemini asks, or add \"/path/to/project\": "
        "\"TRUST_FOLDER\" to ~/.gemini/trustedFolders.json.");
    // Claude Code defers MCP tools behind its tool search: the agent finds them when it searches.
    const QString claudeSearch = QCoreApplication::translate(
        "ClientSetup",
        "Claude Code may keep MCP tools behind its tool search until the agent looks for them; "
        "ENABLE_TOOL_SEARCH=false lists them at once. Check with `claude mcp list` (countersign: "
        "connected).");
    return {
        {QStringLiteral("Claude Code"),
         QStringLiteral("HTTP"),
         {},
         shellLine({QStringLiteral("claude"), QStringLiteral("mcp"), QStringLiteral("add"),
                    QStringLiteral("--scope"), QStringLiteral("user"), QStringLiteral("--transport"),
                    QStringLiteral("http"), server, url, QStringLiteral("--header"),
                    QStringLiteral("Authorization: Bearer ") + token}),
         claudeSearch},
        {QStringLiteral("Claude Code"),
         QStringLiteral("stdio"),
         {},
         shellLine(
             QStringList{QStringLiteral("claude"), QStringLiteral("mcp"), QStringLiteral("add"),
                         QStringLiteral("--scope"), QStringLiteral("user"), server, QStringLiteral("--env"),
                         QLatin1String(kTokenVariable) + QLatin1Char('=') + token, QStringLiteral("--")} +
             stdioCommand),
         claudeSearch},
        {QStringLiteral("Claude Desktop"), QStringLiteral("stdio"),
         QStringLiteral("claude_desktop_config.json (Settings > Developer > Edit Config)"),
         pretty({{"mcpServers", {{kServerName, stdioEntry(stdioCommand, tokenEnv)}}}})},
        {QStringLiteral("VS Code"), QStringLiteral("HTTP"),
         QStringLiteral(".vscode/mcp.json (VS Code asks for the token once; it stays out of the file)"),
         pretty({{"inputs", vsCodeInput},
                 {"servers",
                  {{kServerName,
                    {{"type", "http"},
                     {"url", u},
                     {"headers", {{"Authorization", "Bearer ${input:countersign-token}"}}}}}}}})},
        {QStringLiteral("VS Code"), QStringLiteral("stdio"),
         QStringLiteral(".vscode/mcp.json (VS Code asks for the token once; it stays out of the file)"),
         pretty({{"inputs", vsCodeInput},
                 {"servers",
                  {{kServerName,
                    {{"type", "stdio"},
                     {"command", stdioCommand.first().toStdString()},
                     {"args", strings(stdioCommand.mid(1))},
                     {"env", {{kTokenVariable, "${input:countersign-token}"}}}}}}}})},
        {QStringLiteral("Cursor"), QStringLiteral("HTTP"),
         QStringLiteral("~/.cursor/mcp.json, with COUNTERSIGN_TOKEN set in Cursor's environment"),
         pretty({{"mcpServers",
                  {{kServerName,
                    {{"url", u}, {"headers", {{"Authorization", "Bearer ${env:COUNTERSIGN_TOKEN}"}}}}}}}})},
        {QStringLiteral("Cursor"), QStringLiteral("stdio"),
         QStringLiteral("~/.cursor/mcp.json, with COUNTERSIGN_TOKEN set in Cursor's environment"),
         pretty(
             {{"mcpServers",
               {{kServerName, stdioEntry(stdioCommand, {{kTokenVariable, "${env:COUNTERSIGN_TOKEN}"}})}}}})},
        {QStringLiteral("Gemini CLI"), QStringLiteral("HTTP"), QStringLiteral("~/.gemini/settings.json"),
         pretty(
             {{"mcpServers", {{kServerName, {{"httpUrl", u}, {"headers", {{"Authorization", bearer}}}}}}}}),
         geminiTrust},
        {QStringLiteral("Gemini CLI"), QStringLiteral("stdio"), QStringLiteral("~/.gemini/settings.json"),
         pretty({{"mcpServers", {{kServerName, stdioEntry(stdioCommand, tokenEnv)}}}}), geminiTrust},
        {QStringLiteral("Codex"), QStringLiteral("HTTP"),
         QStringLiteral("~/.codex/config.toml, with COUNTERSIGN_TOKEN exported"),
         QStringLiteral("[mcp_servers.countersign]\nurl = %1\nbearer_token_env_var = \"COUNTERSIGN_TOKEN\"")
             .arg(tomlString(url))},
        {QStringLiteral("Codex"), QStringLiteral("stdio"), QStringLiteral("~/.codex/config.toml"),
         QStringLiteral(
             "[mcp_servers.countersign]\ncommand = %1\nargs = [%2]\nenv = { COUNTERSIGN_TOKEN = %3 }")
             .arg(tomlString(stdioCommand.first()), tomlArgs.join(QStringLiteral(", ")), tomlString(token))},
    };
}

QString ClientSetup::document(const QString &connection, const QString &url, const QString &token,
                              const QStringList &stdioCommand)
{
    QString out =
        QCoreApplication::translate(
            "ClientSetup", "Token for \"%1\" (shown only now; Countersign keeps only its hash):\n%2\n")
            .arg(connection, token);
    for (const ClientSetup &setup : all(url, token, stdioCommand)) {
        out += QStringLiteral("\n== %1, %2%3 ==\n%4\n")
                   .arg(setup.client, setup.transport,
                        setup.where.isEmpty() ? QString() : QStringLiteral(": ") + setup.where, setup.text);
        if (!setup.needs.isEmpty())
            out += QStringLiteral("Then: %1\n").arg(setup.needs);
    }
    return out;
}

} // namespace Countersign
