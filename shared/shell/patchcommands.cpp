#include "patchcommands.h"

#include "argtools.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <optional>

namespace Countersign::Shell::PatchCommands {

using namespace ArgTools;

namespace {

// The top of the work tree that holds folder (a ".git" in it or above), or folder itself.
QString topOf(const QString &folder)
{
    for (QString dir = folder; !dir.isEmpty();) {
        if (QFileInfo::exists(dir + QStringLiteral("/.git")))
            return dir;
        const QString up = QFileInfo(dir).absolutePath();
        if (up == dir)
            break;
        dir = up;
    }
    return folder;
}

// path with its first strip components taken off; empty when it has no more than that.
QString stripped(const QString &path, int strip)
{
    if (strip <= 0)
        return path;
    const QStringList parts = path.split(QLatin1Char('/'));
    if (parts.size() <= strip)
        return {};
    return QStringList(parts.mid(strip)).join(QLatin1Char('/'));
}

struct Source final
{
    QString text;
    QString unknown; // why the patch's text is not known; empty when it is
};

// The patch's text from a file it is given.
Source fromFile(CommandCatalog &c, const QString &program, const Arg &file)
{
    c.addDefinition(QStringLiteral("%1 reads the patch %2").arg(program, file.text), file);
    const QString path = CommandCatalog::absolute(file, c.how().cwd);
    if (path.isEmpty())
        return {{},
                QStringLiteral("%1 reads a patch whose name is not known before the line runs").arg(program)};
    const QFileInfo info(path);
    if (!info.isFile())
        return {{}, QStringLiteral("%1 reads the patch %2, which is not a file yet").arg(program, file.text)};
    if (info.size() > kMaxPatchBytes)
        return {
            {},
            QStringLiteral("%1 reads the patch %2, larger than Countersign reads").arg(program, file.text)};
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {
            {},
            QStringLiteral("%1 reads the patch %2, which Countersign cannot read").arg(program, file.text)};
    return {QString::fromUtf8(f.read(kMaxPatchBytes)), {}};
}

// The patch's text from standard input: a here-document, or a file redirected in.
Source fromStdin(CommandCatalog &c, const QString &program)
{
    const Invocation &how = c.how();
    if (how.stdinKind == Stdin::Text && !how.stdinDynamic)
        return {how.stdinText, {}};
    if (how.stdinKind == Stdin::File && !how.stdinPath.isEmpty())
        return fromFile(c, program, Arg{how.stdinPath, true, false, {}});
    return {{},
            QStringLiteral("%1 reads its patch from standard input, which is not known before the line runs")
                .arg(program)};
}

// Each file the patch touches, as a write, a deletion or a link, at each place it may land.
void touch(CommandCatalog &c, const QString &program, const Source &source, const QStringList &bases,
           const QList<int> &strips, bool reverse, PatchTextReader::Form form)
{
    const bool eitherName = form == PatchTextReader::Form::Gnu;
    if (!source.unknown.isEmpty()) {
        c.unknown(source.unknown);
        return;
    }
    const PatchText patch = PatchTextReader::parse(source.text, form);
    if (!patch.unreadable.isEmpty()) {
        c.unknown(QStringLiteral("%1: %2").arg(program, patch.unreadable));
        return;
    }
    const auto at = [&](const QString &written, bool prefixed) {
        QStringList out;
        for (const int strip : prefixed ? strips : QList<int>{0}) {
            const QString path = stripped(written, strip);
            if (path.isEmpty())
                continue;
            for (const QString &base : bases) {
                const QString joined =
                    path.startsWith(QLatin1Char('/')) ? path : base + QLatin1Char('/') + path;
                const QString absolute = joined.split(QLatin1Char('/')).contains(QStringLiteral(".."))
                                             ? joined
                                             : QDir::cleanPath(joined);
                if (!out.contains(absolute))
                    out.append(absolute);
            }
        }
        if (out.isEmpty())
            c.unknown(QStringLiteral("%1: the patch names %2, shorter than the components it strips")
                          .arg(program, written));
        return out;
    };
    // A write; over a file that is there, a replacement (what it held may be work git does not keep).
    const auto write = [&c](const QString &path, const QString &what) {
        if (QFileInfo::exists(path))
            c.addReplace(what, Arg{path, true, false, {}});
        else
            c.add(Effect::Kind::Writes, what, path);
    };
    for (const PatchFile &f : patch.files) {
        const QString before = reverse ? f.newPath : f.oldPath;
        const QString after = reverse ? f.oldPath : f.newPath;
        const bool prefixed = !f.renamed;
        if (after.isEmpty()) {
            for (const QString &path : at(before, prefixed))
                c.add(Effect::Kind::Deletes,
                      QStringLiteral("%1 deletes %2 (the patch removes it)")
                          .arg(program, QFileInfo(path).fileName()),
                      path);
            continue;
        }
        for (const QString &path : at(after, prefixed)) {
            if (f.link)
                c.add(Effect::Kind::Unknown,
                      QStringLiteral("%1 makes %2 a symbolic link, which leads where the patch says")
                          .arg(program, QFileInfo(path).fileName()),
                      path);
            else
                write(path, QStringLiteral("%1 changes %2").arg(program, QFileInfo(path).fileName()));
            if (!eitherName)
                continue;
            // GNU patch keeps a backup beside a file a hunk did not fit exactly (path.orig), and
            // takes a new file that is already there for a reversed patch: it deletes it.
            write(path + QStringLiteral(".orig"),
                  QStringLiteral("patch may keep a backup of %1 beside it").arg(QFileInfo(path).fileName()));
            if (before.isEmpty() && QFileInfo::exists(path))
                c.add(Effect::Kind::Deletes,
                      QStringLiteral("patch may take the patch for a reversed one and delete %1")
                          .arg(QFileInfo(path).fileName()),
                      path);
        }
        // GNU patch writes whichever of the two names it finds: both are judged.
        if (eitherName && !f.renamed && !before.isEmpty() && before != after) {
            for (const QString &path : at(before, prefixed))
                write(path, QStringLiteral("%1 changes %2").arg(program, QFileInfo(path).fileName()));
        }
        if (f.renamed && !before.isEmpty()) {
            for (const QString &path : at(before, false))
                c.add(Effect::Kind::Writes,
                      QStringLiteral("%1 moves %2 away").arg(program, QFileInfo(path).fileName()), path);
        }
    }
}

} // namespace

void gitApply(CommandCatalog &c, const QString &sub, const QList<Arg> &args, const QString &cwd)
{
    const QString program = QStringLiteral("git ") + sub;
    static const QStringList plain = words({"--stat",
                                            "--numstat",
                                            "--summary",
                                            "--check",
                                            "--index",
                                            "--cached",
                                            "--3way",
                                            "-3",
                                            "--apply",
                                            "--reverse",
                                            "-R",
                                            "--reject",
                                            "--verbose",
                                            "-v",
                                            "--quiet",
                                            "-q",
                                            "--recount",
                                            "--allow-empty",
                                            "--ignore-whitespace",
                                            "--ignore-space-change",
                                            "--unidiff-zero",
                                            "--inaccurate-eof",
                                            "--no-add",
                                            "--allow-overlap",
                                            "--unsafe-paths",
                                            "--signoff",
                                            "-s",
                                            "--keep",
                                            "-k",
                                            "--keep-non-patch",
                                            "--keep-cr",
                                            "--no-keep-cr",
                                            "--scissors",
                                            "--no-scissors",
                                            "--message-id",
                                            "-m",
                                            "--utf8",
                                            "-u",
                                            "--no-utf8",
                                            "--committer-date-is-author-date",
                                            "--ignore-date",
                                            "--no-verify",
                                            "-c",
                                            "--no-3way"});
    static const QStringList valued = words({"--whitespace", "--directory", "--include", "--exclude", "-C",
                                             "--patch-format", "--empty", "--quoted-cr"});
    static const QStringList continuing =
        words({"--continue", "-r", "--resolved", "--skip", "--abort", "--quit", "--show-current-patch"});
    int strip = 1;
    bool reverse = false, applies = true, onlyReports = false;
    QString directory;
    QList<Arg> files;
    bool only = false;
    for (qsizetype k = 0; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (only || !a.known || !a.text.startsWith(QLatin1Char('-')) || a.text == QLatin1String("-")) {
            files.append(a);
            continue;
        }
        const QString name = a.text.section(QLatin1Char('='), 0, 0);
        if (a.text == QLatin1String("--")) {
            only = true;
        } else if (continuing.contains(name) && sub == QLatin1String("am")) {
            c.add(Effect::Kind::Writes,
                  QStringLiteral("git am %1 (the repository keeps what it had)").arg(a.text), cwd,
                  !cwd.isEmpty());
            return;
        } else if (QRegularExpression(QStringLiteral("^-p\\d+$")).match(a.text).hasMatch()) {
            strip = a.text.mid(2).toInt();
        } else if ((a.text == QLatin1String("-p") || a.text == QLatin1String("-C")) && k + 1 < args.size()) {
            if (a.text == QLatin1String("-p"))
                strip = args.at(k + 1).text.toInt();
            ++k;
        } else if (a.text.startsWith(QLatin1String("-C")) && a.text.size() > 2) {
            continue;
        } else if (plain.contains(a.text) || valued.contains(name)) {
            if (name == QLatin1String("--directory")) {
                directory = a.text.contains(QLatin1Char('=')) ? a.text.section(QLatin1Char('='), 1)
                                                              : args.value(++k).text;
            } else if (valued.contains(name) && !a.text.contains(QLatin1Char('='))) {
                ++k;
            }
            if (a.text == QLatin1String("-R") || a.text == QLatin1String("--reverse"))
                reverse = true;
            if (a.text == QLatin1String("--apply"))
                applies = true, onlyReports = false;
            else if (a.text == QLatin1String("--stat") || a.text == QLatin1String("--numstat") ||
                     a.text == QLatin1String("--summary") || a.text == QLatin1String("--check"))
                onlyReports = true;
        } else {
            c.unknown(QStringLiteral("%1 %2 is not an option Countersign reads").arg(program, a.text));
            return;
        }
    }
    if (sub == QLatin1String("apply") && onlyReports &&
        std::none_of(args.cbegin(), args.cend(),
                     [](const Arg &a) { return a.text == QLatin1String("--apply"); }))
        applies = false;
    if (directory.startsWith(QLatin1Char('/')) ||
        directory.split(QLatin1Char('/')).contains(QStringLiteral(".."))) {
        c.unknown(QStringLiteral("%1 --directory=%2 puts the patch's files outside the repository")
                      .arg(program, directory));
        return;
    }
    if (cwd.isEmpty()) {
        c.unknown(QStringLiteral("%1 in a folder not known before the line runs").arg(program));
        return;
    }
    // git takes a patch's paths from the top of the work tree (outside one, from the folder it runs in).
    QStringList bases = {topOf(cwd)};
    if (!bases.contains(cwd))
        bases.append(cwd);
    if (!directory.isEmpty()) {
        for (QString &base : bases)
            base += QLatin1Char('/') + directory;
    }
    QList<Source> sources;
    if (files.isEmpty())
        sources.append(fromStdin(c, program));
    for (const Arg &f : files)
        sources.append(f.text == QLatin1String("-") ? fromStdin(c, program) : fromFile(c, program, f));
    for (const Source &s : sources) {
        if (!applies) {
            if (!s.unknown.isEmpty())
                c.add(Effect::Kind::Reads, s.unknown); // --check and --stat change nothing
            continue;
        }
        touch(c, program, s, bases, {strip}, reverse,
              sub == QLatin1String("am") ? PatchTextReader::Form::Mail : PatchTextReader::Form::Git);
    }
    if (applies)
        c.add(Effect::Kind::Writes, QStringLiteral("%1 (the repository keeps what it had)").arg(program),
              cwd);
}

void patch(CommandCatalog &c, const QList<Arg> &args)
{
    const QString program = QStringLiteral("patch");
    static const QStringList plain = words({"-R",
                                            "--reverse",
                                            "-N",
                                            "--forward",
                                            "-f",
                                            "--force",
                                            "-t",
                                            "--batch",
                                            "-s",
                                            "--silent",
                                            "--quiet",
                                            "-u",
                                            "--unified",
                                            "-l",
                                            "--ignore-whitespace",
                                            "--dry-run",
                                            "--verbose",
                                            "--no-backup-if-mismatch",
                                            "--backup-if-mismatch",
                                            "-b",
                                            "--backup",
                                            "-Z",
                                            "--set-utc",
                                            "-T",
                                            "--set-time",
                                            "--posix",
                                            "--binary",
                                            "--merge"});
    static const QStringList valued =
        words({"-F", "--fuzz", "-g", "--get", "--quoting-style", "--reject-format"});
    int strip = -1;
    bool reverse = false, dryRun = false;
    QString cwd = c.how().cwd;
    std::optional<Arg> input;
    QList<Arg> operands;
    bool only = false;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (only || !a.known || !a.text.startsWith(QLatin1Char('-')) || a.text == QLatin1String("-")) {
            operands.append(a);
            continue;
        }
        const QString name = a.text.section(QLatin1Char('='), 0, 0);
        const auto valueOf = [&](const char *shortForm) -> std::optional<Arg> {
            if (a.text.contains(QLatin1Char('=')) && a.text.startsWith(QLatin1String("--")))
                return Arg{a.text.section(QLatin1Char('='), 1), true, false, {}};
            if (a.text.size() > 2 && a.text.startsWith(QLatin1String(shortForm)) &&
                !a.text.startsWith(QLatin1String("--")))
                return Arg{a.text.mid(2), true, false, {}};
            if (k + 1 < args.size())
                return args.at(++k);
            return std::nullopt;
        };
        if (a.text == QLatin1String("--")) {
            only = true;
        } else if (a.text.startsWith(QLatin1String("-p")) || name == QLatin1String("--strip")) {
            const auto v = valueOf("-p");
            bool ok = false;
            strip = v ? v->text.toInt(&ok) : -1;
            if (!ok) {
                c.unknown(
                    QStringLiteral("patch strips a number of components not known before the line runs"));
                return;
            }
        } else if (a.text.startsWith(QLatin1String("-i")) || name == QLatin1String("--input")) {
            input = valueOf("-i");
        } else if (a.text.startsWith(QLatin1String("-d")) || name == QLatin1String("--directory")) {
            const auto v = valueOf("-d");
            cwd = v ? CommandCatalog::absolute(*v, cwd) : QString();
        } else if (a.text.startsWith(QLatin1String("-o")) || name == QLatin1String("--output") ||
                   a.text.startsWith(QLatin1String("-r")) || name == QLatin1String("--reject-file")) {
            const auto v = valueOf(
                a.text.startsWith(QLatin1String("-o")) || name == QLatin1String("--output") ? "-o" : "-r");
            if (v && v->text != QLatin1String("-"))
                c.addReplace(QStringLiteral("patch writes %1").arg(v->text), *v);
        } else if (plain.contains(a.text) || valued.contains(name) ||
                   (valued.contains(a.text.left(2)) && a.text.size() > 2)) {
            if (valued.contains(name) && !a.text.contains(QLatin1Char('=')) && a.text.size() <= 2)
                ++k;
            reverse = reverse || a.text == QLatin1String("-R") || a.text == QLatin1String("--reverse");
            dryRun = dryRun || a.text == QLatin1String("--dry-run");
        } else {
            c.unknown(QStringLiteral("patch %1 is not an option Countersign reads").arg(a.text));
            return;
        }
    }
    if (cwd.isEmpty()) {
        c.unknown(QStringLiteral("patch in a folder not known before the line runs"));
        return;
    }
    c.setCwd(cwd);
    if (operands.size() > 1 && !input)
        input = operands.at(1);
    const Source source = input ? fromFile(c, program, *input) : fromStdin(c, program);
    if (dryRun) {
        if (!source.unknown.isEmpty())
            c.add(Effect::Kind::Reads, source.unknown);
        return;
    }
    if (!operands.isEmpty()) { // patch FILE: every hunk goes to FILE, whatever the patch names
        if (!source.unknown.isEmpty())
            c.unknown(source.unknown);
        c.addPath(Effect::Kind::Writes, QStringLiteral("patch changes %1").arg(operands.first().text),
                  operands.first());
        return;
    }
    // With no -p, GNU patch may take any tail of a name: each one is judged.
    QList<int> strips = {strip};
    if (strip < 0) {
        strips.clear();
        for (int k = 0; k < 16; ++k)
            strips.append(k);
    }
    touch(c, program, source, {cwd}, strips, reverse, PatchTextReader::Form::Gnu);
}

} // namespace Countersign::Shell::PatchCommands
