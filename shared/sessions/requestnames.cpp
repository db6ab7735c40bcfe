#include "requestnames.h"

#include "visibletext.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace Countersign::RequestNames {

namespace {

// The request's words that could name a path: split at white space and at the quotes, brackets
// and punctuation a path is written between, with a trailing full stop, comma, colon or
// semicolon dropped.
QStringList wordsOf(const QString &request)
{
    static const QRegularExpression splitter(QStringLiteral("[\\s\"'`()\\[\\]{}<>]+"));
    QStringList words;
    for (QString word : request.split(splitter, Qt::SkipEmptyParts)) {
        while (!word.isEmpty() && QStringLiteral(".,:;!?").contains(word.back()) &&
               word != QLatin1String(".") && word != QLatin1String(".."))
            word.chop(1);
        if (!word.isEmpty())
            words.append(word);
    }
    return words;
}

bool within(const QString &path, const QString &folder)
{
    return path == folder || (folder == QLatin1String("/") && path.startsWith(QLatin1Char('/'))) ||
           path.startsWith(folder + QLatin1Char('/'));
}

QString tilde(const QString &path, const QString &home)
{
    if (!home.isEmpty() && within(path, home))
        return path == home ? QStringLiteral("~") : QStringLiteral("~") + path.mid(home.size());
    return path;
}

} // namespace

QStringList unnamed(const QString &request, const QStringList &targets, const QString &cwd,
                    const QString &home)
{
    static const QRegularExpression onlyMarks(QStringLiteral("^[./~]*$"));
    const QString homeFolder = QDir::cleanPath(home);
    QStringList named;     // the words resolved to absolute paths
    QStringList bareNames; // words with no slash: a file name in the call's folder
    for (const QString &word : wordsOf(request)) {
        if (onlyMarks.match(word).hasMatch())
            continue; // ".", "..", "...", "/", "~": a folder so wide it names nothing in particular
        QString path;
        if (word.startsWith(QLatin1String("~/")))
            path = homeFolder.isEmpty() ? QString() : homeFolder + word.mid(1);
        else if (word.startsWith(QLatin1Char('/')))
            path = word;
        else if (!cwd.isEmpty() && !word.startsWith(QLatin1Char('~')))
            path = cwd + QLatin1Char('/') + word;
        path = path.isEmpty() ? QString() : QDir::cleanPath(path);
        if (!path.isEmpty() && path != QLatin1String("/") && path != homeFolder)
            named.append(path);
        if (!word.contains(QLatin1Char('/')))
            bareNames.append(word);
    }
    QStringList out;
    for (const QString &target : targets) {
        // Where it really is: its folder with links resolved (a path through a linked folder is
        // the link's target's), its own name as it is (a link itself is the link).
        QString path = QDir::cleanPath(target);
        const QString folder = QFileInfo(QFileInfo(path).path()).canonicalFilePath();
        if (!folder.isEmpty())
            path = QDir::cleanPath(folder + QLatin1Char('/') + QFileInfo(path).fileName());
        const bool byPath =
            std::any_of(named.cbegin(), named.cend(), [&](const QString &n) { return within(path, n); });
        const QString file = path.section(QLatin1Char('/'), -1);
        const bool byName = !file.isEmpty() && !cwd.isEmpty() && within(path, QDir::cleanPath(cwd)) &&
                            bareNames.contains(file);
        if (!byPath && !byName)
            out.append(tilde(path, homeFolder));
    }
    return out;
}

QString shown(const QString &request, qsizetype maxChars)
{
    QString text = visibleText(request).simplified();
    if (text.size() > maxChars)
        text = text.left(maxChars - 1) + QChar(0x2026);
    return text;
}

} // namespace Countersign::RequestNames
