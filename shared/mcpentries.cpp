#include "mcpentries.h"

#include <nlohmann/json.hpp>

#include <QDir>
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
    if (client == QLatin1String("claude-code"))
        return &claude;
    if (client == QLatin1String("gemini") || client == QLatin1String("qwen"))
        return &gemini;
    if (client == QLatin1String("copilot"))
        return &copilot;
    if (client == QLatin1String("opencode"))
        return &opencode;
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

// Where Countersign's block sits in config.toml: [begin, end) in bytes, or begin -1.
std::pair<qsizetype, qsizetype> codexBlockAt(const QByteArray &text)
{
    const qsizetype begin = text.indexOf(kBegin);
    if (begin < 0 || (begin > 0 && text.at(begin - 1) != '\n'))
        return {-1, -1};
    const qsizetype endMarker = text.indexOf(kEnd, begin);
    if (endMarker < 0)
        return {-1, -1};
    qsizetype end = endMarker + qsizetype(sizeof kEnd) - 1;
    if (end < text.size() && text.at(end) == '\n')
        ++end;
    return {begin, end};
}

// A table of that name outside Countersign's block: the user's own, left alone.
bool codexHasOwnTable(const QByteArray &text)
{
    static const QRegularExpression table(
        QStringLiteral(R"(^\s*\[\s*mcp_servers\s*\.\s*"?countersign"?\s*\])"),
        QRegularExpression::MultilineOption);
    QByteArray outside = text;
    if (const auto [begin, end] = codexBlockAt(text); begin >= 0)
        outside.remove(begin, end - begin);
    return table.match(QString::fromUtf8(outside)).hasMatch();
}

} // namespace

QString configPath(const QString &client, const QString &home, const QString &codexHome)
{
    const QDir h(home);
    if (client == QLatin1String("claude-code"))
        return h.filePath(QStringLiteral(".claude.json"));
    if (client == QLatin1String("codex"))
        return QDir(codexHome.isEmpty() ? h.filePath(QStringLiteral(".codex")) : codexHome)
            .filePath(QStringLiteral("config.toml"));
    if (client == QLatin1String("gemini"))
        return h.filePath(QStringLiteral(".gemini/settings.json"));
    if (client == QLatin1String("qwen"))
        return h.filePath(QStringLiteral(".qwen/settings.json"));
    if (client == QLatin1String("copilot"))
        return h.filePath(QStringLiteral(".copilot/mcp-config.json"));
    if (client == QLatin1String("opencode"))
        return h.filePath(QStringLiteral(".config/opencode/opencode.json"));
    return {};
}

Result<QByteArray> install(const QString &client, const QByteArray &current, const Entry &entry)
{
    if (client == QLatin1String("codex")) {
        if (codexHasOwnTable(current))
            return failure(
                QStringLiteral("config.toml has a server named countersign already, not written by "
                               "setup: take it out first; nothing was changed"));
        QByteArray text = current;
        if (const auto [begin, end] = codexBlockAt(text); begin >= 0)
            return text.replace(begin, end - begin, codexBlock(entry));
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

Result<QByteArray> remove(const QString &client, const QByteArray &current)
{
    if (client == QLatin1String("codex")) {
        QByteArray text = current;
        const auto [begin, end] = codexBlockAt(text);
        if (begin < 0)
            return text;
        text.remove(begin, end - begin);
        if (begin >= 2 && text.mid(begin - 2, 2) == "\n\n" && begin == text.size())
            text.chop(1); // the blank line install put before the block, at the end of the file
        return text;
    }
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
    if (client == QLatin1String("codex"))
        return codexBlockAt(current).first >= 0;
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
