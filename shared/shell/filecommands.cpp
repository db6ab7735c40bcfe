#include "filecommands.h"

#include "archivecommands.h"
#include "argtools.h"
#include "networkcommands.h"
#include "patchcommands.h"
#include "textcommands.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <QUrl>
#include <algorithm>

namespace Countersign::Shell::FileCommands {

using namespace ArgTools;

namespace {

// cp, mv, ln, install: SOURCES... DEST, or -t DEST SOURCES... (-t anywhere in a cluster, the long
// option abbreviated as GNU allows). A link's target is where later writes through it land: it is
// judged as a write too (a link out of the roots, to a start-up file or an agent's settings, asks).
void copyLike(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    QList<Arg> ops;
    Arg target;
    bool targetGiven = false;
    bool links = program == QLatin1String("ln");
    static const QStringList valuedShort = words({"S", "m", "o", "g", "Z"});
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!CommandCatalog::isOption(a) || a.text == QLatin1String("--")) {
            if (a.text != QLatin1String("--"))
                ops.append(a);
            continue;
        }
        if (a.text.startsWith(QLatin1String("--"))) {
            const QString name = a.text.section(QLatin1Char('='), 0, 0);
            if (name.size() >= 4 && QStringLiteral("--target-directory").startsWith(name)) {
                targetGiven = true;
                target = a.text.contains(QLatin1Char('='))
                             ? Arg{a.text.section(QLatin1Char('='), 1), a.known, a.glob, {}}
                             : args.value(++k);
            } else if ((name.size() >= 4 && QStringLiteral("--symbolic-link").startsWith(name)) ||
                       (name.size() >= 4 && QStringLiteral("--link").startsWith(name) && name.size() <= 6)) {
                links = true;
            } else if (name == QLatin1String("--suffix") || name == QLatin1String("--mode") ||
                       name == QLatin1String("--owner") || name == QLatin1String("--group")) {
                if (!a.text.contains(QLatin1Char('=')))
                    ++k;
            }
            continue;
        }
        for (qsizetype i = 1; i < a.text.size(); ++i) {
            const QString letter = a.text.at(i);
            if (letter == QLatin1String("t")) {
                targetGiven = true;
                target =
                    i + 1 < a.text.size() ? Arg{a.text.mid(i + 1), a.known, a.glob, {}} : args.value(++k);
                break;
            }
            if ((letter == QLatin1String("s") || letter == QLatin1String("l")) &&
                program == QLatin1String("cp"))
                links = true;
            if (valuedShort.contains(letter) && program != QLatin1String("ln")) {
                if (i + 1 == a.text.size())
                    ++k;
                break;
            }
        }
    }
    if (!targetGiven && !ops.isEmpty())
        target = ops.takeLast();
    const bool moves = program == QLatin1String("mv");
    if (ops.isEmpty() && links && !targetGiven) {
        ops.append(target); // ln -s TARGET: a link in cwd
        target = Arg{QStringLiteral("."), true, false, {}};
    }
    // A symbolic link's text is resolved from the folder the link is in, not from where ln runs:
    // `cd sub && ln -s ../.ssh ../k` makes k lead to the .ssh beside sub's parent.
    const bool symbolic =
        program == QLatin1String("ln") && hasOption(args, QLatin1Char('s'), words({"--symbolic"}));
    const QString linkFolder = [&] {
        const QString where = CommandCatalog::absolute(target, c.how().cwd);
        if (where.isEmpty())
            return QString();
        return targetGiven || QFileInfo(where).isDir() ? where : QFileInfo(where).absolutePath();
    }();
    for (const Arg &given : ops) {
        const bool fromLink = symbolic && given.known && !given.text.startsWith(QLatin1Char('/'));
        if (fromLink && linkFolder.isEmpty()) {
            c.unknown(
                QStringLiteral("ln -s %1: where the link leads is only known when it runs").arg(given.text));
            continue;
        }
        const Arg source = fromLink ? Arg{QDir::cleanPath(linkFolder + QLatin1Char('/') + given.text),
                                          given.known, given.glob, given.variables}
                                    : given;
        c.addPath(
            Effect::Kind::Reads,
            QStringLiteral("%1 %2 %3")
                .arg(program, links ? QStringLiteral("links to") : QStringLiteral("reads"), source.text),
            source);
        if (links)
            c.addPath(Effect::Kind::Writes,
                      QStringLiteral("%1 makes a way to write %2").arg(program, source.text), source);
        if (moves) // its content goes with it, but what goes where /dev/null is is gone
            c.addPath(Effect::Kind::Writes, QStringLiteral("mv takes %1 from where it is").arg(source.text),
                      source);
        if (moves && CommandCatalog::absolute(target, c.how().cwd).startsWith(QLatin1String("/dev/")))
            c.addPath(Effect::Kind::Deletes,
                      QStringLiteral("mv %1 into %2 deletes it").arg(source.text, target.text), source);
    }
    if (target.text.isEmpty() && !targetGiven) {
        c.unknown(QStringLiteral("%1 with no destination").arg(program));
        return;
    }
    // Onto an existing file (not into a folder): its content is replaced.
    const QString where = CommandCatalog::absolute(target, c.how().cwd);
    if (!where.isEmpty() && !QFileInfo(where).isDir())
        c.addReplace(QStringLiteral("%1 writes %2").arg(program, target.text), target);
    else
        c.addPath(Effect::Kind::Writes, QStringLiteral("%1 writes %2").arg(program, target.text), target);
}

void remove(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const bool recursive =
        hasOption(args, QLatin1Char('r'), words({"--recursive"})) || hasOption(args, QLatin1Char('R'));
    const QList<Arg> targets =
        operands(args, program == QLatin1String("truncate") ? words({"-s", "--size", "-r", "--reference"})
                                                            : QStringList());
    if (targets.isEmpty()) {
        c.add(Effect::Kind::Reads, QStringLiteral("%1 with nothing to delete").arg(program));
        return;
    }
    for (const Arg &t : targets)
        c.addPath(Effect::Kind::Deletes,
                  QStringLiteral("%1 deletes %2%3")
                      .arg(program, t.text, recursive ? QStringLiteral(" and all it holds") : QString()),
                  t);
}

// find START... -name '*.pyc' [-type f] -delete, or -name __pycache__ [-type d] [-prune] -exec
// rm -r[f] {} + (or ;): the compiled files under each start folder, and nothing else. Each start
// is a Deletes of what matches the name there (Effect::Note::Outputs); false for any other form.
bool findOutputs(CommandCatalog &c, const QList<Arg> &args, qsizetype k, const QList<Arg> &starts)
{
    static const QStringList names = {QStringLiteral("*.pyc"), QStringLiteral("*.pyo"),
                                      QStringLiteral("*.class"), QStringLiteral("*.o"),
                                      QStringLiteral("__pycache__")};
    static const QStringList removers = {QStringLiteral("-r"), QStringLiteral("-rf"), QStringLiteral("-fr"),
                                         QStringLiteral("-R"), QStringLiteral("-Rf"), QStringLiteral("-f")};
    QString name;
    bool deletes = false;
    for (; k < args.size(); ++k) {
        const QString t = args.at(k).text;
        if (!args.at(k).known || args.at(k).glob)
            return false;
        if ((t == QLatin1String("-name") || t == QLatin1String("-type")) && k + 1 < args.size()) {
            if (!args.at(k + 1).known || args.at(k + 1).glob)
                return false; // a pattern the shell may expand first
            const QString value = args.at(++k).text;
            if (t == QLatin1String("-type") ? value != QLatin1String("f") && value != QLatin1String("d")
                                            : !names.contains(value) || !name.isEmpty())
                return false;
            if (t == QLatin1String("-name"))
                name = value;
        } else if (t == QLatin1String("-prune") || t == QLatin1String("-print")) {
            continue;
        } else if (t == QLatin1String("-delete") && k + 1 == args.size()) {
            deletes = true;
        } else if (t == QLatin1String("-exec") && args.value(k + 1).text == QLatin1String("rm")) {
            qsizetype j = k + 2;
            if (removers.contains(args.value(j).text))
                ++j;
            // rm {} + (or ;), and nothing after it.
            if (j + 2 != args.size() || args.at(j).text != QLatin1String("{}") ||
                (args.at(j + 1).text != QLatin1String("+") && args.at(j + 1).text != QLatin1String(";")))
                return false;
            deletes = true;
            k = args.size();
        } else {
            return false;
        }
    }
    if (!deletes || name.isEmpty())
        return false;
    for (const Arg &s : starts) {
        c.addPath(Effect::Kind::Deletes,
                  QStringLiteral("find deletes what is named %1 under %2").arg(name, s.text), s);
        c.setLastOutputs(name);
    }
    return true;
}

void find(CommandCatalog &c, const QList<Arg> &args)
{
    for (const Arg &a : args.mid(1)) {
        if (a.text.startsWith(QLatin1String("-files0-from")) ||
            a.text.startsWith(QLatin1String("--files0-from"))) {
            c.unknown(QStringLiteral("find -files0-from reads the names to walk from a file"));
            return;
        }
    }
    qsizetype k = 1;
    QList<Arg> starts;
    while (k < args.size() && !(args.at(k).text.startsWith(QLatin1Char('-')) && args.at(k).text.size() > 1) &&
           args.at(k).text != QLatin1String("(") && args.at(k).text != QLatin1String("!")) {
        starts.append(args.at(k));
        ++k;
    }
    if (starts.isEmpty())
        starts.append(Arg{QStringLiteral("."), true, false, {}});
    for (const Arg &s : starts) // the names under each (what prints or runs a file's content is below)
        c.addListing(QStringLiteral("find walks %1").arg(s.text), s);
    if (findOutputs(c, args, k, starts))
        return;
    for (; k < args.size(); ++k) {
        const QString t = args.at(k).text;
        if (t == QLatin1String("-delete")) {
            for (const Arg &s : starts)
                c.addPath(Effect::Kind::Deletes,
                          QStringLiteral("find -delete deletes what matches under %1").arg(s.text), s);
        } else if (t == QLatin1String("-exec") || t == QLatin1String("-execdir") ||
                   t == QLatin1String("-ok") || t == QLatin1String("-okdir")) {
            QList<Arg> inner;
            for (++k; k < args.size() && args.at(k).text != QLatin1String(";") &&
                      args.at(k).text != QLatin1String("+");
                 ++k) {
                Arg a = args.at(k);
                if (a.text.contains(QLatin1String("{}"))) { // each path found, under the start folders
                    a.text =
                        starts.size() == 1 && starts.first().known
                            ? CommandCatalog::absolute(starts.first(), c.how().cwd) + QStringLiteral("/*")
                            : QStringLiteral("{}");
                    a.glob = true;
                    a.known = a.text != QLatin1String("{}");
                }
                inner.append(a);
            }
            c.runInner(inner);
        } else if (t == QLatin1String("-fprint") || t == QLatin1String("-fprint0") ||
                   t == QLatin1String("-fprintf") || t == QLatin1String("-fls")) {
            c.addPath(Effect::Kind::Writes,
                      QStringLiteral("find %1 writes %2").arg(t, args.value(k + 1).text), args.value(k + 1));
            ++k;
        }
    }
}

// mkdir, touch, chmod and the like write each operand they make or change; the first operand of
// chmod, chown, chgrp and setfacl is what they set, not a file, unless --reference gives that. A
// mode with a set-user-id or set-group-id bit is a Privilege; mktemp makes a file of its own name.
void fileAttributes(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const QStringList valued =
        program == QLatin1String("touch") ? words({"-r", "-d", "-t", "--reference", "--date"})
        : program == QLatin1String("mkdir") || program == QLatin1String("mkfifo")
            ? words({"-m", "--mode", "-Z", "--context"})
        : program == QLatin1String("mktemp") ? words({"-p", "-t", "--tmpdir", "--suffix"})
                                             : words({"--reference"});
    const QList<Arg> ops = operands(args, valued);
    const bool modeFirst = program == QLatin1String("chmod") || program == QLatin1String("chown") ||
                           program == QLatin1String("chgrp") || program == QLatin1String("setfacl");
    static const QRegularExpression setId(QStringLiteral("^(0?[2-7][0-7]{3}|.*[ugoa]*[+=][rwxXt]*s.*)$"));
    if ((program == QLatin1String("chmod") || program == QLatin1String("setfacl")) && !ops.isEmpty() &&
        setId.match(ops.first().text).hasMatch())
        c.add(Effect::Kind::Privilege,
              QStringLiteral("chmod %1 sets a set-user-id or set-group-id bit").arg(ops.first().text));
    if (program == QLatin1String("mktemp")) { // a new empty file of its own name
        c.add(Effect::Kind::Reads, QStringLiteral("mktemp makes a new temporary file"));
        return;
    }
    const bool reference = std::any_of(args.cbegin(), args.cend(), [](const Arg &a) {
        return a.text.startsWith(QLatin1String("--reference"));
    });
    for (const Arg &a : modeFirst && !reference ? ops.mid(1) : ops)
        c.addPath(Effect::Kind::Writes, QStringLiteral("%1 %2").arg(program, a.text), a);
}

// The options of split and the readers like it: what -o FILE, --output and csplit's prefix write, and
// the operands into ops (an option's value skipped); false, with an Unknown effect, for split --filter.
bool readSplitOptions(CommandCatalog &c, const QString &program, const QList<Arg> &args, QList<Arg> &ops)
{
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (a.text.startsWith(QLatin1String("--filter")) ||
            (program == QLatin1String("split") && a.text.startsWith(QLatin1String("--fil")))) {
            c.unknown(QStringLiteral("split --filter runs a shell command"));
            return false;
        }
        if ((a.text == QLatin1String("-o") || a.text.startsWith(QLatin1String("--output")) ||
             (a.text.startsWith(QLatin1String("-o")) && a.text.size() > 2)) &&
            program != QLatin1String("od") && program != QLatin1String("hexdump")) {
            const Arg out =
                a.text == QLatin1String("-o") || a.text == QLatin1String("--output") ? args.value(++k)
                : a.text.startsWith(QLatin1String("--output=")) ? Arg{a.text.mid(9), a.known, false, {}}
                                                                : Arg{a.text.mid(2), a.known, false, {}};
            c.addPath(Effect::Kind::Writes, QStringLiteral("%1 writes %2").arg(program, out.text), out);
            continue;
        }
        if (program == QLatin1String("csplit") &&
            (a.text == QLatin1String("-f") || a.text.startsWith(QLatin1String("--prefix")) ||
             (a.text.startsWith(QLatin1String("-f")) && a.text.size() > 2))) {
            Arg prefix =
                a.text == QLatin1String("-f") || a.text == QLatin1String("--prefix") ? args.value(++k)
                : a.text.startsWith(QLatin1String("--prefix=")) ? Arg{a.text.mid(9), a.known, false, {}}
                                                                : Arg{a.text.mid(2), a.known, false, {}};
            prefix.text += QLatin1Char('*');
            prefix.glob = true;
            c.addPath(Effect::Kind::Writes, QStringLiteral("csplit writes its pieces"), prefix);
            continue;
        }
        static const QStringList splitValued = words({"-b",
                                                      "-l",
                                                      "-n",
                                                      "-a",
                                                      "-C",
                                                      "-t",
                                                      "--bytes",
                                                      "--lines",
                                                      "--number",
                                                      "--suffix-length",
                                                      "--additional-suffix",
                                                      "--separator",
                                                      "--line-bytes",
                                                      "-w",
                                                      "-c",
                                                      "-s",
                                                      "-g",
                                                      "-u",
                                                      "--cols",
                                                      "--seek",
                                                      "--len"});
        if (splitValued.contains(a.text)) {
            ++k;
            continue;
        }
        if (!CommandCatalog::isOption(a))
            ops.append(a);
    }
    return true;
}

// Readers that also write: -o FILE (shuf, iconv), split's and csplit's output prefix, xxd's
// second operand; split --filter runs a shell.
void splitLike(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    QList<Arg> ops;
    if (!readSplitOptions(c, program, args, ops))
        return;
    const bool outputOperand = program == QLatin1String("split") || program == QLatin1String("xxd");
    for (qsizetype i = 0; i < ops.size(); ++i) {
        if (outputOperand && i == 1) {
            Arg out = ops.at(i);
            if (program == QLatin1String("split")) {
                out.text += QLatin1Char('*');
                out.glob = true;
            }
            c.addPath(Effect::Kind::Writes, QStringLiteral("%1 writes %2").arg(program, ops.at(i).text), out);
        } else if (program != QLatin1String("csplit") || i == 0) {
            c.addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, ops.at(i).text),
                      ops.at(i));
        }
    }
    if (program == QLatin1String("csplit"))
        c.add(Effect::Kind::Writes, QStringLiteral("csplit writes its pieces here"), c.how().cwd,
              !c.how().cwd.isEmpty());
    c.add(Effect::Kind::Reads, QStringLiteral("%1 prints").arg(program));
}

} // namespace

bool read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    if (program == QLatin1String("cp") || program == QLatin1String("mv") || program == QLatin1String("ln") ||
        program == QLatin1String("install")) {
        for (qsizetype k = 1; program == QLatin1String("install") && k < args.size(); ++k) {
            const QString t = args.at(k).text;
            const QString mode = t == QLatin1String("-m") || t == QLatin1String("--mode")
                                     ? args.value(k + 1).text
                                 : t.startsWith(QLatin1String("--mode=")) ? t.mid(7)
                                 : t.startsWith(QLatin1String("-m"))      ? t.mid(2)
                                                                          : QString();
            if (!mode.isEmpty() &&
                (mode.contains(QLatin1Char('s')) ||
                 QRegularExpression(QStringLiteral("^0?[2-7][0-7]{3}$")).match(mode).hasMatch()))
                c.add(Effect::Kind::Privilege,
                      QStringLiteral("install -m %1 sets a set-user-id bit").arg(mode));
        }
        copyLike(c, program, args);
        return true;
    }
    if (program == QLatin1String("rm") || program == QLatin1String("unlink") ||
        program == QLatin1String("shred") || program == QLatin1String("srm") ||
        program == QLatin1String("wipe") || program == QLatin1String("trash") ||
        program == QLatin1String("trash-put") || program == QLatin1String("truncate")) {
        remove(c, program, args);
        return true;
    }
    if (program == QLatin1String("mkdir") || program == QLatin1String("touch") ||
        program == QLatin1String("rmdir") || program == QLatin1String("chmod") ||
        program == QLatin1String("chown") || program == QLatin1String("chgrp") ||
        program == QLatin1String("mkfifo") || program == QLatin1String("mktemp") ||
        program == QLatin1String("setfacl")) {
        fileAttributes(c, program, args);
        return true;
    }
    if (program == QLatin1String("dd")) {
        for (const Arg &a : args.mid(1)) {
            if (a.text.startsWith(QLatin1String("if=")))
                c.addPath(Effect::Kind::Reads, QStringLiteral("dd reads %1").arg(a.text.mid(3)),
                          Arg{a.text.mid(3), a.known, a.glob, {}});
            else if (a.text.startsWith(QLatin1String("of=")))
                c.addPath(Effect::Kind::Deletes, QStringLiteral("dd overwrites %1").arg(a.text.mid(3)),
                          Arg{a.text.mid(3), a.known, a.glob, {}});
        }
        c.add(Effect::Kind::Reads, QStringLiteral("dd copies"));
        return true;
    }
    static const QStringList archivers = words({"tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "bunzip2",
                                                "xz", "unxz", "zstd", "unzstd", "7z", "lz4"});
    if (archivers.contains(program)) {
        ArchiveCommands::read(c, program, args);
        return true;
    }
    if (program == QLatin1String("split") || program == QLatin1String("csplit") ||
        program == QLatin1String("shuf") || program == QLatin1String("iconv") ||
        program == QLatin1String("xxd") || program == QLatin1String("od") ||
        program == QLatin1String("hexdump") || program == QLatin1String("base64") ||
        program == QLatin1String("fold")) {
        splitLike(c, program, args);
        return true;
    }
    if (program == QLatin1String("patch")) {
        PatchCommands::patch(c, args);
        return true;
    }
    if (program == QLatin1String("find")) {
        find(c, args);
        return true;
    }

    if (TextCommands::read(c, program, args) || NetworkCommands::read(c, program, args))
        return true;
    return false;
}

} // namespace Countersign::Shell::FileCommands
