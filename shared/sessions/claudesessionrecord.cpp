#include "claudesessionrecord.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign::ClaudeSessionRecord {

using json = nlohmann::json;

namespace {

constexpr qint64 kBlock = 64 * 1024;
// A line longer than this is never parsed (the tool payloads and API blobs Claude Code keeps are
// longer): a chain that runs through one is not followed, and no request is shown.
constexpr qsizetype kMaxLine = 256 * 1024;
// How many lines the chain from the call back to the request may take.
constexpr int kMaxSteps = 4096;

bool startsWithAny(const QString &text, std::initializer_list<const char *> prefixes)
{
    const QString trimmed = text.trimmed();
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&trimmed](const char *p) { return trimmed.startsWith(QLatin1String(p)); });
}

// The user's own words a parsed "user" line holds; nothing for a tool's result, the client's own
// lines (isMeta, a compacted summary, a task's notification, a command's output, an interruption).
std::optional<QString> userWords(const json &value)
{
    if (value.value("type", json()) != "user" || value.value("isMeta", json(false)) == json(true) ||
        value.value("isCompactSummary", json(false)) == json(true) || value.contains("toolUseResult"))
        return std::nullopt;
    const json message = value.value("message", json());
    if (!message.is_object() || message.value("role", json()) != "user")
        return std::nullopt;
    const json content = message.value("content", json());
    QString text;
    if (content.is_string()) {
        text = QString::fromStdString(content.get<std::string>());
    } else if (content.is_array()) {
        QStringList texts;
        for (const json &block : content) {
            if (!block.is_object())
                continue;
            if (block.value("type", json()) == "tool_result")
                return std::nullopt;
            if (block.value("type", json()) == "text" && block.value("text", json()).is_string())
                texts.append(QString::fromStdString(block.at("text").get<std::string>()));
        }
        text = texts.join(QLatin1Char('\n'));
    }
    if (text.trimmed().isEmpty() || startsWithAny(text, {"<", "[Request interrupted"}))
        return std::nullopt;
    return text;
}

// Whether a parsed "assistant" line holds the tool call of this id.
bool callsTool(const json &value, const std::string &toolUseId)
{
    const json message = value.value("message", json());
    const json content = message.is_object() ? message.value("content", json()) : json();
    if (value.value("type", json()) != "assistant" || !content.is_array())
        return false;
    return std::any_of(content.begin(), content.end(), [&toolUseId](const json &block) {
        return block.is_object() && block.value("type", json()) == "tool_use" &&
               block.value("id", json()) == toolUseId;
    });
}

// Opens path as checkPath saw it: every folder on the way opened in turn with no link followed
// (a folder swapped for a link since is refused), the file itself a regular file (a pipe never
// blocks: it is opened without waiting, then refused).
int openUnlinked(const QString &path)
{
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    int dir = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (qsizetype i = 0; dir >= 0 && i < parts.size(); ++i) {
        const QByteArray name = QFile::encodeName(parts[i]);
        const bool last = i + 1 == parts.size();
        const int next = ::openat(dir, name.constData(),
                                  last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
                                       : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        ::close(dir);
        dir = next;
    }
    struct stat st = {};
    if (dir >= 0 && (::fstat(dir, &st) != 0 || !S_ISREG(st.st_mode))) {
        ::close(dir);
        errno = EINVAL;
        return -1;
    }
    return dir;
}

} // namespace

Result<Request> requestBehind(const QString &path, const QString &toolUseId, qint64 maxBytes)
{
    const int fd = openUnlinked(path);
    if (fd < 0)
        return failure(QStringLiteral("cannot read %1 as a plain file: %2")
                           .arg(path, QString::fromLocal8Bit(std::strerror(errno))));
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    }
    if (toolUseId.isEmpty())
        return Request{};
    const std::string callId = toolUseId.toStdString();
    const QByteArray callNeedle = "\"id\":\"" + toolUseId.toUtf8() + '"';
    QByteArray wanted;        // the uuid of the next line up the chain; empty until the call is found
    QSet<QByteArray> visited; // the chain's uuids: one seen twice makes the record ambiguous
    bool ambiguous = false;
    std::optional<QString> found;
    // Whether the line's own uuid is one of the chain's: each uuid it names is looked up (one pass
    // over the line, whatever the chain's length), and the line is parsed only to confirm one.
    const auto seenAgain = [&visited](const QByteArray &line) -> bool {
        static const QByteArray key = "\"uuid\":\"";
        if (line.size() > kMaxLine)
            return false;
        for (qsizetype at = line.indexOf(key); at >= 0; at = line.indexOf(key, at + key.size())) {
            const qsizetype start = at + key.size();
            const qsizetype end = line.indexOf('"', start);
            if (end < 0)
                return false;
            if (!visited.contains(line.mid(start, end - start)))
                continue;
            const json value = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
            const json own = value.is_object() ? value.value("uuid", json()) : json();
            return own.is_string() && visited.contains(QByteArray::fromStdString(own.get<std::string>()));
        }
        return false;
    };
    // One line, read backwards: the call's line first, then each parent up to the user's words;
    // once they are found, every earlier line is looked at for a uuid of the chain seen again (a
    // line written to stand in for one of the chain's).
    const auto take = [&](const QByteArray &line) {
        if (found) {
            ambiguous = ambiguous || seenAgain(line);
            return;
        }
        if (line.size() > kMaxLine)
            return;
        if (wanted.isEmpty() ? !line.contains(callNeedle) : !line.contains("\"uuid\":\"" + wanted + '"'))
            return;
        const json value = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (!value.is_object())
            return;
        if (wanted.isEmpty() ? !callsTool(value, callId)
                             : value.value("uuid", json()) != json(wanted.toStdString()))
            return;
        const json uuid = value.value("uuid", json());
        const QByteArray self =
            uuid.is_string() ? QByteArray::fromStdString(uuid.get<std::string>()) : QByteArray();
        if (self.isEmpty() || visited.contains(self) || self.contains('"') || self.contains('\\')) {
            ambiguous = true;
            found = QString();
            return;
        }
        visited.insert(self);
        if (!wanted.isEmpty())
            if (auto words = userWords(value)) {
                found = std::move(words);
                return;
            }
        const json parent = value.value("parentUuid", json());
        wanted = parent.is_string() && visited.size() < kMaxSteps
                     ? QByteArray::fromStdString(parent.get<std::string>())
                     : QByteArray();
        if (wanted.isEmpty() || wanted.contains('"') || wanted.contains('\\'))
            found = QString(); // the chain ends with no words of the user's
    };
    const qint64 size = file.size();
    const qint64 floor = std::max<qint64>(0, size - maxBytes);
    qint64 at = size;
    QByteArray tail;       // the end of a line whose start is still to be read
    bool skipping = false; // that line is too long to read: what is left of it is passed over
    while (at > floor && !ambiguous) {
        const qint64 from = std::max(floor, at - kBlock);
        if (!file.seek(from))
            return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        QByteArray block = file.read(at - from);
        if (block.size() != at - from)
            return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        at = from;
        if (!skipping)
            block += tail;
        // Every whole line in block, last first; what precedes its first newline may run on.
        qsizetype end = block.size();
        bool first = true;
        for (qsizetype nl = block.lastIndexOf('\n', end - 1); nl >= 0 && !ambiguous;
             nl = end > 0 ? block.lastIndexOf('\n', end - 1) : -1) {
            if (!(first && skipping))
                take(block.mid(nl + 1, end - nl - 1));
            first = false;
            end = nl;
        }
        if (!first)
            skipping = false; // the long line started in this block
        if (end > kMaxLine)
            skipping = true;
        tail = skipping ? QByteArray() : block.left(end);
    }
    if (at == 0 && !skipping && !tail.isEmpty() && !ambiguous)
        take(tail); // the file's first line
    if (ambiguous)
        return Request{QString(), false};
    return Request{found.value_or(QString()), !found && at > 0};
}

Status checkPath(const QString &path, const QString &session, const QStringList &claudeFolders)
{
    static const QRegularExpression sessionId(QStringLiteral("^[A-Za-z0-9_-]{1,128}$"));
    if (!sessionId.match(session).hasMatch())
        return failure(QStringLiteral("the hook names no session this record could be of"));
    const QFileInfo info(path);
    if (!info.isAbsolute() || QDir::cleanPath(path) != path)
        return failure(QStringLiteral("the session record's path is not a plain absolute path"));
    if (info.isSymLink() || !info.isFile())
        return failure(QStringLiteral("the session record is not a regular file"));
    if (info.fileName() != session + QStringLiteral(".jsonl"))
        return failure(QStringLiteral("the session record is not named for the hook's session"));
    const QString canonical = info.canonicalFilePath();
    if (canonical.isEmpty() || canonical != path)
        return failure(QStringLiteral("the session record's folder is reached through a link"));
    const QDir project = info.dir();
    QDir projects = project;
    if (!projects.cdUp() || QFileInfo(projects.path()).fileName() != QLatin1String("projects"))
        return failure(QStringLiteral("the session record is not in a projects folder"));
    QDir claude = projects;
    const bool ours =
        claude.cdUp() && std::any_of(claudeFolders.cbegin(), claudeFolders.cend(), [&](const QString &f) {
            const QString folder = QFileInfo(f).canonicalFilePath();
            return !folder.isEmpty() && folder == claude.path();
        });
    if (!ours)
        return failure(QStringLiteral("the session record is not in this user's Claude Code folder"));
    return success();
}

QStringList claudeFolders()
{
    QStringList folders{QDir::homePath() + QStringLiteral("/.claude")};
    if (const QString configured = qEnvironmentVariable("CLAUDE_CONFIG_DIR");
        QDir::isAbsolutePath(configured))
        folders.append(QDir::cleanPath(configured));
    return folders;
}

} // namespace Countersign::ClaudeSessionRecord
