#include "blastradiustext.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>

#include <optional>

namespace Countersign::BlastRadiusText {

namespace {

using nlohmann::json;

QString tr(const char *text)
{
    return QCoreApplication::translate("BlastRadiusText", text);
}

QString number(const json &value)
{
    if (value.is_number_integer())
        return QLocale().toString(value.get<qint64>());
    if (value.is_number_unsigned())
        return QLocale().toString(value.get<quint64>());
    return QLocale().toString(value.get<double>(), 'g', 6);
}

bool isOne(const json &value)
{
    return value.is_number() && value.get<double>() == 1.0;
}

// "1 file" or "2 files", the number in the locale's digits.
QString counted(const json &value, const char *one, const char *many)
{
    return (isOne(value) ? tr(one) : tr(many)).arg(number(value));
}

QString size(const json &value)
{
    return QLocale().formattedDataSize(value.get<qint64>());
}

// The keys a line was made of; any other key, or one of the kind below with a value of another
// type, gets a line of its own (otherLine), so nothing in the blast radius goes unshown.
using Used = QSet<QString>;

std::optional<qint64> integer(const json &blast, const char *key, Used &used)
{
    const auto it = blast.find(key);
    if (it == blast.end() || !it->is_number_integer())
        return std::nullopt;
    used.insert(QLatin1String(key));
    return it->get<qint64>();
}

std::optional<bool> flag(const json &blast, const char *key, Used &used)
{
    const auto it = blast.find(key);
    if (it == blast.end() || !it->is_boolean())
        return std::nullopt;
    used.insert(QLatin1String(key));
    return it->get<bool>();
}

QString textOf(const json &value)
{
    return value.is_string()
               ? QString::fromStdString(value.get<std::string>())
               : QString::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

// One entry of what an agent's destructive command would lose (the "measured" list the server
// made), in words: a line per entry, the detail beyond it in the card's prompt and diff.
QString measuredLine(const json &m)
{
    if (!m.is_object())
        return textOf(m);
    const std::string kind = m.value("kind", json("")).is_string() ? m.value("kind", std::string()) : "";
    const auto str = [&m](const char *key) {
        const auto it = m.find(key);
        return it != m.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
    };
    const auto num = [&m](const char *key) {
        const auto it = m.find(key);
        return it != m.end() && it->is_number_integer() ? it->get<qint64>() : qint64(0);
    };
    const auto list = [&m](const char *key) {
        const auto it = m.find(key);
        return it != m.end() && it->is_array() ? *it : json::array();
    };
    // A field of a list's entry, of the type asked or nothing: a plan command's output, or a row
    // written around the store, never throws here.
    const auto itemText = [](const json &item, const char *key) {
        const auto it = item.is_object() ? item.find(key) : item.end();
        return item.is_object() && it != item.end() && it->is_string()
                   ? QString::fromStdString(it->get<std::string>())
                   : QString();
    };
    const auto itemNumber = [](const json &item, const char *key) {
        const auto it = item.is_object() ? item.find(key) : item.end();
        return item.is_object() && it != item.end() && it->is_number_integer() ? it->get<qint64>()
                                                                               : qint64(0);
    };
    if (kind == "delete")
        return tr("deletes %1: %2, %3 (%4 git cannot bring back)")
            .arg(str("path"), counted(num("files"), "%1 file", "%1 files"), size(num("bytes")),
                 number(num("lostForGood")));
    if (kind == "discard") {
        QStringList files;
        for (const json &f : list("files")) {
            if (f.is_object())
                files.append(QStringLiteral("%1 (+%2 −%3)")
                                 .arg(itemText(f, "path"))
                                 .arg(itemNumber(f, "added"))
                                 .arg(itemNumber(f, "removed")));
        }
        return tr("discards uncommitted changes: %1")
            .arg(files.isEmpty() ? tr("none") : files.join(QStringLiteral(", ")));
    }
    if (kind == "clean") {
        QStringList files;
        for (const json &f : list("files"))
            files.append(textOf(f));
        return tr("git clean deletes: %1")
            .arg(files.isEmpty() ? tr("nothing") : files.join(QStringLiteral(", ")));
    }
    if (kind == "stash")
        return counted(json(list("stashes").size()), "drops %1 stash", "drops %1 stashes");
    if (kind == "branch")
        return tr("deletes the branch %1: %2 no other branch holds")
            .arg(str("branch"), counted(num("commits"), "%1 commit", "%1 commits"));
    if (kind == "write") {
        const auto exists = m.find("exists");
        if (exists != m.end() && exists->is_boolean() && !exists->get<bool>())
            return tr("creates %1").arg(str("path"));
        const auto replaces = m.find("replaces");
        const auto restorable = m.find("restorable");
        if (replaces == m.end() || !replaces->is_boolean() || !replaces->get<bool>())
            return tr("adds to %1 (%2 now)").arg(str("path"), counted(num("lines"), "%1 line", "%1 lines"));
        return tr("replaces %1: %2, %3 (%4)")
            .arg(str("path"), counted(num("lines"), "%1 line", "%1 lines"), size(num("bytes")),
                 restorable != m.end() && restorable->is_boolean() && restorable->get<bool>()
                     ? tr("git can bring it back")
                     : tr("git cannot bring it back"));
    }
    if (kind == "push") {
        QStringList targets;
        for (const json &t : list("targets")) {
            if (!t.is_object())
                continue;
            targets.append(
                tr("%1 %2/%3: %4 lost")
                    .arg(t.value("deleting", json(false)) == json(true) ? tr("deletes") : tr("overwrites"),
                         itemText(t, "remote"), itemText(t, "branch"),
                         counted(json(itemNumber(t, "commits")), "%1 commit", "%1 commits")));
        }
        return targets.join(QStringLiteral("; "));
    }
    return textOf(m);
}

// The facts of the workspace tools: files and their size, lines, what git can restore, moves,
// run_command's folder and pinned files.
void knownLines(const json &blast, QStringList &out, Used &used)
{
    const auto files = integer(blast, "files", used);
    const bool newFile = flag(blast, "newFile", used).value_or(false);
    const auto bytes = integer(blast, "bytes", used);
    QString first;
    if (files)
        first = newFile ? *files == 1 ? tr("a new file") : counted(*files, "%1 new file", "%1 new files")
                        : counted(*files, "%1 file", "%1 files");
    else if (newFile)
        first = tr("a new file");
    if (bytes)
        first = first.isEmpty() ? size(*bytes) : tr("%1, %2").arg(first, size(*bytes));
    if (!first.isEmpty())
        out.append(first);

    const auto added = integer(blast, "linesAdded", used);
    const auto removed = integer(blast, "linesRemoved", used);
    if (added && removed)
        out.append((*added == 1 ? tr("1 line added, %1 removed").arg(QLocale().toString(*removed))
                                : tr("%1 lines added, %2 removed")
                                      .arg(QLocale().toString(*added), QLocale().toString(*removed))));
    else if (added)
        out.append(counted(*added, "%1 line added", "%1 lines added"));
    else if (removed)
        out.append(counted(*removed, "%1 line removed", "%1 lines removed"));

    if (const auto untracked = integer(blast, "untracked", used))
        out.append(*untracked == 0 ? tr("no untracked files")
                                   : counted(*untracked, "%1 untracked file", "%1 untracked files"));
    if (const auto uncommitted = integer(blast, "uncommitted", used))
        out.append(*uncommitted == 0 ? tr("no uncommitted changes")
                                     : counted(*uncommitted, "%1 file with uncommitted changes",
                                               "%1 files with uncommitted changes"));
    if (const auto inGit = flag(blast, "inGitWorkTree", used))
        out.append(*inGit ? tr("inside a git work tree")
                          : tr("not in a git work tree: nothing can be restored"));

    const auto overwritten = integer(blast, "bytesOverwritten", used);
    if (const auto overwrites = flag(blast, "overwrites", used)) {
        if (!*overwrites)
            out.append(tr("overwrites nothing"));
        else if (overwritten && *overwritten > 0)
            out.append(tr("overwrites an existing file of %1").arg(size(*overwritten)));
        else
            out.append(tr("overwrites an existing file"));
    } else if (overwritten && *overwritten > 0) {
        out.append(tr("%1 overwritten").arg(size(*overwritten)));
    }

    if (const auto cwd = blast.find("cwd"); cwd != blast.end() && cwd->is_string()) {
        used.insert(QStringLiteral("cwd"));
        out.append(tr("runs in %1").arg(textOf(*cwd)));
    }
    if (const auto measured = blast.find("measured"); measured != blast.end() && measured->is_array()) {
        used.insert(QStringLiteral("measured"));
        for (const json &m : *measured)
            out.append(measuredLine(m));
    }
    // Whether an approved command that deletes or discards files can be undone.
    if (const auto undo = blast.find("undo"); undo != blast.end() && undo->is_object()) {
        const auto keptFiles = undo->find("files");
        const auto keptBytes = undo->find("bytes");
        const auto refused = undo->find("refused");
        if (keptFiles != undo->end() && keptFiles->is_number_integer() && keptBytes != undo->end() &&
            keptBytes->is_number_integer()) {
            used.insert(QStringLiteral("undo"));
            out.append(tr("undo: a copy of %1 (%2) is kept before it runs")
                           .arg(counted(*keptFiles, "%1 file", "%1 files"), size(*keptBytes)));
        } else if (refused != undo->end() && refused->is_string()) {
            used.insert(QStringLiteral("undo"));
            out.append(tr("undo: none, as %1").arg(textOf(*refused)));
        }
    }
    if (const auto pinned = blast.find("pinnedFiles"); pinned != blast.end() && pinned->is_object()) {
        used.insert(QStringLiteral("pinnedFiles"));
        QStringList paths;
        for (auto it = pinned->begin(); it != pinned->end(); ++it)
            paths.append(QString::fromStdString(it.key()));
        const json count = paths.size();
        QString line = counted(count, "%1 file pinned by its content", "%1 files pinned by their content");
        if (!paths.isEmpty())
            line += QStringLiteral(": ") + paths.mid(0, 5).join(QStringLiteral(", ")) +
                    (paths.size() > 5 ? QStringLiteral(", …") : QString());
        out.append(line);
    }
}

// Words of a key written in camelCase or snake_case ("dnsRecords": "DNS records", "volumeGB":
// "volume GB").
QStringList wordsOf(const QString &key)
{
    static const QRegularExpression word(QStringLiteral("[A-Z]{2,}s?(?![a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+"));
    static const QHash<QString, QString> acronyms = {
        {QStringLiteral("dns"), QStringLiteral("DNS")},   {QStringLiteral("ip"), QStringLiteral("IP")},
        {QStringLiteral("ips"), QStringLiteral("IPs")},   {QStringLiteral("url"), QStringLiteral("URL")},
        {QStringLiteral("urls"), QStringLiteral("URLs")}, {QStringLiteral("api"), QStringLiteral("API")},
        {QStringLiteral("apis"), QStringLiteral("APIs")}, {QStringLiteral("db"), QStringLiteral("DB")},
        {QStringLiteral("dbs"), QStringLiteral("DBs")},   {QStringLiteral("vm"), QStringLiteral("VM")},
        {QStringLiteral("vms"), QStringLiteral("VMs")},   {QStringLiteral("cpu"), QStringLiteral("CPU")},
        {QStringLiteral("cpus"), QStringLiteral("CPUs")}, {QStringLiteral("gpu"), QStringLiteral("GPU")},
        {QStringLiteral("gpus"), QStringLiteral("GPUs")}, {QStringLiteral("id"), QStringLiteral("ID")},
        {QStringLiteral("ids"), QStringLiteral("IDs")},   {QStringLiteral("iam"), QStringLiteral("IAM")},
        {QStringLiteral("tls"), QStringLiteral("TLS")},   {QStringLiteral("ssh"), QStringLiteral("SSH")},
        {QStringLiteral("sql"), QStringLiteral("SQL")},   {QStringLiteral("ttl"), QStringLiteral("TTL")},
        {QStringLiteral("kb"), QStringLiteral("KB")},     {QStringLiteral("mb"), QStringLiteral("MB")},
        {QStringLiteral("gb"), QStringLiteral("GB")},     {QStringLiteral("tb"), QStringLiteral("TB")},
        {QStringLiteral("kib"), QStringLiteral("KiB")},   {QStringLiteral("mib"), QStringLiteral("MiB")},
        {QStringLiteral("gib"), QStringLiteral("GiB")},   {QStringLiteral("tib"), QStringLiteral("TiB")},
    };
    QStringList words;
    for (auto it = word.globalMatch(key); it.hasNext();) {
        const QString w = it.next().captured();
        const QString lower = w.toLower();
        words.append(acronyms.value(lower, w.size() > 1 && w == w.toUpper() ? w : lower));
    }
    return words;
}

// The noun for one of it: "records" → "record", "policies" → "policy".
QString singular(const QString &noun)
{
    if (noun.endsWith(QLatin1String("ies")) && noun.size() > 3)
        return noun.chopped(3) + QLatin1Char('y');
    for (const char *suffix : {"sses", "shes", "ches", "xes"}) {
        if (noun.endsWith(QLatin1String(suffix)))
            return noun.chopped(2);
    }
    if (noun.endsWith(QLatin1Char('s')) && !noun.endsWith(QLatin1String("ss")))
        return noun.chopped(1);
    return noun;
}

// A plan command's own key, in words.
std::optional<QString> otherLine(const QString &key, const json &value)
{
    QStringList words = wordsOf(key);
    if (words.isEmpty() || value.is_null())
        return std::nullopt;
    if (value.is_boolean())
        return value.get<bool>() ? std::optional<QString>(words.join(QLatin1Char(' '))) : std::nullopt;
    const QString last = words.last().toLower();
    if (value.is_number()) {
        // A unit at the end goes before the rest: "volumeGB": 40 is "40 GB volume".
        static const QStringList sizes = {QStringLiteral("kb"),  QStringLiteral("mb"),  QStringLiteral("gb"),
                                          QStringLiteral("tb"),  QStringLiteral("kib"), QStringLiteral("mib"),
                                          QStringLiteral("gib"), QStringLiteral("tib")};
        static const QStringList times = {QStringLiteral("seconds"), QStringLiteral("minutes"),
                                          QStringLiteral("hours"), QStringLiteral("days")};
        if (last == QLatin1String("bytes") && value.is_number_integer() && words.size() > 1) {
            words.removeLast();
            return tr("%1 %2").arg(size(value), words.join(QLatin1Char(' ')));
        }
        if ((sizes.contains(last) || times.contains(last)) && words.size() > 1) {
            QString unit = words.takeLast();
            if (isOne(value) && times.contains(last))
                unit = singular(unit);
            return tr("%1 %2 %3").arg(number(value), unit, words.join(QLatin1Char(' ')));
        }
        // A plural noun is counted ("3 instances", "1 volume"); anything else is a value.
        if (last.endsWith(QLatin1Char('s')) && !last.endsWith(QLatin1String("ss"))) {
            if (isOne(value))
                words.last() = singular(words.last());
            return tr("%1 %2").arg(number(value), words.join(QLatin1Char(' ')));
        }
        return tr("%1: %2").arg(words.join(QLatin1Char(' ')), number(value));
    }
    if (value.is_array()) {
        QStringList items;
        for (const json &item : value)
            items.append(textOf(item));
        return tr("%1: %2").arg(words.join(QLatin1Char(' ')),
                                items.isEmpty() ? tr("none") : items.join(QStringLiteral(", ")));
    }
    return tr("%1: %2").arg(words.join(QLatin1Char(' ')), textOf(value));
}

} // namespace

QStringList lines(const json &blastRadius)
{
    QStringList out;
    if (!blastRadius.is_object())
        return out;
    // "irreversible" is in the risk's words wherever a blast radius is shown.
    Used used{QStringLiteral("irreversible")};
    knownLines(blastRadius, out, used);
    for (auto it = blastRadius.begin(); it != blastRadius.end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        if (used.contains(key))
            continue;
        if (auto line = otherLine(key, it.value()))
            out.append(*line);
    }
    return out;
}

QString text(const json &blastRadius)
{
    const QStringList all = lines(blastRadius);
    return all.isEmpty() ? tr("(nothing measured beyond the targets)") : all.join(QLatin1Char('\n'));
}

} // namespace Countersign::BlastRadiusText
