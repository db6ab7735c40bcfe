#include "claudesessionrecord.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign::ClaudeSessionRecord {

using json = nlohmann::json;

namespace {

constexpr qint64 kBlock = 64 * 1024;
// A line longer than this is never a request worth reading back (the tool payloads and API blobs
// Claude Code keeps are): passed over without parsing.
constexpr qsizetype kMaxLine = 1024 * 1024;

// The request a line holds, if it is one.
std::optional<QString> requestIn(const QByteArray &line, bool *lastPrompt)
{
    *lastPrompt = false;
    const bool user = line.contains("\"type\":\"user\"");
    const bool last = line.contains("\"type\":\"last-prompt\"");
    if ((!user && !last) || line.size() > kMaxLine)
        return std::nullopt;
    const json value = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
    if (!value.is_object())
        return std::nullopt;
    const json type = value.value("type", json());
    if (type == "last-prompt") {
        const json text = value.value("lastPrompt", json());
        *lastPrompt = true;
        return text.is_string() ? std::optional<QString>(QString::fromStdString(text.get<std::string>()))
                                : std::nullopt;
    }
    if (type != "user" || value.value("isMeta", json(false)) == json(true) || value.contains("toolUseResult"))
        return std::nullopt;
    const json message = value.value("message", json());
    if (!message.is_object() || message.value("role", json()) != "user")
        return std::nullopt;
    const json content = message.value("content", json());
    if (content.is_string())
        return QString::fromStdString(content.get<std::string>());
    if (!content.is_array())
        return std::nullopt;
    QStringList texts;
    for (const json &block : content) {
        if (!block.is_object())
            continue;
        if (block.value("type", json()) == "tool_result")
            return std::nullopt; // a tool's result, not the user's words
        if (block.value("type", json()) == "text" && block.value("text", json()).is_string())
            texts.append(QString::fromStdString(block.at("text").get<std::string>()));
    }
    if (texts.isEmpty())
        return std::nullopt;
    return texts.join(QLatin1Char('\n'));
}

} // namespace

Result<Request> lastRequest(const QString &path, qint64 maxBytes)
{
    // Opened as checked: a link or a pipe swapped in since is refused, and a pipe never blocks.
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return failure(
            QStringLiteral("cannot read %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno))));
    struct stat st = {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return failure(QStringLiteral("%1 is not a regular file").arg(path));
    }
    QFile file;
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    }
    const qint64 size = file.size();
    const qint64 floor = std::max<qint64>(0, size - maxBytes);
    qint64 at = size;
    QByteArray tail;                 // the start of the line that runs on into what was read already
    std::optional<QString> fallback; // the last-prompt line's, when no user line is found
    while (at > floor) {
        const qint64 from = std::max(floor, at - kBlock);
        if (!file.seek(from))
            return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        QByteArray block = file.read(at - from);
        if (block.size() != at - from)
            return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        at = from;
        block += tail;
        // Every whole line in block, last first; what precedes its first newline may run on.
        qsizetype end = block.size();
        for (qsizetype nl = block.lastIndexOf('\n', end - 1); nl >= 0;
             nl = block.lastIndexOf('\n', end - 1)) {
            bool isLast = false;
            if (auto found = requestIn(block.mid(nl + 1, end - nl - 1), &isLast)) {
                if (!isLast)
                    return Request{*found, false};
                if (!fallback)
                    fallback = found;
            }
            end = nl;
            if (end == 0)
                break;
        }
        tail = block.left(end);
        if (tail.size() > kMaxLine)
            tail = QByteArray(); // a line too long to be a request: its rest is passed over too
    }
    if (at == 0 && !tail.isEmpty()) { // the file's first line
        bool isLast = false;
        if (auto found = requestIn(tail, &isLast); found && !isLast)
            return Request{*found, false};
        else if (found && !fallback)
            fallback = found;
    }
    return Request{fallback.value_or(QString()), at > 0};
}

Status checkPath(const QString &path, const QString &session)
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
    if (!claude.cdUp() || QFileInfo(claude.path()).fileName() != QLatin1String(".claude"))
        return failure(QStringLiteral("the session record is not in Claude Code's folder"));
    return success();
}

} // namespace Countersign::ClaudeSessionRecord
