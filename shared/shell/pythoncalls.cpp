#include "pythoncode.h"

#include "pythonreader.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::PythonCode {

namespace Detail {

void Reader::builtin(const QString &name, qsizetype at, qsizetype open)
{
    if (PythonNames::dynamicBuiltin(name))
        return unknown(at, QStringLiteral("%1 runs or reaches code Countersign cannot follow").arg(name));
    if (name == QLatin1String("getattr")) {
        const auto attribute = open >= 0 ? literalArgument(open, 1) : std::nullopt;
        if (!attribute || PythonNames::guardedMethod(*attribute) ||
            (attribute->startsWith(QLatin1Char('_')) && !PythonNames::dunderAllowed(*attribute)))
            return unknown(
                at,
                QStringLiteral(
                    "getattr of a name Countersign does not follow")); // getattr(module, "name") is
                                                                       // module.name; getattr(value, "name")
                                                                       // the method .name of a value
        // only known when it runs.
        const auto of = argument(open, 0);
        if (of && of->second - of->first == 1 && isNameAt(of->first) && importBound(m_t.at(of->first).text))
            moduleName(
                (resolved(m_t.at(of->first).text) + QLatin1Char('.') + *attribute).split(QLatin1Char('.')),
                at, -1);
        else
            methodCall(*attribute, at, -1, -1);
        return;
    }
    if (name == QLatin1String("open"))
        return openCall(at, open, -1);
}

void Reader::moduleName(const QStringList &parts, qsizetype at, qsizetype open)
{
    const QString root = parts.first();
    const QString last = parts.last();
    QString prefix = root;
    for (qsizetype k = 1; k < parts.size(); ++k) {
        const QString &part = parts.at(k);
        if (PythonNames::dunderAllowed(part) || part == root) // src.__version__, glob.glob
            continue;
        if (part.startsWith(QLatin1Char('_')) || PythonNames::reachedThrough(prefix, part))
            return unknown(
                at,
                QStringLiteral("reaches %1 through %2, where its uses are not followed").arg(part, prefix));
        prefix += QLatin1Char('.') + part;
    }
    if (root == QLatin1String("urllib") && parts.value(1) != QLatin1String("parse") && parts.size() > 1)
        return network(parts.join(QLatin1Char('.')), at, open);
    if (PythonNames::network(root) ||
        (root == QLatin1String("http") && parts.value(1) != QLatin1String("HTTPStatus")))
        return network(parts.join(QLatin1Char('.')), at, open);
    if (PythonNames::unread(root))
        return unknown(
            at, QStringLiteral("uses %1, through which Countersign cannot follow what runs").arg(root));
    if (root == QLatin1String("subprocess")) {
        static const QSet<QString> harmless = {QStringLiteral("PIPE"),
                                               QStringLiteral("STDOUT"),
                                               QStringLiteral("DEVNULL"),
                                               QStringLiteral("CalledProcessError"),
                                               QStringLiteral("TimeoutExpired"),
                                               QStringLiteral("CompletedProcess"),
                                               QStringLiteral("SubprocessError"),
                                               QStringLiteral("list2cmdline")};
        if (parts.size() == 1 || harmless.contains(last))
            return;
        return process(parts.join(QLatin1Char('.')), at, open);
    }
    if (root == QLatin1String("os"))
        return osCall(parts, at, open);
    if (root == QLatin1String("shutil"))
        return parts.size() == 1 ? void() : shutilCall(last, at, open);
    if (root == QLatin1String("sys")) {
        // sys.path.insert(0, "src"): imports are looked for there too.
        if (parts.value(1) == QLatin1String("path") && parts.size() == 3 &&
            (parts.at(2) == QLatin1String("insert") || parts.at(2) == QLatin1String("append"))) {
            const auto folder = open >= 0
                                    ? literalArgument(open, parts.at(2) == QLatin1String("insert") ? 1 : 0)
                                    : std::nullopt;
            const QString path = folder ? absolute(*folder) : QString();
            if (path.isEmpty())
                return unknown(
                    at, QStringLiteral("adds a folder only known when it runs to where imports are found"));
            m_importFolders.append(path);
            // Modules there run as the code's own: outside the roots, code that is not the project's.
            Effect e;
            e.kind = Effect::Kind::Runs;
            e.code = Effect::Code::Project;
            e.what = QStringLiteral("%1 imports modules from %2").arg(m_origin, *folder);
            e.cwd = path;
            e.path = path;
            m_c.append(std::move(e));
            return;
        }
        if (parts.size() > 1 && (!PythonNames::sysReads(parts.at(1)) ||
                                 (parts.size() > 2 && parts.at(1) == QLatin1String("path"))))
            unknown(at, QStringLiteral("sys.%1 reaches what Countersign does not follow")
                            .arg(parts.mid(1).join(QLatin1Char('.'))));
        return;
    }
    if (parts.size() > 1 && !PythonNames::callable(root, parts.at(1)))
        return unknown(at,
                       QStringLiteral("%1.%2 is a name Countersign does not read").arg(root, parts.at(1)));
    if (root == QLatin1String("tempfile") && open >= 0) {
        // Where it makes the file: the temporary folder unless dir or a prefix holding a path says.
        const bool named = argument(open, -1, "dir").has_value() || argument(open, -1, "prefix").has_value();
        const QList<Range> given = arguments(open);
        const auto keywords = std::count_if(given.cbegin(), given.cend(), [&](const Range &r) {
            return r.second - r.first >= 2 && isNameAt(r.first) && isOp(r.first + 1, "=");
        });
        const bool fileMode = last.endsWith(QLatin1String("File"));
        if (named || given.size() - keywords > (fileMode ? 1 : 0))
            return unknown(at,
                           QStringLiteral("tempfile.%1 makes its file where its arguments say").arg(last));
        return;
    }
    if (root == QLatin1String("argparse") && open >= 0 && argument(open, -1, "fromfile_prefix_chars"))
        return unknown(at, QStringLiteral("argparse reads arguments from files its input names"));
    // What a computing module still writes: files it opens for writing, a database, a log file,
    // a temporary file placed elsewhere; an archive it extracts.
    static const QSet<QString> opening = {QStringLiteral("open"),
                                          QStringLiteral("FileIO"),
                                          QStringLiteral("PyZipFile"),
                                          QStringLiteral("gzopen"),
                                          QStringLiteral("bz2open"),
                                          QStringLiteral("xzopen"),
                                          QStringLiteral("taropen"),
                                          QStringLiteral("ZipFile"),
                                          QStringLiteral("TarFile"),
                                          QStringLiteral("GzipFile"),
                                          QStringLiteral("BZ2File"),
                                          QStringLiteral("LZMAFile"),
                                          QStringLiteral("FileHandler"),
                                          QStringLiteral("RotatingFileHandler"),
                                          QStringLiteral("TimedRotatingFileHandler"),
                                          QStringLiteral("WatchedFileHandler")};
    if (PythonNames::computes(root) && opening.contains(last) && parts.size() > 1) {
        const bool handler = last.endsWith(QLatin1String("Handler"));
        return openCall(at, open, -1, 1, handler ? QStringLiteral("a") : QStringLiteral("r"));
    }
    if (root == QLatin1String("sqlite3") && last == QLatin1String("connect")) {
        if (open >= 0 && literalArgument(open, 0) == QStringLiteral(":memory:"))
            return;
        const auto database = open >= 0 ? literalArgument(open, 0, "database") : std::nullopt;
        if (open >= 0 &&
            (argument(open, -1, "uri") || (database && database->startsWith(QLatin1String("file:")))))
            return unknown(at, QStringLiteral("sqlite3 opens a database by a URI"));
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("opens the database"));
    }
    if (root == QLatin1String("logging") && last == QLatin1String("basicConfig") && open >= 0 &&
        argument(open, -1, "filename"))
        return pathEffect(Effect::Kind::Writes, at, open, -1, QStringLiteral("logs to"), "filename");
    if (root == QLatin1String("operator") &&
        (last == QLatin1String("methodcaller") || last == QLatin1String("attrgetter")))
        return unknown(at, QStringLiteral("operator.%1 reaches a method by its name").arg(last));
    if (PythonNames::standard(root) && !PythonNames::computes(root))
        return unknown(
            at, QStringLiteral("uses %1, a part of Python's library Countersign does not read").arg(root));
    if (parts.size() == 1 && !isOp(at + 1, ".") && !isOp(at + 1, "(") && m_modules.contains(m_t.at(at).text))
        return; // the module named bare was said in chain()    // Any other module: the project's own code or
                // a library it installed, trusted as its tests are
    // (a module of the code's own folder is read at its import: importRead).
}

void Reader::importRead(const QString &module, qsizetype at)
{
    // from . import x, from .sub import y: beside the code; import x: beside it and where
    // sys.path.insert put folders. A module of Python's library is never a file here that counts.
    QString name = module;
    QStringList folders = m_importFolders;
    if (name.startsWith(QLatin1Char('.'))) {
        folders = {m_importFolder};
        name = name.mid(1);
        if (name.startsWith(QLatin1Char('.')))
            return unknown(at, QStringLiteral("imports from a folder above the code (%1)").arg(module));
        if (name.isEmpty())
            return;
    } else {
        if (PythonNames::standard(name.section(QLatin1Char('.'), 0, 0)))
            return;
        folders.prepend(m_importFolder);
    }
    const QString relative = name.replace(QLatin1Char('.'), QLatin1Char('/'));
    for (const QString &folder : folders) {
        if (folder.isEmpty())
            continue;
        for (const QString &candidate :
             {folder + QLatin1Char('/') + relative + QStringLiteral(".py"),
              folder + QLatin1Char('/') + relative + QStringLiteral("/__init__.py")}) {
            if (QFileInfo(candidate).isFile()) {
                m_c.script(QStringLiteral("%1 imports %2").arg(m_origin, QDir::cleanPath(candidate)),
                           QDir::cleanPath(candidate), true);
                return;
            }
        }
    }
}

void Reader::process(const QString &name, qsizetype at, qsizetype open)
{
    if (open < 0)
        return unknown(at, QStringLiteral("hands %1 on, to run programs Countersign cannot see").arg(name));
    static const QSet<QString> lines = {QStringLiteral("os.system"), QStringLiteral("os.popen"),
                                        QStringLiteral("subprocess.getoutput"),
                                        QStringLiteral("subprocess.getstatusoutput")};
    const auto shellArgument = argument(open, -1, "shell");
    const bool shell =
        lines.contains(name) || (shellArgument && !(shellArgument->second - shellArgument->first == 1 &&
                                                    isName(shellArgument->first, "False")));
    if (name.startsWith(QLatin1String("os.")) && !lines.contains(name))
        return unknown(at, QStringLiteral("%1 runs a program Countersign does not follow").arg(name));
    const auto first = argument(open, 0, "args");
    if (!first)
        return unknown(at, QStringLiteral("%1 runs a command Countersign cannot read").arg(name));
    Invocation how = m_c.how();
    how.cwd = m_cwd;
    how.argv.clear();
    how.stdinKind = Stdin::None;
    how.depth += 1;
    how.source = sourceOf(at);
    if (argument(open, -1, "cwd")) {
        const auto cwd = literalArgument(open, -1, "cwd");
        how.cwd = cwd ? absolute(*cwd) : QString();
    }
    if (argument(open, -1, "env") || argument(open, -1, "executable") || argument(open, -1, "preexec_fn"))
        add(Effect::Kind::Environment, at,
            QStringLiteral("runs a command with settings it builds (env, executable)"));
    if (const auto line = literalOf(first->first, first->second)) {
        if (shell)
            m_c.readLine(*line, how.cwd, how.source);
        else
            m_c.run({Arg{*line, true, false, {}}}, how);
        return;
    }
    // A list or tuple of literals: the argv.
    if ((isOp(first->first, "[") || isOp(first->first, "(")) &&
        m_match.at(first->first) == first->second - 1) {
        QList<Arg> argv;
        for (const auto &[a, b] : arguments(first->first)) {
            const auto word = literalOf(a, b);
            if (!word)
                return unknown(
                    at,
                    QStringLiteral("%1 runs a command whose words are only known when it runs").arg(name));
            argv.append(Arg{*word, true, false, {}});
        }
        if (argv.isEmpty())
            return unknown(at, QStringLiteral("%1 runs an empty command").arg(name));
        if (shell)
            m_c.readLine(argv.first().text, how.cwd, how.source);
        else
            m_c.run(argv, how);
        return;
    }
    unknown(at, QStringLiteral("%1 runs a command only known when it runs").arg(name));
}

void Reader::network(const QString &name, qsizetype at, qsizetype open)
{
    static const QRegularExpression url(QStringLiteral("^[a-zA-Z][a-zA-Z0-9+.-]*://([^/:?#\\s]+)"));
    QString host;
    if (open >= 0) {
        const qsizetype close = m_match.at(open);
        for (qsizetype k = open + 1; k < close && host.isEmpty(); ++k) {
            QString text;
            if (m_t.at(k).kind == Token::Kind::String)
                text = m_t.at(k).text;
            else if (isNameAt(k) && m_constants.contains(m_t.at(k).text))
                text = m_constants.value(m_t.at(k).text);
            if (const auto m = url.match(text); m.hasMatch())
                host = m.captured(1);
        }
    }
    add(Effect::Kind::Network, at,
        host.isEmpty() ? QStringLiteral("%1 reaches the network").arg(name)
                       : QStringLiteral("%1 connects to %2").arg(name, host),
        host, !host.isEmpty());
}

void Reader::osCall(const QStringList &parts, qsizetype at, qsizetype open)
{
    const QString function = parts.value(1);
    if (parts.size() == 1)
        return;
    if (function == QLatin1String("environ") || function == QLatin1String("getenv") ||
        function == QLatin1String("environb") || function == QLatin1String("getenvb")) {
        const qsizetype end = chainEnd(at);
        std::optional<QString> variable;
        bool sets = false;
        if (function.startsWith(QLatin1String("environ")) && isOp(end + 1, "[") && parts.size() == 2) {
            const auto args = arguments(end + 1);
            if (args.size() == 1)
                variable = literalOf(args.first().first, args.first().second);
            sets = isOp(m_match.at(end + 1) + 1, "=");
        } else if (open >= 0 && (function.startsWith(QLatin1String("getenv")) ||
                                 (parts.size() == 3 && (parts.at(2) == QLatin1String("get") ||
                                                        parts.at(2) == QLatin1String("setdefault"))))) {
            variable = literalArgument(open, 0);
            sets = parts.value(2) == QLatin1String("setdefault");
        }
        if (!variable)
            return add(Effect::Kind::Secret, at,
                       QStringLiteral("reads the whole environment (secrets included)"));
        if (sets && CommandCatalog::poisons(*variable))
            return add(
                Effect::Kind::Environment, at,
                QStringLiteral("sets %1, which changes what the programs it runs load").arg(*variable));
        if (!sets && CommandCatalog::secretName(*variable))
            return add(Effect::Kind::Secret, at,
                       QStringLiteral("reads the secret variable %1").arg(*variable));
        if (!sets && *variable == QLatin1String("HOME"))
            return add(Effect::Kind::Reads, at, QStringLiteral("names your home folder"), m_c.home());
        return;
    }
    if (function == QLatin1String("path")) {
        if (parts.size() == 2)
            return;
        if (!PythonNames::osPathReads(parts.at(2)) || parts.size() > 3)
            return unknown(at,
                           QStringLiteral("os.path.%1 is a name Countersign does not read").arg(parts.at(2)));
        if (parts.at(2) == QLatin1String("expanduser")) {
            const auto path = open >= 0 ? literalArgument(open, 0) : std::nullopt;
            add(Effect::Kind::Reads, at, QStringLiteral("names your home folder"),
                path ? absolute(*path) : m_c.home(), !path || !absolute(*path).isEmpty());
        }
        return;
    }
    if (PythonNames::osReads(function) && parts.size() == 2)
        return;
    if (function == QLatin1String("chdir") || function == QLatin1String("fchdir"))
        return; // relative paths are not known anywhere in the code (the reader's constructor)
    static const QSet<QString> deleting = {QStringLiteral("remove"), QStringLiteral("unlink"),
                                           QStringLiteral("rmdir"), QStringLiteral("removedirs")};
    static const QSet<QString> writing = {QStringLiteral("mkdir"),  QStringLiteral("makedirs"),
                                          QStringLiteral("chmod"),  QStringLiteral("lchmod"),
                                          QStringLiteral("chown"),  QStringLiteral("lchown"),
                                          QStringLiteral("utime"),  QStringLiteral("truncate"),
                                          QStringLiteral("mkfifo"), QStringLiteral("mknod")};
    if (deleting.contains(function) && parts.size() == 2)
        return pathEffect(Effect::Kind::Deletes, at, open, 0, QStringLiteral("os.%1 deletes").arg(function));
    if (writing.contains(function) && parts.size() == 2)
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("os.%1 changes").arg(function),
                          nullptr, function == QLatin1String("truncate"));
    if ((function == QLatin1String("rename") || function == QLatin1String("renames") ||
         function == QLatin1String("replace")) &&
        parts.size() == 2) {
        pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("os.%1 moves").arg(function));
        return pathEffect(Effect::Kind::Writes, at, open, 1, QStringLiteral("os.%1 replaces").arg(function),
                          nullptr, true);
    }
    if (function == QLatin1String("system") || function == QLatin1String("popen") ||
        PythonNames::guardedMethod(function))
        return process(QStringLiteral("os.") + function, at, open);
    unknown(
        at,
        QStringLiteral("os.%1 is a name Countersign does not read").arg(parts.mid(1).join(QLatin1Char('.'))));
}

void Reader::shutilCall(const QString &function, qsizetype at, qsizetype open)
{
    static const QSet<QString> harmless = {QStringLiteral("which"),
                                           QStringLiteral("disk_usage"),
                                           QStringLiteral("get_terminal_size"),
                                           QStringLiteral("ignore_patterns"),
                                           QStringLiteral("Error"),
                                           QStringLiteral("SameFileError"),
                                           QStringLiteral("get_archive_formats")};
    if (harmless.contains(function))
        return;
    if (function == QLatin1String("rmtree"))
        return pathEffect(Effect::Kind::Deletes, at, open, 0, QStringLiteral("shutil.rmtree deletes all of"));
    static const QSet<QString> copying = {QStringLiteral("copy"),     QStringLiteral("copy2"),
                                          QStringLiteral("copyfile"), QStringLiteral("copytree"),
                                          QStringLiteral("move"),     QStringLiteral("copymode"),
                                          QStringLiteral("copystat")};
    if (copying.contains(function)) {
        pathEffect(Effect::Kind::Reads, at, open, 0, QStringLiteral("shutil.%1 reads").arg(function));
        if (function == QLatin1String("move"))
            pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("shutil.move moves away"));
        return pathEffect(Effect::Kind::Writes, at, open, 1, QStringLiteral("shutil.%1 writes").arg(function),
                          nullptr, function != QLatin1String("copytree"));
    }
    if (function == QLatin1String("make_archive") || function == QLatin1String("chown"))
        return pathEffect(Effect::Kind::Writes, at, open, 0,
                          QStringLiteral("shutil.%1 writes").arg(function));
    unknown(at, QStringLiteral("shutil.%1 is a call Countersign does not read").arg(function));
}

void Reader::openCall(qsizetype at, qsizetype open, qsizetype dot, int modeAt, const QString &defaultMode)
{
    if (open < 0)
        return unknown(at, QStringLiteral("hands open on, to open files Countersign cannot see"));
    // open(path, mode) or PATH.open(mode).
    const int modeIndex = dot >= 0 ? 0 : modeAt;
    const auto modeArgument = argument(open, modeIndex, "mode");
    const auto mode = modeArgument
                          ? literalOf(modeArgument->first, modeArgument->second)
                          : std::optional<QString>(defaultMode.isEmpty() ? QStringLiteral("r") : defaultMode);
    const bool writes =
        !mode || mode->contains(QLatin1Char('w')) || mode->contains(QLatin1Char('a')) ||
        mode->contains(QLatin1Char('x')) ||
        mode->contains(QLatin1Char(
            '+')); // Any mode that writes may lose what the file held (a, r+ and a truncate after).
    const bool replaces = writes;
    std::optional<QString> path;
    if (dot >= 0)
        path = receiverPath(dot);
    else
        path = literalArgument(open, 0, "file");
    const QString absolutePath = path ? absolute(*path) : QString();
    if (writes)
        return add(Effect::Kind::Writes, at,
                   path ? QStringLiteral("opens %1 to write").arg(*path)
                        : QStringLiteral("opens a file to write whose path is only known when it runs"),
                   absolutePath, !absolutePath.isEmpty(), replaces);
    // A read of a path only known when it runs may be a secret's: it asks.
    add(Effect::Kind::Reads, at,
        path ? QStringLiteral("reads %1").arg(*path)
             : QStringLiteral("reads a file whose path is only known when it runs"),
        absolutePath, !absolutePath.isEmpty());
}

void Reader::methodCall(const QString &method, qsizetype at, qsizetype open, qsizetype dot)
{
    const auto onReceiver = [&](Effect::Kind kind, const QString &what, bool replaces) {
        const auto path = dot >= 0 ? receiverPath(dot) : std::nullopt;
        const QString absolutePath = path ? absolute(*path) : QString();
        add(kind, at,
            path ? QStringLiteral("%1 %2").arg(what, *path)
                 : QStringLiteral("%1 a path only known when it runs").arg(what),
            absolutePath, !absolutePath.isEmpty(), replaces);
    };
    if (PythonNames::guardedMethod(method))
        return unknown(
            at, QStringLiteral(".%1() runs programs or deletes through an object Countersign does not follow")
                    .arg(method));
    static const QSet<QString> pathMethods = {
        QStringLiteral("unlink"),      QStringLiteral("rmdir"),     QStringLiteral("write_text"),
        QStringLiteral("write_bytes"), QStringLiteral("touch"),     QStringLiteral("mkdir"),
        QStringLiteral("chmod"),       QStringLiteral("lchmod"),    QStringLiteral("symlink_to"),
        QStringLiteral("hardlink_to"), QStringLiteral("link_to"),   QStringLiteral("rename"),
        QStringLiteral("replace"),     QStringLiteral("open"),      QStringLiteral("extractall"),
        QStringLiteral("extract"),     QStringLiteral("read_text"), QStringLiteral("read_bytes"),
        QStringLiteral("truncate"),    QStringLiteral("writestr")};
    if (open < 0 && pathMethods.contains(method))
        return unknown(
            at, QStringLiteral(".%1 handed on, to be called where Countersign does not follow").arg(method));
    if (method == QLatin1String("truncate"))
        return onReceiver(Effect::Kind::Writes, QStringLiteral(".truncate() empties"), true);
    if (method == QLatin1String("unlink") || method == QLatin1String("rmdir"))
        return onReceiver(Effect::Kind::Deletes, QStringLiteral(".%1() deletes").arg(method), false);
    if (method == QLatin1String("write_text") || method == QLatin1String("write_bytes"))
        return onReceiver(Effect::Kind::Writes, QStringLiteral(".%1() replaces").arg(method), true);
    if (method == QLatin1String("read_text") || method == QLatin1String("read_bytes"))
        return onReceiver(Effect::Kind::Reads, QStringLiteral(".%1() reads").arg(method), false);
    if (method == QLatin1String("touch") || method == QLatin1String("mkdir") ||
        method == QLatin1String("chmod") || method == QLatin1String("lchmod"))
        return onReceiver(Effect::Kind::Writes, QStringLiteral(".%1() changes").arg(method), false);
    if (method == QLatin1String("symlink_to") || method == QLatin1String("hardlink_to") ||
        method == QLatin1String("link_to") || method == QLatin1String("extractall") ||
        method == QLatin1String("extract"))
        return unknown(at, QStringLiteral(".%1() writes where a link or an archive leads").arg(method));
    if ((method == QLatin1String("rename") || method == QLatin1String("replace")) && open >= 0 &&
        arguments(open).size() == 1) {
        onReceiver(Effect::Kind::Writes, QStringLiteral(".%1() moves").arg(method), false);
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral(".%1() replaces").arg(method),
                          nullptr, true);
    }
    if (method == QLatin1String("open") && open >= 0 && dot >= 0)
        return openCall(at, open, dot);
    if ((method == QLatin1String("execute") || method == QLatin1String("executescript")) && open >= 0) {
        const auto sql = literalArgument(open, 0);
        if (!sql || sql->contains(QLatin1String("attach"), Qt::CaseInsensitive) ||
            sql->contains(QLatin1String("vacuum"), Qt::CaseInsensitive) ||
            sql->contains(QLatin1String("load_extension"), Qt::CaseInsensitive))
            return add(Effect::Kind::Unknown, at, QStringLiteral("runs SQL that may write another file"));
        return;
    }
    static const QSet<QString> saving = {QStringLiteral("to_csv"),     QStringLiteral("to_excel"),
                                         QStringLiteral("to_parquet"), QStringLiteral("to_pickle"),
                                         QStringLiteral("to_feather"), QStringLiteral("to_hdf"),
                                         QStringLiteral("savefig"),    QStringLiteral("save")};
    if (saving.contains(method) && open >= 0 && argument(open, 0))
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral(".%1() writes").arg(method),
                          nullptr, true);
}

std::optional<QString> Reader::receiverPath(qsizetype dot) const
{
    if (dot < 1)
        return std::nullopt;
    const qsizetype before = dot - 1;
    if (isNameAt(before)) // NAME.method: a constant's value; a.b.method: not known
        return isOp(before - 1, ".") || !m_constants.contains(m_t.at(before).text)
                   ? std::nullopt
                   : std::optional<QString>(m_constants.value(m_t.at(before).text));
    if (!isOp(before, ")") || m_match.at(before) < 1)
        return std::nullopt;
    // CALL(...).method: the call's own tokens.
    qsizetype start = m_match.at(before) - 1;
    if (!isNameAt(start))
        return std::nullopt;
    while (isOp(start - 1, ".") && isNameAt(start - 2))
        start -= 2;
    return literalOf(start, before + 1);
}

} // namespace Detail

namespace {

// What one decision reads of Python, nested reads included (code that runs python -c code ...):
// past it, the rest is not read.
struct Budget final
{
    int depth = 0;
    qsizetype tokens = 0;
};
Budget &budget()
{
    thread_local Budget b;
    return b;
}

} // namespace

void read(CommandCatalog &c, const QString &code, const QString &origin, const QString &importFolder)
{
    Budget &b = budget();
    if (b.depth == 0)
        b.tokens = 0;
    if (b.depth >= 4) {
        c.unknown(QStringLiteral("%1: Python nested in Python deeper than Countersign reads").arg(origin));
        return;
    }
    struct Nested final
    {
        Budget &b;
        explicit Nested(Budget &budget) : b(budget) { ++b.depth; }
        ~Nested() { --b.depth; }
        Nested(const Nested &) = delete;
        Nested &operator=(const Nested &) = delete;
    } nested(b);
    QList<Python::Token> tokens;
    QString why;
    if (code.size() > kMaxCodeChars) {
        c.unknown(QStringLiteral("%1: more Python than Countersign reads").arg(origin));
        return;
    }
    if (!Python::tokenize(code, &tokens, &why)) {
        c.unknown(QStringLiteral("%1: Python Countersign cannot read (%2)").arg(origin, why));
        return;
    }
    b.tokens += tokens.size();
    if (b.tokens > Python::kMaxTokens) {
        c.unknown(QStringLiteral("%1: more Python than Countersign reads in one command").arg(origin));
        return;
    }
    const QStringList lines = code.split(QLatin1Char('\n'));
    Detail::Reader(c, tokens, lines, origin, importFolder).run();
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = Effect::Code::Read;
    e.what =
        QStringLiteral("runs %1, Python Countersign read: it reads, computes and writes only what it names")
            .arg(origin);
    c.append(std::move(e));
}

} // namespace Countersign::Shell::PythonCode
