#include "patchtext.h"

#include <QRegularExpression>
#include <QStringList>

namespace Countersign::Shell::PatchTextReader {

namespace {

const QString kQuoted =
    QStringLiteral("the patch names a file in quotes, which Countersign does not unescape");

// A header's path without its timestamp ("--- a/x\t2024-01-01 ..."); empty for /dev/null and,
// for GNU patch, for a timestamp at the epoch (how diff says a file is absent).
QString headerPath(const QString &field, Form form, QString *unreadable)
{
    const QString path = field.section(QLatin1Char('\t'), 0, 0).trimmed();
    const QString stamp = field.section(QLatin1Char('\t'), 1);
    if (path.startsWith(QLatin1Char('"')))
        *unreadable = kQuoted;
    if (form == Form::Gnu &&
        (stamp.contains(QLatin1String("1970-01-01")) || stamp.contains(QLatin1String("1969-12-31"))))
        return {};
    return path == QLatin1String("/dev/null") ? QString() : path;
}

// The counts of "@@ -a,b +c,d @@" (a count left out is 1); false when the line is not one.
bool hunkCounts(const QString &line, int *oldCount, int *newCount)
{
    static const QRegularExpression hunk(QStringLiteral("^@@ -\\d+(?:,(\\d+))? \\+\\d+(?:,(\\d+))? @@"));
    const auto m = hunk.match(line);
    if (!m.hasMatch())
        return false;
    *oldCount = m.captured(1).isEmpty() ? 1 : m.captured(1).toInt();
    *newCount = m.captured(2).isEmpty() ? 1 : m.captured(2).toInt();
    return true;
}

// A mode of git's headers: false when it is not a regular file or a link (a submodule's
// gitlink, a folder, a number that is not octal).
bool readMode(const QString &text, bool *link)
{
    bool ok = false;
    const int mode = text.trimmed().toInt(&ok, 8);
    const int type = mode & 0170000;
    *link = type == 0120000;
    return ok && (type == 0100000 || type == 0120000);
}

// git am's mails: each one's patch, its message left out (git takes a patch from the first line
// that starts "diff -", "Index: " or "---"); a mail git decodes first is not read.
QString mailPatches(const QString &text, QString *unreadable)
{
    static const QRegularExpression encoded(
        QStringLiteral("^(content-transfer-encoding:\\s*(quoted-printable|base64)|content-type:\\s*multipart|"
                       "# This series applies on GIT commit)"),
        QRegularExpression::MultilineOption | QRegularExpression::CaseInsensitiveOption);
    if (encoded.match(text).hasMatch()) {
        *unreadable =
            QStringLiteral("the mail is encoded (or a series), as git am decodes it before it applies it");
        return {};
    }
    QStringList out;
    bool inPatch = false;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("From "))) {
            inPatch = false;
            continue;
        }
        if (!inPatch && (line.startsWith(QLatin1String("diff -")) ||
                         line.startsWith(QLatin1String("Index: ")) || line.startsWith(QLatin1String("---"))))
            inPatch = true;
        if (inPatch)
            out.append(line);
    }
    return out.join(QLatin1Char('\n'));
}

// The hunk's own lines after its "@@" line, lines[i], by its counts; a line of another form ends it
// early. i moves to the last of them.
void skipHunkLines(const QStringList &lines, qsizetype &i, int oldCount, int newCount)
{
    while ((oldCount > 0 || newCount > 0) && i + 1 < lines.size()) {
        const QString &next = lines.at(i + 1);
        const QChar first = next.isEmpty() ? QLatin1Char(' ') : next.at(0);
        if (first == QLatin1Char(' '))
            --oldCount, --newCount;
        else if (first == QLatin1Char('-'))
            --oldCount;
        else if (first == QLatin1Char('+'))
            --newCount;
        else if (first != QLatin1Char('\\'))
            break;
        ++i;
    }
}

// One line of git's extended headers, lines[i], read into current (after "GIT binary patch", i moves
// past its blocks). Returns why the patch cannot be read (a header this reader does not know, a mode
// that is neither a file nor a link, a quoted name), else empty; a blank line is passed over.
QString readGitHeader(const QStringList &lines, qsizetype &i, PatchFile &current)
{
    static const QSet<QString> knownGitHeaders = {QStringLiteral("index "),
                                                  QStringLiteral("similarity index "),
                                                  QStringLiteral("dissimilarity index "),
                                                  QStringLiteral("old mode "),
                                                  QStringLiteral("new mode "),
                                                  QStringLiteral("new file mode "),
                                                  QStringLiteral("deleted file mode "),
                                                  QStringLiteral("rename from "),
                                                  QStringLiteral("rename to "),
                                                  QStringLiteral("rename old "),
                                                  QStringLiteral("rename new "),
                                                  QStringLiteral("copy from "),
                                                  QStringLiteral("copy to "),
                                                  QStringLiteral("Binary files "),
                                                  QStringLiteral("GIT binary patch")};
    const QString &line = lines.at(i);
    const auto header = std::find_if(knownGitHeaders.cbegin(), knownGitHeaders.cend(),
                                     [&line](const QString &h) { return line.startsWith(h); });
    if (header == knownGitHeaders.cend()) {
        if (line.trimmed().isEmpty())
            return {};
        return QStringLiteral("the patch holds a header line Countersign does not know (%1)")
            .arg(line.left(60));
    }
    const QString value = line.mid(header->size()).trimmed();
    bool link = false;
    if (header->endsWith(QLatin1String("mode ")) && !readMode(value, &link))
        return QStringLiteral("the patch gives a mode that is neither a file nor a link (%1)").arg(value);
    current.link = current.link || link;
    if (*header == QLatin1String("new file mode "))
        current.oldPath.clear();
    else if (*header == QLatin1String("deleted file mode "))
        current.newPath.clear();
    else if (header->startsWith(QLatin1String("rename ")) || header->startsWith(QLatin1String("copy "))) {
        if (value.startsWith(QLatin1Char('"')))
            return kQuoted;
        const bool from = header->endsWith(QLatin1String("from ")) || header->endsWith(QLatin1String("old "));
        if (!current.renamed) // the diff --git names were prefixed; these are not
            current.oldPath = current.newPath = QString();
        current.renamed = true;
        (from ? current.oldPath : current.newPath) = value;
    } else if (*header == QLatin1String("GIT binary patch")) {
        // literal/delta blocks of base85 lines, each ended by a blank line.
        for (int block = 0; block < 2 && i + 1 < lines.size(); ++block) {
            if (!lines.at(i + 1).startsWith(QLatin1String("literal ")) &&
                !lines.at(i + 1).startsWith(QLatin1String("delta ")))
                break;
            ++i;
            while (i + 1 < lines.size() && !lines.at(i + 1).isEmpty())
                ++i;
            ++i;
        }
    }
    return {};
}

} // namespace

PatchText parse(const QString &input, Form form)
{
    PatchText out;
    const QString text = form == Form::Mail ? mailPatches(input, &out.unreadable) : input;
    if (!out.unreadable.isEmpty())
        return out;
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString &line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    }
    // Outside a hunk, a line that looks like a header, a context, normal or ed diff, in a form the
    // headers below do not read (indented, prefixed, alone): GNU patch may still take it.
    static const QRegularExpression lookalike(
        QStringLiteral("^([\\sX]|- )*(---|\\+\\+\\+|\\*\\*\\*|Index:|Prereq:|diff\\s|@@|={4,})|"
                       "^\\s*\\d+(,\\d+)?[acdi](\\d+(,\\d+)?)?\\s*$"));
    bool open = false; // a file's headers are being read (before its first hunk)
    bool git = false;  // ... and they began with "diff --git"
    PatchFile current;
    const auto finish = [&]() {
        if (open && (!current.oldPath.isEmpty() || !current.newPath.isEmpty()))
            out.files.append(current);
        open = git = false;
        current = PatchFile{};
    };
    const auto fail = [&out](const QString &why) {
        out.unreadable = why;
        return out;
    };
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        int oldCount = 0, newCount = 0;
        if (hunkCounts(line, &oldCount, &newCount)) {
            finish();
            skipHunkLines(lines, i, oldCount, newCount);
            continue;
        }
        if (line.startsWith(QLatin1String("diff --git "))) {
            finish();
            open = git = true;
            const QString names = line.mid(11);
            if (names.contains(QLatin1Char('"')))
                return fail(kQuoted);
            // "a/X b/Y": where the names hold " b/" themselves, the headers after it say.
            const qsizetype split = names.indexOf(QLatin1String(" b/"));
            current.oldPath = split < 0 ? names : names.left(split);
            current.newPath = split < 0 ? names : names.mid(split + 1);
            continue;
        }
        if (line.startsWith(QLatin1String("--- ")) && i + 1 < lines.size() &&
            lines.at(i + 1).startsWith(QLatin1String("+++ "))) {
            if (!git)
                finish();
            open = true;
            if (!current.renamed) { // a renamed file's names are its "rename" lines'
                current.oldPath = headerPath(line.mid(4), form, &out.unreadable);
                current.newPath = headerPath(lines.at(i + 1).mid(4), form, &out.unreadable);
            }
            if (!out.unreadable.isEmpty())
                return out;
            // GNU patch ends a name at its first blank when no tab follows it: both are judged.
            for (const QString &name : {current.oldPath, current.newPath}) {
                if (form == Form::Gnu && name.contains(QLatin1Char(' ')))
                    out.files.append(PatchFile{name.section(QLatin1Char(' '), 0, 0),
                                               name.section(QLatin1Char(' '), 0, 0), false, false});
            }
            ++i;
            continue;
        }
        if (line.startsWith(QLatin1String("Index: "))) { // GNU patch may take this name
            const QString name = line.mid(7).trimmed();
            out.files.append(PatchFile{name, name, false, false});
            continue;
        }
        if (open && git) {
            if (const QString why = readGitHeader(lines, i, current); !why.isEmpty())
                return fail(why);
            continue;
        }
        if (lookalike.match(line).hasMatch() && line != QLatin1String("---") && line != QLatin1String("-- "))
            return fail(
                QStringLiteral("the patch holds a line that looks like a header in a form Countersign "
                               "does not read (%1)")
                    .arg(line.left(60)));
    }
    finish();
    if (out.files.isEmpty() && out.unreadable.isEmpty() && !text.trimmed().isEmpty())
        out.unreadable = QStringLiteral("the patch names no file Countersign can read");
    return out;
}

} // namespace Countersign::Shell::PatchTextReader
