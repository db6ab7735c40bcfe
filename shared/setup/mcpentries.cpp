#include "mcpentries.h"

#include "hookclients.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace Countersign::McpEntries {

namespace {

// The user's keys keep their order when the file is written back.
using ordered = nlohmann::ordered_json;

constexpr char kServer[] = "countersign";
constexpr char kBegin[] = "# countersign: begin (written by `countersign setup codex`; "
                          "`countersign setup --remove codex` takes it out)";
constexpr char kEnd[] = "# countersign: end";

// Where each JSON client keeps its servers, and the entry it reads.
struct JsonForm final
{
    const char *section; // "mcpServers", or opencode's "mcp"
    ordered (*entry)(const Entry &);
};

std::string bearer(const Entry &e)
{
    return "Bearer " + e.token.toStdString();
}

// The client's shape of MCP entry, as the one list of agents gives it (hookclients.h).
McpForm formOf(const QString &client)
{
    const auto named = hookClientNamed(client.toStdString());
    return named ? hookClientSpec(*named).mcpForm : McpForm::None;
}

const JsonForm *jsonForm(const QString &client)
{
    static const JsonForm claude{"mcpServers", [](const Entry &e) {
                                     return ordered{{"type", "http"},
                                                    {"url", e.url.toStdString()},
                                                    {"headers", {{"Authorization", bearer(e)}}}};
                                 }};
    static const JsonForm gemini{
        "mcpServers", [](const Entry &e) {
            return ordered{{"httpUrl", e.url.toStdString()}, {"headers", {{"Authorization", bearer(e)}}}};
        }};
    static const JsonForm copilot{"mcpServers", [](const Entry &e) {
                                      return ordered{{"type", "http"},
                                                     {"url", e.url.toStdString()},
                                                     {"headers", {{"Authorization", bearer(e)}}},
                                                     {"tools", ordered::array({"*"})}};
                                  }};
    static const JsonForm opencode{"mcp", [](const Entry &e) {
                                       return ordered{{"type", "remote"},
                                                      {"url", e.url.toStdString()},
                                                      {"headers", {{"Authorization", bearer(e)}}},
                                                      {"enabled", true}};
                                   }};
    // Cline CLI 3.0.65 reads ~/.cline/data/settings/cline_mcp_settings.json: a server's transport
    // in an object of its own (its schema also takes the older flat {type, url, headers}).
    static const JsonForm cline{"mcpServers", [](const Entry &e) {
                                    return ordered{{"transport",
                                                    {{"type", "streamableHttp"},
                                                     {"url", e.url.toStdString()},
                                                     {"headers", {{"Authorization", bearer(e)}}}}}};
                                }};
    switch (formOf(client)) {
    case McpForm::Claude:
        return &claude;
    case McpForm::Cline:
        return &cline;
    case McpForm::Gemini:
        return &gemini;
    case McpForm::Copilot:
        return &copilot;
    case McpForm::OpenCode:
        return &opencode;
    case McpForm::CodexToml:
    case McpForm::None:
        break;
    }
    return nullptr;
}

Result<ordered> parse(const QByteArray &bytes)
{
    if (bytes.trimmed().isEmpty())
        return Result<ordered>(ordered::object());
    ordered parsed = ordered::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (parsed.is_discarded()) {
        const ordered lenient =
            ordered::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false, true);
        return failure(
            lenient.is_discarded()
                ? QStringLiteral("not valid JSON; nothing was changed")
                : QStringLiteral("it has comments, which writing it would lose; nothing was changed"));
    }
    if (!parsed.is_object())
        return failure(QStringLiteral("not a JSON object; nothing was changed"));
    return Result<ordered>(std::move(parsed));
}

QByteArray dump(const ordered &document)
{
    return QByteArray::fromStdString(document.dump(2)) + '\n';
}

// The lines of Codex's block (markers included), for a token and URL.
QByteArray codexBlock(const Entry &e)
{
    const auto quoted = [](const std::string &s) { return QByteArray::fromStdString(ordered(s).dump()); };
    return QByteArray(kBegin) + "\n[mcp_servers." + kServer + "]\nurl = " + quoted(e.url.toStdString()) +
           "\nhttp_headers = { \"Authorization\" = " + quoted(bearer(e)) + " }\n" + kEnd + '\n';
}

// config.toml line by line: which table each line is in, and Countersign's own lines.
struct TomlLine final
{
    QByteArray text;     // with its '\n'
    bool marker = false; // one of Countersign's two marker comments
    bool ours = false;   // [mcp_servers.countersign] (or one of its sub-tables) and its keys
};

// A header naming Countersign's server or one of its sub-tables, spelled any way TOML allows.
bool isOurHeader(const QByteArray &line)
{
    static const QRegularExpression header(
        QStringLiteral(R"(^\s*\[\s*mcp_servers\s*\.\s*(countersign|"countersign"|'countersign')\s*[\].])"));
    return header.match(QString::fromUtf8(line)).hasMatch();
}

bool isHeader(const QByteArray &line)
{
    return line.trimmed().startsWith('[');
}

// The lines, marking Countersign's: its table between the markers, and (unmarkedToo: set up here
// before, and the markers since lost to a rewrite by Codex) one of that name anywhere.
QList<TomlLine> codexLines(const QByteArray &text, bool unmarkedToo)
{
    QList<TomlLine> lines;
    bool inBlock = false;
    bool inOurs = false;
    qsizetype at = 0;
    while (at < text.size()) {
        qsizetype next = text.indexOf('\n', at);
        next = next < 0 ? text.size() : next + 1;
        TomlLine line{text.mid(at, next - at)};
        at = next;
        const QByteArray trimmed = line.text.trimmed();
        if (trimmed == kBegin || trimmed == kEnd) {
            line.marker = true;
            inBlock = trimmed == kBegin;
            inOurs = false;
        } else if (isHeader(line.text)) {
            inOurs = isOurHeader(line.text) && (inBlock || unmarkedToo);
            line.ours = inOurs;
        } else {
            line.ours = inOurs;
        }
        lines.append(std::move(line));
    }
    return lines;
}

// What the user's own lines say of a server named countersign, outside Countersign's: a table or
// sub-table of that name, a dotted key, a key under [mcp_servers], or mcp_servers as an inline
// table (which no table may extend). Empty when nothing does.
QString codexConflict(const QList<TomlLine> &lines)
{
    static const QRegularExpression topDotted(QStringLiteral(R"(^\s*mcp_servers\s*(\.|=))"));
    static const QRegularExpression serversHeader(QStringLiteral(R"(^\s*\[\s*mcp_servers\s*\]\s*(#.*)?$)"));
    static const QRegularExpression ourKey(
        QStringLiteral(R"(^\s*(countersign|"countersign"|'countersign')\s*[=.])"));
    QString table; // "" at the top level, "mcp_servers", or "other"
    for (const TomlLine &line : lines) {
        if (line.marker || line.ours)
            continue;
        const QString text = QString::fromUtf8(line.text);
        if (isHeader(line.text)) {
            if (isOurHeader(line.text))
                return QStringLiteral("it has a table for a server named countersign");
            table = serversHeader.match(text).hasMatch() ? QStringLiteral("mcp_servers")
                                                         : QStringLiteral("other");
            continue;
        }
        if (table.isEmpty() && topDotted.match(text).hasMatch())
            return QStringLiteral("it sets mcp_servers with a dotted key or an inline table");
        if (table == QLatin1String("mcp_servers") && ourKey.match(text).hasMatch())
            return QStringLiteral("its [mcp_servers] has a key named countersign");
    }
    return {};
}

// The text without Countersign's lines (and without the blank line setup put before its block at
// the end of the file); removed says whether there were any.
QByteArray codexWithout(const QList<TomlLine> &lines, bool *removed)
{
    QByteArray out;
    bool any = false;
    for (const TomlLine &line : lines) {
        if (line.marker || line.ours)
            any = true;
        else
            out += line.text;
    }
    if (any && out.endsWith("\n\n"))
        out.chop(1);
    if (removed)
        *removed = any;
    return out;
}

} // namespace

QString configPath(const QString &client, const QString &home, const QString &codexHome)
{
    const auto named = hookClientNamed(client.toStdString());
    if (!named || hookClientSpec(*named).mcpFile.empty())
        return {};
    const std::string_view file = hookClientSpec(*named).mcpFile;
    const QString relative = QString::fromUtf8(file.data(), qsizetype(file.size()));
    if (formOf(client) == McpForm::CodexToml && !codexHome.isEmpty()) // $CODEX_HOME/config.toml
        return QDir(codexHome).filePath(QFileInfo(relative).fileName());
    return QDir(home).filePath(relative);
}

Result<QByteArray> install(const QString &client, const QByteArray &current, const Entry &entry,
                           bool unmarkedToo)
{
    if (formOf(client) == McpForm::CodexToml) {
        const QList<TomlLine> lines = codexLines(current, unmarkedToo);
        if (const QString conflict = codexConflict(lines); !conflict.isEmpty())
            return failure(QStringLiteral("%1, not written by setup: take it out first; nothing was changed")
                               .arg(conflict));
        QByteArray text = codexWithout(lines, nullptr); // a block of an earlier setup is replaced
        if (!text.isEmpty() && !text.endsWith('\n'))
            text += '\n';
        if (!text.isEmpty())
            text += '\n';
        return text + codexBlock(entry);
    }
    const JsonForm *form = jsonForm(client);
    if (!form)
        return failure(QStringLiteral("%1 has no MCP configuration Countersign writes").arg(client));
    auto document = parse(current);
    if (!document)
        return failure(document.error());
    ordered &servers = document.value()[form->section];
    if (servers.is_null())
        servers = ordered::object();
    if (!servers.is_object())
        return failure(QStringLiteral("its \"%1\" is not an object; nothing was changed").arg(form->section));
    servers[kServer] = form->entry(entry);
    return dump(document.value());
}

Result<QByteArray> remove(const QString &client, const QByteArray &current, bool unmarkedToo)
{
    if (formOf(client) == McpForm::CodexToml)
        return codexWithout(codexLines(current, unmarkedToo), nullptr);
    const JsonForm *form = jsonForm(client);
    if (!form || current.trimmed().isEmpty())
        return current;
    auto document = parse(current);
    if (!document)
        return failure(document.error());
    auto servers = document.value().find(form->section);
    if (servers == document.value().end() || !servers->is_object() || !servers->contains(kServer))
        return current;
    servers->erase(kServer);
    if (servers->empty())
        document.value().erase(servers);
    return dump(document.value());
}

Result<bool> installed(const QString &client, const QByteArray &current)
{
    if (formOf(client) == McpForm::CodexToml) {
        bool ours = false;
        codexWithout(codexLines(current, true), &ours);
        return ours;
    }
    const JsonForm *form = jsonForm(client);
    if (!form)
        return false;
    auto document = parse(current);
    if (!document)
        return failure(document.error());
    const auto servers = document.value().find(form->section);
    return servers != document.value().end() && servers->is_object() && servers->contains(kServer);
}

} // namespace Countersign::McpEntries
