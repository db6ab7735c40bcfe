// pip, pip3, pipx, uv pip, poetry, pdm, conda (ProjectTools::pip, projecttools.h): what is only
// read, what leaves the machine, and what installs from the project's own pins as committed.
#include "projecttools.h"

#include "argtools.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::ProjectTools {

using namespace ArgTools;

bool pip(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const int at = subcommandIndex(args);
    const QString sub = at < 0 ? QString() : args.at(at).text;
    static const QStringList reads =
        words({"list", "show", "freeze", "check", "help", "inspect", "debug", "hash", "cache"});
    // An index or a proxy named on the line: what it asks leaves the machine for that host.
    const auto remote = std::find_if(args.cbegin() + 1, args.cend(), [](const Arg &a) {
        // pip takes any unambiguous start of a long option (--extra-index for --extra-index-url).
        static const QStringList longs = words({"--index-url", "--extra-index-url", "--find-links", "--proxy",
                                                "--index", "--outdated", "--uptodate"});
        const QString name = a.text.section(QLatin1Char('='), 0, 0);
        if (name.startsWith(QLatin1String("--")) && name.size() > 4)
            return std::any_of(longs.cbegin(), longs.cend(),
                               [&name](const QString &l) { return l.startsWith(name); });
        return a.text.startsWith(QLatin1String("-i")) || a.text == QLatin1String("-f") ||
               (isOptionCluster(a) &&
                (a.text.contains(QLatin1Char('o')) || a.text.contains(QLatin1Char('u'))));
    });
    if ((reads.contains(sub) || sub.isEmpty()) && remote != args.cend()) {
        c.add(Effect::Kind::Network,
              QStringLiteral("%1 %2 %3 asks an index on another host").arg(program, sub, remote->text));
        return true;
    }
    if (reads.contains(sub) || sub.isEmpty()) {
        c.add(Effect::Kind::Reads, QStringLiteral("%1 %2 reads the installed packages").arg(program, sub));
        return true;
    }
    if (sub == QLatin1String("uninstall")) {
        c.add(Effect::Kind::Installs, QStringLiteral("%1 uninstall removes packages").arg(program));
        return true;
    }
    // pip install -r FILE, pip install -e . (the project itself): what the project's own files name,
    // while they are as committed. A package named, an index, a target or a user or system-wide
    // place asks.
    if (sub == QLatin1String("install") &&
        (program == QLatin1String("pip") || program == QLatin1String("pip3") ||
         program == QLatin1String("uv pip"))) {
        static const QStringList harmless = words(
            {"-q", "--quiet", "-v", "--verbose", "-U", "--upgrade", "--no-deps", "--no-cache-dir",
             "--disable-pip-version-check", "--no-build-isolation", "--no-input", "--progress-bar=off"});
        QStringList definitions;
        bool project = false;
        for (qsizetype k = at + 1; k < args.size(); ++k) {
            const Arg &a = args.at(k);
            if (!a.known)
                return c.add(Effect::Kind::Installs,
                             QStringLiteral("%1 install of what expands").arg(program)),
                       true;
            if (a.text == QLatin1String("-r") || a.text == QLatin1String("--requirement") ||
                a.text == QLatin1String("-c") || a.text == QLatin1String("--constraint")) {
                const Arg file = args.value(++k);
                if (!file.known || file.text.isEmpty())
                    return c.add(Effect::Kind::Installs,
                                 QStringLiteral("%1 install -r of a file not known").arg(program)),
                           true;
                definitions.append(QLatin1Char('!') + (file.text.contains(QLatin1Char('/'))
                                                           ? file.text
                                                           : QStringLiteral("./") + file.text));
                continue;
            }
            if (a.text == QLatin1String("-e") || a.text == QLatin1String("--editable"))
                continue;
            const QString target = a.text.section(QLatin1Char('['), 0, 0);
            if (target == QLatin1String(".") || target == QLatin1String("./")) {
                project = true;
                continue;
            }
            if (harmless.contains(a.text))
                continue;
            c.add(Effect::Kind::Installs,
                  QStringLiteral("%1 install %2 fetches and installs packages").arg(program, a.text));
            return true;
        }
        if (project)
            definitions += words({"!pyproject.toml", "!setup.py", "!setup.cfg"});
        // What the requirements name in turn: -r and -c files are pins too; a path, a URL, an
        // index or an editable install in them fetches or builds what no pin holds.
        static const QRegularExpression elsewhere(QStringLiteral(
            "^\\s*(-e|--editable|-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host|"
            "[./~])|://|@|^\\s*[A-Za-z0-9_.-]+\\s*\\[?[^#]*\\s(file|path):"));
        for (qsizetype k = 0; k < definitions.size() && k < 16; ++k) {
            const QString name =
                definitions.at(k).mid(definitions.at(k).startsWith(QLatin1Char('!')) ? 1 : 0);
            if (!name.endsWith(QLatin1String(".txt")) && !name.endsWith(QLatin1String(".in")))
                continue;
            QFile file(c.how().cwd + QLatin1Char('/') + name);
            if (!file.open(QIODevice::ReadOnly))
                continue;
            for (const QString &raw : QString::fromUtf8(file.read(256 * 1024)).split(QLatin1Char('\n'))) {
                const QString line = raw.section(QLatin1Char('#'), 0, 0).trimmed();
                if (line.startsWith(QLatin1String("-r ")) ||
                    line.startsWith(QLatin1String("--requirement")) ||
                    line.startsWith(QLatin1String("-c ")) || line.startsWith(QLatin1String("--constraint"))) {
                    const QString included =
                        line.section(QRegularExpression(QStringLiteral("[ =]")), 1).trimmed();
                    definitions.append(QLatin1Char('!') + QFileInfo(name).path() + QLatin1Char('/') +
                                       included);
                } else if (!line.isEmpty() && elsewhere.match(line).hasMatch()) {
                    c.add(Effect::Kind::Installs,
                          QStringLiteral("%1 names %2, which no pin holds").arg(name, line.left(80)));
                    return true;
                }
            }
        }
        if (definitions.isEmpty()) {
            c.add(Effect::Kind::Installs, QStringLiteral("%1 install with nothing named").arg(program));
            return true;
        }
        c.project(QStringLiteral("installs what the project's own files name (%1 install)").arg(program),
                  definitions);
        return true;
    }
    // uv sync, poetry install, pipenv sync: as the lock file pins them.
    static const QHash<QString, QStringList> locked = {
        {QStringLiteral("uv"), words({"pyproject.toml", "!uv.lock"})},
        {QStringLiteral("poetry"), words({"pyproject.toml", "!poetry.lock"})},
        {QStringLiteral("pipenv"), words({"Pipfile", "!Pipfile.lock"})}};
    if ((sub == QLatin1String("sync") ||
         (sub == QLatin1String("install") && program != QLatin1String("uv"))) &&
        locked.contains(program) && args.size() - at == 1) {
        c.project(QStringLiteral("installs the project's packages as its lock file pins them (%1 %2)")
                      .arg(program, sub),
                  locked.value(program));
        return true;
    }
    c.add(Effect::Kind::Installs, QStringLiteral("%1 %2 fetches and installs packages").arg(program, sub));
    return true;
}

} // namespace Countersign::Shell::ProjectTools
