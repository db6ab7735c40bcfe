// What a setting in the line (PATH=..., export PYTHONPATH=..., env KUBECONFIG=...) changes for the
// programs that run after it (CommandCatalog::settingEffects, commandcatalog.h).
#include "commandcatalog.h"

#include <QDir>

namespace Countersign::Shell {

QList<Effect> CommandCatalog::settingEffects(const QString &name, const QString &value, const QString &cwd,
                                             const QString &home)
{
    const QString bareName = name.endsWith(QLatin1Char('+')) ? name.chopped(1) : name;
    const auto effect = [&](const QString &what, const QString &path = {}) {
        Effect e;
        e.kind = Effect::Kind::Environment;
        e.what = what;
        e.path = path; // empty: no folder (pathKnown stays true, as for the other effects)
        e.cwd = cwd;
        e.definitions = {bareName};
        return e;
    };
    const QString bare = name.endsWith(QLatin1Char('+')) ? name.chopped(1) : name;
    // Where modules are found first (PYTHONPATH=src): each folder, judged as the project's own
    // code inside the roots (what runs when Python starts there, sitecustomize.py, is protected).
    const bool modules = bare == QLatin1String("PYTHONPATH") || bare == QLatin1String("NODE_PATH");
    if (bare != QLatin1String("PATH") && bare != QLatin1String("JAVA_HOME") && !modules) {
        if (!poisons(bare))
            return {};
        return {effect(QStringLiteral("sets %1, which changes what programs run or load").arg(bare))};
    }
    QList<Effect> out;
    // PATH+=... appends; PATH=...:$PATH:... puts what comes before $PATH first.
    bool after = name.endsWith(QLatin1Char('+'));
    const QStringList parts =
        bare == QLatin1String("JAVA_HOME") ? QStringList{value} : value.split(QLatin1Char(':'));
    for (const QString &part : parts) {
        if (part == QLatin1String("$PATH") || part == QLatin1String("${PATH}")) {
            after = true;
            continue;
        }
        if (part == QLatin1Char('$') + bare || part == QStringLiteral("${%1}").arg(bare))
            continue; // what it held already
        // Appended folders shadow no program but add names a bare word then finds; an empty entry is
        // the folder the line runs in. Each is judged (the system's and the home folder's pass).
        QString folder = part.isEmpty() ? QStringLiteral(".") : part;
        for (const char *h : {"$HOME", "${HOME}", "~"}) {
            if (folder == QLatin1String(h) || folder.startsWith(QLatin1String(h) + QLatin1Char('/')))
                folder = home + folder.mid(qstrlen(h));
        }
        if (folder.contains(QLatin1Char('$')) || folder.contains(QLatin1Char('`')) ||
            folder.startsWith(QLatin1Char('~')))
            out.append(
                effect(QStringLiteral("sets %1 to a folder only known when it runs (%2)").arg(bare, part)));
        else if (!folder.startsWith(QLatin1Char('/')) && cwd.isEmpty())
            out.append(
                effect(QStringLiteral("sets %1 to a folder relative to one not known (%2)").arg(bare, part)));
        else
            out.append(effect((after ? QStringLiteral("adds %1 to where programs are found (%2)")
                                     : QStringLiteral("puts %1 before the system's programs (%2)"))
                                  .arg(part.isEmpty() ? QStringLiteral("the current folder") : part, bare),
                              QDir::cleanPath(folder.startsWith(QLatin1Char('/'))
                                                  ? folder
                                                  : cwd + QLatin1Char('/') + folder)));
    }
    return out;
}

} // namespace Countersign::Shell
