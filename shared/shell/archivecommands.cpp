#include "archivecommands.h"

#include "argtools.h"
#include "networkcommands.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace Countersign::Shell::ArchiveCommands {

using namespace ArgTools;

namespace {

// What a tar command line says: its mode (t lists, x extracts, c writes an archive), the archive
// it names, the folder -C or --directory moves to, and the operands it packs.
struct TarLine final
{
    QString mode;
    QString archive;
    QString folder;
    QList<Arg> operands;
};

// One of the long options of tar that readTarArgs knows (t as written, name its part before any
// '='): its value, and what it says of the mode, the archive or the folder. k moves past a value
// given as the next argument.
void readTarLongOption(const QList<Arg> &args, qsizetype &k, const QString &t, const QString &name,
                       TarLine &line)
{
    const QString value =
        t.contains(QLatin1Char('=')) ? t.section(QLatin1Char('='), 1)
        : (name == QLatin1String("--file") || name == QLatin1String("--directory") ||
           name == QLatin1String("--exclude") || name == QLatin1String("--strip-components") ||
           name == QLatin1String("--sort") || name == QLatin1String("--mtime") ||
           name == QLatin1String("--owner") || name == QLatin1String("--group"))
            ? args.value(++k).text
            : QString();
    if (name == QLatin1String("--list"))
        line.mode = QStringLiteral("t");
    else if (name == QLatin1String("--extract") || name == QLatin1String("--get"))
        line.mode = QStringLiteral("x");
    else if (name == QLatin1String("--create") || name == QLatin1String("--append") ||
             name == QLatin1String("--update"))
        line.mode = QStringLiteral("c");
    else if (name == QLatin1String("--file"))
        line.archive = value;
    else if (name == QLatin1String("--directory"))
        line.folder = CommandCatalog::absolute(Arg{value, true, false, {}}, line.folder);
}

// tar's arguments, read into line; false, with an Unknown effect, at the first one that expands or
// is an option it does not know.
bool readTarArgs(CommandCatalog &c, const QList<Arg> &args, TarLine &line)
{
    // Options it knows only: any other (-I, --to-command, --checkpoint-action, --rsh-command,
    // --use-compress-program, --info-script, ... or their abbreviations) may run a program.
    static const QStringList longSafe = words({"--create",
                                               "--extract",
                                               "--get",
                                               "--list",
                                               "--append",
                                               "--update",
                                               "--file",
                                               "--directory",
                                               "--gzip",
                                               "--gunzip",
                                               "--bzip2",
                                               "--xz",
                                               "--zstd",
                                               "--lzma",
                                               "--verbose",
                                               "--exclude",
                                               "--strip-components",
                                               "--to-stdout",
                                               "--wildcards",
                                               "--no-same-owner",
                                               "--preserve-permissions",
                                               "--auto-compress",
                                               "--keep-old-files",
                                               "--skip-old-files",
                                               "--totals",
                                               "--exclude-vcs",
                                               "--sort",
                                               "--mtime",
                                               "--owner",
                                               "--group",
                                               "--numeric-owner"});
    static const QString shortSafe = QStringLiteral("cxtrufCzjJvaOpkmPhSs");
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            c.unknown(QStringLiteral("tar is given an argument that expands (%1)").arg(a.text));
            return false;
        }
        const QString t = a.text;
        if (t.startsWith(QLatin1String("--"))) {
            const QString name = t.section(QLatin1Char('='), 0, 0);
            if (!longSafe.contains(name)) {
                c.unknown(
                    QStringLiteral("tar %1 is not an option Countersign knows (some run programs)").arg(t));
                return false;
            }
            readTarLongOption(args, k, t, name, line);
            continue;
        }
        const bool cluster = t.startsWith(QLatin1Char('-')) || (k == 1 && !t.isEmpty());
        if (!cluster) {
            line.operands.append(Arg{t, a.known, a.glob, a.variables});
            continue;
        }
        for (qsizetype i = t.startsWith(QLatin1Char('-')) ? 1 : 0; i < t.size(); ++i) {
            const QChar l = t.at(i);
            if (!shortSafe.contains(l)) {
                c.unknown(
                    QStringLiteral("tar -%1 is not an option Countersign knows (some run programs)").arg(l));
                return false;
            }
            if (l == QLatin1Char('t') || l == QLatin1Char('x') || l == QLatin1Char('c'))
                line.mode = l;
            else if (l == QLatin1Char('r') || l == QLatin1Char('u'))
                line.mode = QStringLiteral("c");
            else if (l == QLatin1Char('f') || l == QLatin1Char('C')) {
                const QString value =
                    i + 1 < t.size() && t.startsWith(QLatin1Char('-')) ? t.mid(i + 1) : args.value(++k).text;
                if (l == QLatin1Char('f'))
                    line.archive = value;
                else
                    line.folder = CommandCatalog::absolute(Arg{value, true, false, {}}, line.folder);
                if (i + 1 < t.size() && t.startsWith(QLatin1Char('-')))
                    break;
            }
        }
    }
    return true;
}

// What tar does, by what its line says: lists or packs its archive, or extracts anywhere.
void tarEffects(CommandCatalog &c, const TarLine &line)
{
    if (!NetworkCommands::hostOf(line.archive).isEmpty() && !line.archive.startsWith(QLatin1Char('/'))) {
        c.add(Effect::Kind::Network,
              QStringLiteral("tar's archive %1 is on another machine").arg(line.archive));
        return;
    }
    const Arg archiveArg{line.archive, true, false, {}};
    if (line.mode == QLatin1String("t")) {
        if (!line.archive.isEmpty() && line.archive != QLatin1String("-"))
            c.addPath(Effect::Kind::Reads, QStringLiteral("tar lists %1").arg(line.archive), archiveArg);
        c.add(Effect::Kind::Reads, QStringLiteral("tar lists an archive"));
    } else if (line.mode == QLatin1String("x")) {
        c.add(Effect::Kind::Writes, QStringLiteral("tar extracts files"), line.folder,
              !line.folder.isEmpty());
        c.unknown(QStringLiteral("tar -x writes wherever the archive's paths lead"));
    } else if (line.mode == QLatin1String("c")) {
        if (!line.archive.isEmpty() && line.archive != QLatin1String("-"))
            c.addPath(Effect::Kind::Writes, QStringLiteral("tar writes the archive %1").arg(line.archive),
                      archiveArg);
        for (const Arg &o : line.operands) // what it packs, from the -C folder
            c.add(Effect::Kind::Reads, QStringLiteral("tar packs %1").arg(o.text),
                  CommandCatalog::absolute(o, line.folder),
                  o.known && !CommandCatalog::absolute(o, line.folder).isEmpty(), o.glob);
    } else {
        c.unknown(QStringLiteral("tar with no mode Countersign can read"));
    }
}

} // namespace

void read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    if (program == QLatin1String("tar")) {
        TarLine line;
        line.folder = c.how().cwd;
        if (readTarArgs(c, args, line))
            tarEffects(c, line);
        return;
    }
    if (program == QLatin1String("unzip")) {
        if (hasOption(args, QLatin1Char('l')) || hasOption(args, QLatin1Char('t')) ||
            hasOption(args, QLatin1Char('v')))
            c.add(Effect::Kind::Reads, QStringLiteral("unzip lists an archive"));
        else
            c.unknown(QStringLiteral("unzip writes wherever the archive's paths lead"));
        return;
    }
    // zip's -T/-TT and 7z's many switches run programs or write anywhere: read only the plain forms.
    if (program == QLatin1String("7z")) {
        if (args.value(1).text == QLatin1String("l") || args.value(1).text == QLatin1String("t"))
            c.add(Effect::Kind::Reads, QStringLiteral("7z lists or tests an archive"));
        else
            c.unknown(QStringLiteral("7z writes wherever its switches and the archive's paths lead"));
        return;
    }
    // zip -@ packs the files named on its input: known only when the input is a here-document.
    if (program == QLatin1String("zip") && std::any_of(args.cbegin() + 1, args.cend(), [](const Arg &a) {
            return a.text == QLatin1String("--names-stdin") ||
                   (isOptionCluster(a) && a.text.contains(QLatin1Char('@')));
        })) {
        if (c.how().stdinKind != Stdin::Text || c.how().stdinDynamic) {
            c.unknown(
                QStringLiteral("zip -@ packs the files named on its input, not known before the line runs"));
            return;
        }
        for (const QString &name : c.how().stdinText.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            c.addPath(Effect::Kind::Reads, QStringLiteral("zip packs %1").arg(name),
                      Arg{name, true, false, {}});
    }
    for (const Arg &a : args.mid(1)) {
        if (program == QLatin1String("zip") &&
            (a.text.startsWith(QLatin1String("-T")) || a.text.startsWith(QLatin1String("--test")) ||
             a.text.startsWith(QLatin1String("--unzip")) ||
             (isOptionCluster(a) && a.text.contains(QLatin1Char('T'))))) {
            c.unknown(QStringLiteral("zip -T runs a program to test the archive"));
            return;
        }
        if (a.text.startsWith(QLatin1String("--use-compress")) || a.text == QLatin1String("-S") ||
            a.text.startsWith(QLatin1String("--suffix"))) {
            c.unknown(QStringLiteral("%1 %2 is not an option Countersign reads").arg(program, a.text));
            return;
        }
    }
    // zip, gzip and the like: their operands are read, and replaced by or packed into files beside them;
    // unpacking writes the name without its suffix over whatever is there.
    const bool unpacks =
        program.startsWith(QLatin1String("un")) || program == QLatin1String("gunzip") ||
        std::any_of(args.cbegin() + 1, args.cend(),
                    [](const Arg &a) { return isOptionCluster(a) && a.text.contains(QLatin1Char('d')); }) ||
        std::any_of(args.cbegin(), args.cend(),
                    [](const Arg &a) { return a.text == QLatin1String("--decompress"); });
    for (const Arg &a : operands(args)) {
        c.addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, a.text), a);
        const qsizetype dot = a.text.lastIndexOf(QLatin1Char('.'));
        if (unpacks && dot > 0)
            c.addReplace(QStringLiteral("%1 writes %2").arg(program, a.text.left(dot)),
                         Arg{a.text.left(dot), a.known, a.glob, a.variables});
    }
    for (const Arg &a : operands(args))
        c.addPath(Effect::Kind::Writes, QStringLiteral("%1 rewrites %2").arg(program, a.text), a);
    c.add(Effect::Kind::Writes, QStringLiteral("%1 writes here").arg(program), c.how().cwd,
          !c.how().cwd.isEmpty());
}

} // namespace Countersign::Shell::ArchiveCommands
