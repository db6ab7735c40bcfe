#include "clinepayload.h"

#include "shellparser.h"

#include <QRegularExpression>
#include <QString>

#include <vector>

namespace Countersign::ClinePayload {

using json = nlohmann::json;

namespace {

// A word quoted for sh: what it reads back is the word itself.
std::string quoted(const std::string &word)
{
    std::string out = "'";
    for (const char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// {command, args}: a program Cline runs directly with those arguments, with no shell, so each word
// is quoted (read as the argv it is). A line break in one is not read.
std::optional<std::string> programOf(const json &element)
{
    if (!element.is_object() || !element.value("command", json()).is_string() || element.contains("cmd") ||
        element.contains("commands"))
        return std::nullopt;
    const json args = element.value("args", json());
    std::string line;
    if (args.is_null()) {
        line = element.at("command").get<std::string>();
    } else {
        if (!args.is_array())
            return std::nullopt;
        line = quoted(element.at("command").get<std::string>());
        for (const json &arg : args) {
            if (!arg.is_string())
                return std::nullopt;
            line += ' ' + quoted(arg.get<std::string>());
        }
    }
    if (line.find_first_of("\n\r") != std::string::npos || line.find("<<") != std::string::npos)
        return std::nullopt;
    return line;
}

// JavaScript's white space (what Cline's \\s and trim() take), not Qt's or the C library's: a
// character one takes and the other does not would end a here-document at another string.
const QString kJsSpace = QStringLiteral(
    "[\\t\\n\\x{0B}\\f\\r "
    "\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]");

QString jsTrimmed(const std::string &text)
{
    static const QRegularExpression ends(QStringLiteral("\\A%1+|%1+\\z").arg(kJsSpace));
    return QString::fromStdString(text).remove(ends);
}

// The word a here-document in text ends at, as Cline finds it (its own pattern); empty: none.
QString hereDocumentEnd(const std::string &text)
{
    static const QRegularExpression start(
        QStringLiteral("(?<![<])<<-?%1*(?:\"([^\"]+)\"|'([^']+)'|([A-Za-z0-9_./-]+))").arg(kJsSpace));
    const QRegularExpressionMatch m = start.match(QString::fromStdString(text));
    for (int k = 1; k <= 3 && m.hasMatch(); ++k) {
        if (m.capturedLength(k) > 0)
            return m.captured(k);
    }
    return {};
}

// Cline's strings as the shell texts it runs: a string that starts a here-document is joined, with
// line breaks, to the strings up to the first whose trimmed text is the here-document's word; each
// text then runs in a shell of its own (a line break in one is the shell's, as is a here-document
// ending where the shell ends it). A carriage return is not read.
std::optional<std::vector<std::string>> shellTextsOf(const std::vector<std::string> &strings)
{
    std::vector<std::string> texts;
    for (size_t k = 0; k < strings.size(); ++k) {
        const QString end = hereDocumentEnd(strings[k]);
        size_t last = k;
        for (size_t j = k + 1; !end.isEmpty() && j < strings.size(); ++j) {
            if (jsTrimmed(strings[j]) == end) {
                last = j;
                break;
            }
        }
        std::string text = strings[k];
        while (k < last)
            text += "\n" + strings[++k];
        if (text.find('\r') != std::string::npos)
            return std::nullopt;
        // Each text runs in a shell of its own: one that leaves a quote open or a here-document
        // unended would swallow the next in the one text the gate reads ("echo '", then a command).
        if (!Shell::ShellParser::parse(QString::fromStdString("(" + text + "\n)")).problems.isEmpty())
            return std::nullopt;
        texts.push_back(std::move(text));
    }
    return texts;
}

// run_commands' input, every spelling Cline reads, as one shell text: each command in a subshell
// of its own on its own lines, as Cline runs each in the workspace folder (a cd in one does not
// move the next). An input naming more than one of commands, command and cmd is not read (Cline
// takes the first of its own order and drops the rest).
std::optional<std::string> commandsOf(const json &input)
{
    json list;
    if (input.is_object() &&
        int(input.contains("commands")) + int(input.contains("command")) + int(input.contains("cmd")) != 1)
        return std::nullopt;
    if (input.is_string())
        list = json::array({input});
    else if (input.is_object() && input.contains("commands"))
        list = input.at("commands").is_array() ? input.at("commands") : json::array({input.at("commands")});
    else if (input.is_object() && input.contains("cmd"))
        list = json::array({input.at("cmd")});
    else if (input.is_object() && input.contains("command"))
        list = json::array({input}); // {command} or {command, args}
    else if (input.is_array())
        list = input;
    if (!list.is_array() || list.empty())
        return std::nullopt;
    std::string text;
    std::vector<std::string> strings; // a run of strings, grouped as Cline groups them
    const auto add = [&text](const std::string &line) {
        text += (text.empty() ? "(" : "\n(") + line + "\n)";
    };
    const auto flush = [&strings, &add]() {
        const auto texts = shellTextsOf(strings);
        strings.clear();
        if (!texts)
            return false;
        for (const std::string &t : *texts)
            add(t);
        return true;
    };
    for (const json &element : list) {
        if (element.is_string()) {
            strings.push_back(element.get<std::string>());
            continue;
        }
        const auto line = programOf(element);
        if (!flush() || !line)
            return std::nullopt;
        add(*line);
    }
    if (!flush())
        return std::nullopt;
    return text;
}

// read_files' paths, every spelling Cline reads.
std::optional<json> pathsOf(const json &input)
{
    json paths = json::array();
    const auto add = [&paths](const json &item) {
        if (item.is_string()) {
            paths.push_back(item);
            return true;
        }
        if (!item.is_object())
            return false;
        for (const char *key : {"path", "file_path", "filePath"}) {
            if (const auto it = item.find(key); it != item.end() && it->is_string()) {
                paths.push_back(*it);
                return true;
            }
        }
        return false;
    };
    const auto addAll = [&add](const json &value) {
        if (!value.is_array())
            return add(value);
        for (const json &item : value) {
            if (!add(item))
                return false;
        }
        return true;
    };
    bool read = false;
    if (input.is_object()) {
        for (const char *key : {"files", "file_paths", "paths"}) {
            if (const auto it = input.find(key); it != input.end())
                read = addAll(*it);
        }
        if (!read)
            read = add(input);
    } else {
        read = addAll(input);
    }
    if (!read || paths.empty())
        return std::nullopt;
    return paths;
}

// Cline's tool under the name the gate knows, with its input in one spelling: {tool_name,
// tool_input}. What is not read keeps Cline's name and its input as sent (a tool that asks).
json toolOf(const std::string &name, const json &input, bool *unasked)
{
    json out = {{"tool_name", name}, {"tool_input", json::object()}};
    json &tool = out["tool_input"];
    if (name == "ask_question" || name == "submit_and_exit" || name == "skills" ||
        name == "fetch_web_content") {
        *unasked = true;
    } else if (name == "run_commands") {
        if (const auto text = commandsOf(input)) {
            out["tool_name"] = "Bash";
            tool = {{"command", *text}};
        }
    } else if (name == "editor" && input.is_object() && input.value("path", json()).is_string() &&
               input.value("new_text", json()).is_string() && input.value("insert_line", json()).is_null()) {
        const json old = input.value("old_text", json());
        if (old.is_string() && !old.get<std::string>().empty()) {
            out["tool_name"] = "Edit";
            tool = {
                {"file_path", input.at("path")}, {"old_string", old}, {"new_string", input.at("new_text")}};
        } else if (old.is_null() || old.is_string()) {
            out["tool_name"] = "Write";
            tool = {{"file_path", input.at("path")}, {"content", input.at("new_text")}};
        }
    } else if (name == "read_files") {
        if (const auto paths = pathsOf(input)) {
            out["tool_name"] = "read_many_files";
            tool = {{"paths", *paths}};
        }
    } else if (name == "search_codebase") {
        out["tool_name"] = "Grep";
        tool = input.is_object() ? input : json{{"queries", input}};
    } else if (name == "apply_patch") {
        if (input.is_string())
            tool = {{"input", input}};
        else if (input.is_object() && input.value("input", json()).is_string())
            tool = {{"input", input.at("input")}};
    }
    if (out["tool_name"] == name && tool.empty() && !*unasked)
        tool = {{"cline_input", input}};
    return out;
}

} // namespace

Result<json> translate(const json &payload, bool *unasked)
{
    *unasked = false;
    if (!payload.is_object())
        return failure(QStringLiteral("the hook payload is not a JSON object"));
    // Before a tool runs, its call; after, its result (the same id, name and input, and its output).
    const json hookName = payload.value("hookName", json());
    const bool after = hookName == "tool_result";
    if (hookName != "tool_call" && !after)
        return failure(QStringLiteral("Cline CLI's hook sent no tool call (hookName %1)")
                           .arg(QString::fromStdString(hookName.dump()).left(64)));
    const json call = payload.value(after ? "tool_result" : "tool_call", json());
    if (!call.is_object() || !call.value("name", json()).is_string())
        return failure(QStringLiteral("the hook payload's tool call has no name"));
    json out = toolOf(call.at("name").get<std::string>(), call.value("input", json()), unasked);
    out["hook_event_name"] = after ? "PostToolUse" : "PreToolUse";
    if (const json id = call.value("id", json()); id.is_string())
        out["tool_use_id"] = id;
    if (const json task = payload.value("taskId", json()); task.is_string())
        out["session_id"] = task;
    // Cline runs its tools in its first workspace root.
    if (const json roots = payload.value("workspaceRoots", json()); roots.is_array() && !roots.empty())
        out["cwd"] = roots.at(0);
    if (after)
        out["tool_response"] = {{"output", call.value("output", json())},
                                {"error", call.value("error", json())}};
    return out;
}

} // namespace Countersign::ClinePayload
