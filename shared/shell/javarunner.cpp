// java running classes compiled in the workspace (CodeRunners::java, coderunners.h).
#include "coderunners.h"

#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::CodeRunners {

bool java(CommandCatalog &c, const QList<Arg> &args)
{
    QStringList places;
    qsizetype k = 1;
    static const QRegularExpression plain(
        QStringLiteral("^(-ea|-da|-enableassertions|-disableassertions)(:[A-Za-z0-9_.$]*(\\.\\.\\.)?)?$|"
                       "^-X(mx|ms|ss)[0-9]+[kKmMgG]?$|^-D[a-z][A-Za-z0-9_.-]*=[^ ]*$"));
    for (; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known || a.glob)
            return false;
        if (a.text == QLatin1String("-cp") || a.text == QLatin1String("-classpath") ||
            a.text == QLatin1String("--class-path")) {
            if (k + 1 >= args.size() || !args.at(k + 1).known)
                return false;
            places += args.at(++k).text.split(QLatin1Char(':'));
            continue;
        }
        // System properties of the JVM's own (java.*, jdk.*, sun.*) load classes or libraries.
        if (a.text.startsWith(QLatin1String("-D")) &&
            (a.text.startsWith(QLatin1String("-Djava.")) || a.text.startsWith(QLatin1String("-Djdk.")) ||
             a.text.startsWith(QLatin1String("-Dsun.")) || a.text.startsWith(QLatin1String("-Djavax.")) ||
             a.text.startsWith(QLatin1String("-Dcom.sun.")) ||
             a.text.startsWith(QLatin1String("-Dorg.osgi."))))
            return false;
        if (a.text.startsWith(QLatin1Char('-'))) {
            if (!plain.match(a.text).hasMatch())
                return false;
            continue;
        }
        break;
    }
    if (k >= args.size())
        return false;
    const QString main = args.at(k).text;
    static const QRegularExpression className(
        QStringLiteral("^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$"));
    const bool source = main.endsWith(QLatin1String(".java"));
    if (source)
        places.append(main); // a single-file program: its source is what runs
    else if (!className.match(main).hasMatch() || main.endsWith(QLatin1String(".jar")))
        return false;
    if (places.isEmpty())
        return false; // the class path is CLASSPATH's, or the folder's: not named here
    // The class it starts is the project's: a class file in a folder of the class path (not the
    // JDK's own javac, which would run what an argument file names).
    if (!source) {
        const QString file =
            QString(main).replace(QLatin1Char('.'), QLatin1Char('/')) + QStringLiteral(".class");
        const bool found = std::any_of(places.cbegin(), places.cend(), [&](const QString &place) {
            const QString folder = CommandCatalog::absolute(Arg{place, true, false, {}}, c.how().cwd);
            // A class file that is a link (to code elsewhere) is not the project's.
            const QFileInfo classFile(folder + QLatin1Char('/') + file);
            return !folder.isEmpty() && !place.endsWith(QLatin1String(".jar")) && classFile.isFile() &&
                   !classFile.isSymLink() &&
                   classFile.canonicalFilePath().startsWith(QFileInfo(folder).canonicalFilePath() +
                                                            QLatin1Char('/'));
        });
        if (!found)
            return false;
    }
    for (const QString &place : places) {
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Built;
        e.path =
            place.isEmpty() ? QString() : CommandCatalog::absolute(Arg{place, true, false, {}}, c.how().cwd);
        e.pathKnown = !e.path.isEmpty();
        e.what = QStringLiteral("java runs %1 from %2")
                     .arg(main, place.isEmpty() ? QStringLiteral("\"\"") : place);
        c.append(std::move(e));
    }
    return true;
}

} // namespace Countersign::Shell::CodeRunners
