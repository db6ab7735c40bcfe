#include "configfile.h"

#include "config.h"

#include <QFile>
#include <QSaveFile>

namespace Countersign::ConfigFile {

namespace {

struct Span
{
    qsizetype valueStart = -1;
    qsizetype valueEnd = -1;
};

// Skips a string starting at i (on the opening quote); returns the index after the closing quote.
qsizetype skipString(const QByteArray &t, qsizetype i)
{
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\')
            ++i;
        else if (t[i] == '"')
            return i + 1;
    }
    return t.size();
}

// Skips a comment starting at i, if there is one; returns i unchanged otherwise.
qsizetype skipComment(const QByteArray &t, qsizetype i)
{
    if (i + 1 >= t.size() || t[i] != '/')
        return i;
    if (t[i + 1] == '/') {
        const qsizetype end = t.indexOf('\n', i);
        return end < 0 ? t.size() : end;
    }
    if (t[i + 1] == '*') {
        const qsizetype end = t.indexOf("*/", i + 2);
        return end < 0 ? t.size() : end + 2;
    }
    return i;
}

// Finds where the value of a top-level key starts and ends (comments and strings understood).
std::optional<Span> findTopLevel(const QByteArray &t, const QByteArray &key)
{
    int depth = 0;
    std::optional<Span> found;
    bool expectKey = false;
    QByteArray lastKey;
    for (qsizetype i = 0; i < t.size();) {
        if (const qsizetype c = skipComment(t, i); c != i) {
            i = c;
            continue;
        }
        const char ch = t[i];
        if (ch == '"') {
            const qsizetype end = skipString(t, i);
            if (depth == 1 && expectKey)
                lastKey = t.mid(i + 1, end - i - 2);
            i = end;
            continue;
        }
        if (ch == '{' || ch == '[') {
            ++depth;
            expectKey = depth == 1 && ch == '{';
        } else if (ch == '}' || ch == ']') {
            if (depth == 1 && found && found->valueEnd < 0)
                found->valueEnd = i;
            --depth;
        } else if (depth == 1 && ch == ':') {
            expectKey = false;
            if (lastKey == key && !found)
                found = Span{i + 1, -1};
        } else if (depth == 1 && ch == ',') {
            if (found && found->valueEnd < 0)
                found->valueEnd = i;
            expectKey = true;
        }
        ++i;
    }
    if (found && found->valueEnd >= 0) {
        // Trim the whitespace (not the comments) around the value.
        while (found->valueStart < found->valueEnd &&
               QByteArrayView(" \t\r\n").contains(t[found->valueStart]))
            ++found->valueStart;
        while (found->valueEnd > found->valueStart &&
               QByteArrayView(" \t\r\n").contains(t[found->valueEnd - 1]))
            --found->valueEnd;
        return found;
    }
    return std::nullopt;
}

// The indentation of the line that holds position i.
QByteArray indentAt(const QByteArray &t, qsizetype i)
{
    const qsizetype lineStart = t.lastIndexOf('\n', i - 1) + 1;
    qsizetype end = lineStart;
    while (end < t.size() && (t[end] == ' ' || t[end] == '\t'))
        ++end;
    return t.mid(lineStart, end - lineStart);
}

// A value as a person would write it under a key indented by indent: scalars on one line, lists
// and objects one member per line.
QByteArray encodedAt(const nlohmann::json &value, const QByteArray &indent)
{
    if (!value.is_structured() || value.empty())
        return QByteArray::fromStdString(value.dump());
    QByteArray text = QByteArray::fromStdString(value.dump(2));
    text.replace("\n", "\n" + indent);
    return text;
}

} // namespace

Result<QByteArray> setTopLevel(const QByteArray &text, const QString &key, const nlohmann::json &value)
{
    const QByteArray source = text.trimmed().isEmpty() ? QByteArray("{}\n") : text;
    QByteArray out = source;
    if (const auto span = findTopLevel(source, key.toUtf8())) {
        const QByteArray indent = indentAt(source, span->valueStart);
        const QByteArray current = source.mid(span->valueStart, span->valueEnd - span->valueStart);
        const nlohmann::json was =
            nlohmann::json::parse(current.cbegin(), current.cend(), nullptr, false, true);
        // A list that only grows (a rule added) keeps what is there, comments and layout included:
        // the new members go before its closing bracket.
        if (was.is_array() && value.is_array() && value.size() > was.size() && !was.empty() &&
            std::equal(was.cbegin(), was.cend(), value.cbegin()) && current.endsWith(']')) {
            QByteArray added;
            for (auto it = value.cbegin() + qsizetype(was.size()); it != value.cend(); ++it)
                added += ",\n" + indent + "  " + encodedAt(*it, indent + "  ");
            // Right after the last member's own text (before a comment or a line break that follows it).
            qsizetype after = 0;
            for (qsizetype i = 0; i + 1 < current.size();) {
                if (const qsizetype c = skipComment(current, i); c != i) {
                    i = c;
                    continue;
                }
                if (current[i] == '"') {
                    i = skipString(current, i);
                    after = i;
                    continue;
                }
                if (!QByteArrayView(" \t\r\n").contains(current[i]))
                    after = i + 1;
                ++i;
            }
            out.replace(span->valueStart, current.size(), current.left(after) + added + current.mid(after));
        } else {
            out.replace(span->valueStart, span->valueEnd - span->valueStart, encodedAt(value, indent));
        }
    } else {
        const QByteArray encoded = encodedAt(value, "  ");
        qsizetype brace = -1;
        for (qsizetype i = 0; i < source.size() && brace < 0;) {
            if (const qsizetype c = skipComment(source, i); c != i) {
                i = c;
                continue;
            }
            if (source[i] == '{')
                brace = i;
            ++i;
        }
        if (brace < 0)
            return failure(QStringLiteral("the configuration is not a JSON object"));
        const qsizetype close = source.indexOf('}', brace);
        const bool empty = close >= 0 && source.mid(brace + 1, close - brace - 1).trimmed().isEmpty();
        const QByteArray entry = "\n  \"" + key.toUtf8() + "\": " + encoded + (empty ? "\n" : ",");
        out.insert(brace + 1, entry);
    }
    if (auto parsed = Config::parse(out, QStringLiteral("config")); !parsed)
        return failure(parsed.error());
    return out;
}

Status update(const QString &path, const nlohmann::json &changes)
{
    QByteArray text;
    if (QFile file(path); file.exists()) {
        if (!file.open(QIODevice::ReadOnly))
            return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        text = file.readAll();
    }
    for (auto it = changes.begin(); it != changes.end(); ++it) {
        auto changed = setTopLevel(text, QString::fromStdString(it.key()), it.value());
        if (!changed)
            return failure(changed.error());
        text = changed.value();
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    return success();
}

} // namespace Countersign::ConfigFile
