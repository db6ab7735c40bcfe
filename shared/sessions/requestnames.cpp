#include "requestnames.h"

#include "visibletext.h"

#include <QDir>
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
    QStringList named;     // the words resolved to absolute paths
    QStringList bareNames; // words with no slash: a file name
    for (const QString &word : wordsOf(request)) {
        QString path;
        if (word == QLatin1String("~") || word.startsWith(QLatin1String("~/")))
            path = home.isEmpty() ? QString() : home + word.mid(1);
        else if (word.startsWith(QLatin1Char('/')))
            path = word;
        else if (!cwd.isEmpty())
            path = cwd + QLatin1Char('/') + word;
        if (!path.isEmpty())
            named.append(QDir::cleanPath(path));
        if (!word.contains(QLatin1Char('/')))
            bareNames.append(word);
    }
    QStringList out;
    for (const QString &target : targets) {
        const QString path = QDir::cleanPath(target);
        const bool byPath =
            std::any_of(named.cbegin(), named.cend(), [&](const QString &n) { return within(path, n); });
        const QString file = path.section(QLatin1Char('/'), -1);
        const bool byName = !file.isEmpty() && bareNames.contains(file);
        if (!byPath && !byName)
            out.append(tilde(path, QDir::cleanPath(home)));
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
