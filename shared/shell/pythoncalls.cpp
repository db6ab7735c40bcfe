#include "pythoncode.h"

#include "pythonreader.h"

namespace Countersign::Shell::PythonCode {

namespace Detail {

qsizetype Reader::chainEnd(qsizetype at) const
{
    qsizetype end = at;
    while (isOp(end + 1, ".") && end + 2 < m_t.size() && m_t.at(end + 2).kind == Token::Kind::Name)
        end += 2;
    return end;
}

void Reader::process(const QString &name, qsizetype at, qsizetype open)
{
    if (open < 0)
        return add(Effect::Kind::Unknown, at,
                   QStringLiteral("hands %1 on, to run programs Countersign cannot see").arg(name));
    static const QSet<QString> lines =
        setOf({"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput",
               "asyncio.create_subprocess_shell"});
    const auto shellArgument = argument(open, -1, "shell");
    const bool shell =
        lines.contains(name) || (shellArgument && shellArgument->second - shellArgument->first == 1 &&
                                 m_t.at(shellArgument->first).text == QLatin1String("True"));
    if (name.startsWith(QLatin1String("os.")) && !lines.contains(name))
        return add(Effect::Kind::Unknown, at,
                   QStringLiteral("%1 runs a program Countersign does not follow").arg(name));
    const auto first = argument(open, 0, "args");
    if (!first)
        return add(Effect::Kind::Unknown, at,
                   QStringLiteral("%1 runs a command Countersign cannot read").arg(name));
    Invocation how = m_c.how();
    how.cwd = m_cwd;
    how.argv.clear();
    how.stdinKind = Stdin::None;
    how.depth += 1;
    if (const auto cwd = literalArgument(open, -1, "cwd"))
        how.cwd = absolute(*cwd);
    else if (argument(open, -1, "cwd"))
        how.cwd.clear();
    if (const auto env = argument(open, -1, "env"))
        add(Effect::Kind::Environment, at, QStringLiteral("runs a command with an environment it builds"));
    if (const auto line = literalOf(first->first, first->second)) {
        if (shell) {
            m_c.readLine(*line, how.cwd);
        } else {
            m_c.run({Arg{*line, true, false, {}}}, how);
        }
        return;
    }
    // A list or tuple of literals: the argv.
    if (isOp(first->first, "[") || isOp(first->first, "(")) {
        QList<Arg> argv;
        for (const auto &[a, b] : arguments(first->first)) {
            const auto word = literalOf(a, b);
            if (!word)
                return add(
                    Effect::Kind::Unknown, at,
                    QStringLiteral("%1 runs a command whose words are only known when it runs").arg(name));
            argv.append(Arg{*word, true, false, {}});
        }
        if (argv.isEmpty())
            return add(Effect::Kind::Unknown, at, QStringLiteral("%1 runs an empty command").arg(name));
        if (shell)
            m_c.readLine(argv.first().text, how.cwd);
        else
            m_c.run(argv, how);
        return;
    }
    // shlex.split("literal"): its words.
    if (first->second - first->first >= 4 &&
        resolved(chainText(first->first, first->first + 3)) == QLatin1String("shlex.split") &&
        isOp(first->first + 3, "(")) {
        if (const auto line = literalArgument(first->first + 3, 0)) {
            m_c.readLine(*line, how.cwd);
            return;
        }
    }
    add(Effect::Kind::Unknown, at, QStringLiteral("%1 runs a command only known when it runs").arg(name));
}

void Reader::network(const QString &name, qsizetype at, qsizetype open)
{
    static const QRegularExpression url(QStringLiteral("^[a-zA-Z][a-zA-Z0-9+.-]*://([^/:?#\\s]+)"));
    QString host;
    if (open >= 0) {
        for (const auto &[a, b] : arguments(open)) {
            for (qsizetype k = a; k < b && host.isEmpty(); ++k) {
                if (m_t.at(k).kind == Token::Kind::String) {
                    if (const auto m = url.match(m_t.at(k).text); m.hasMatch())
                        host = m.captured(1);
                }
                if (m_t.at(k).kind == Token::Kind::Name && m_constants.contains(m_t.at(k).text)) {
                    if (const auto m = url.match(m_constants.value(m_t.at(k).text)); m.hasMatch())
                        host = m.captured(1);
                }
            }
        }
    }
    // Naming a network module's constants or its types is not a connection; its calls are.
    if (open < 0 && name.count(QLatin1Char('.')) != 0 && !name.section(QLatin1Char('.'), -1).at(0).isLower())
        return;
    if (open < 0 && name.count(QLatin1Char('.')) == 0)
        return; // the module named alone (import requests): its calls are what connects
    add(Effect::Kind::Network, at,
        host.isEmpty() ? QStringLiteral("%1 reaches the network").arg(name)
                       : QStringLiteral("%1 connects to %2").arg(name, host),
        host, !host.isEmpty());
}

void Reader::osCall(const QStringList &parts, qsizetype at, qsizetype open)
{
    const QString function = parts.value(1);
    const auto unknown = [&](const QString &why) { add(Effect::Kind::Unknown, at, why); };
    if (parts.size() == 1)
        return;
    if (function == QLatin1String("environ") || function == QLatin1String("getenv") ||
        function == QLatin1String("putenv") || function == QLatin1String("unsetenv")) {
        const qsizetype end = chainEnd(at);
        std::optional<QString> variable;
        if (function == QLatin1String("environ") && isOp(end + 1, "[")) {
            const auto args = arguments(end + 1);
            if (args.size() == 1)
                variable = literalOf(args.first().first, args.first().second);
        } else if (open >= 0 &&
                   (function != QLatin1String("environ") || parts.value(2) == QLatin1String("get") ||
                    parts.value(2) == QLatin1String("setdefault") ||
                    parts.value(2) == QLatin1String("pop"))) {
            variable = literalArgument(open, 0);
        }
        if (!variable)
            return add(Effect::Kind::Secret, at,
                       QStringLiteral("reads the whole environment (secrets included)"));
        const bool sets = function == QLatin1String("putenv") ||
                          parts.value(2) == QLatin1String("setdefault") ||
                          (function == QLatin1String("environ") && isOp(end + 1, "[") && [&] {
                              int depth = 0;
                              for (qsizetype k = end + 1; k < m_t.size(); ++k) {
                                  if (isOp(k, "["))
                                      ++depth;
                                  else if (isOp(k, "]") && --depth == 0)
                                      return isOp(k + 1, "=");
                              }
                              return false;
                          }());
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
        if (parts.value(2) == QLatin1String("expanduser"))
            add(Effect::Kind::Reads, at, QStringLiteral("names your home folder"),
                open >= 0 && literalArgument(open, 0) ? absolute(*literalArgument(open, 0)) : m_c.home());
        return;
    }
    if (osReading().contains(function))
        return;
    if (function == QLatin1String("chdir")) {
        const auto to = open >= 0 ? literalArgument(open, 0) : std::nullopt;
        m_cwd = to ? absolute(*to) : QString();
        return;
    }
    static const QSet<QString> deleting = setOf({"remove", "unlink", "rmdir", "removedirs"});
    static const QSet<QString> writing = setOf({"mkdir", "makedirs", "chmod", "lchmod", "chown", "lchown",
                                                "utime", "truncate", "mkfifo", "mknod", "chflags"});
    if (deleting.contains(function))
        return pathEffect(Effect::Kind::Deletes, at, open, 0, QStringLiteral("os.%1 deletes").arg(function));
    if (writing.contains(function))
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("os.%1 changes").arg(function),
                          nullptr, function == QLatin1String("truncate"));
    if (function == QLatin1String("rename") || function == QLatin1String("renames") ||
        function == QLatin1String("replace")) {
        pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("os.%1 moves").arg(function));
        return pathEffect(Effect::Kind::Writes, at, open, 1, QStringLiteral("os.%1 replaces").arg(function),
                          nullptr, true);
    }
    if (function == QLatin1String("system") || function == QLatin1String("popen") ||
        function.startsWith(QLatin1String("exec")) || function.startsWith(QLatin1String("spawn")) ||
        function.startsWith(QLatin1String("posix_spawn")) || function.startsWith(QLatin1String("fork")))
        return process(QStringLiteral("os.") + function, at, open);
    unknown(QStringLiteral("os.%1 is a call Countersign does not read").arg(function));
}

void Reader::shutilCall(const QString &function, qsizetype at, qsizetype open)
{
    static const QSet<QString> harmless =
        setOf({"shutil", "which", "disk_usage", "get_terminal_size", "ignore_patterns", "Error",
               "SameFileError", "copyfileobj", "get_archive_formats"});
    if (harmless.contains(function))
        return;
    if (function == QLatin1String("rmtree"))
        return pathEffect(Effect::Kind::Deletes, at, open, 0, QStringLiteral("shutil.rmtree deletes all of"));
    static const QSet<QString> copying =
        setOf({"copy", "copy2", "copyfile", "copytree", "move", "copymode", "copystat"});
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
    add(Effect::Kind::Unknown, at,
        QStringLiteral("shutil.%1 is a call Countersign does not read").arg(function));
}

void Reader::openCall(qsizetype at, qsizetype open, qsizetype dot)
{
    if (open < 0)
        return add(Effect::Kind::Unknown, at,
                   QStringLiteral("hands open on, to open files Countersign cannot see"));
    // open(path, mode) or PATH.open(mode).
    const int modeAt = dot >= 0 ? 0 : 1;
    const auto modeArgument = argument(open, modeAt, "mode");
    const auto mode =
        modeArgument ? literalOf(modeArgument->first, modeArgument->second) : std::optional<QString>();
    const bool writes =
        modeArgument && (!mode || mode->contains(QLatin1Char('w')) || mode->contains(QLatin1Char('a')) ||
                         mode->contains(QLatin1Char('x')) || mode->contains(QLatin1Char('+')));
    if (dot >= 0) {
        const auto path = receiverPath(dot);
        if (writes)
            add(Effect::Kind::Writes, at,
                path ? QStringLiteral("opens %1 to write").arg(*path)
                     : QStringLiteral("opens a file to write whose path is only known when it runs"),
                path ? absolute(*path) : QString(), path.has_value(),
                mode && mode->contains(QLatin1Char('w')));
        else if (path)
            add(Effect::Kind::Reads, at, QStringLiteral("reads %1").arg(*path), absolute(*path));
        return;
    }
    if (writes)
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("opens to write"), "file",
                          mode && mode->contains(QLatin1Char('w')));
    if (const auto path = literalArgument(open, 0, "file"))
        add(Effect::Kind::Reads, at, QStringLiteral("reads %1").arg(*path), absolute(*path));
}

void Reader::methodCall(const QString &method, qsizetype at, qsizetype open, qsizetype dot)
{
    const auto onReceiver = [&](Effect::Kind kind, const QString &what, bool replaces) {
        const auto path = receiverPath(dot);
        add(kind, at,
            path ? QStringLiteral("%1 %2").arg(what, *path)
                 : QStringLiteral("%1 a path only known when it runs").arg(what),
            path ? absolute(*path) : QString(), path.has_value(), replaces);
    };
    if (method == QLatin1String("unlink") || method == QLatin1String("rmdir"))
        return onReceiver(Effect::Kind::Deletes, QStringLiteral(".%1() deletes").arg(method), false);
    if (method == QLatin1String("write_text") || method == QLatin1String("write_bytes"))
        return onReceiver(Effect::Kind::Writes, QStringLiteral(".%1() replaces").arg(method), true);
    if (method == QLatin1String("touch") || method == QLatin1String("mkdir") ||
        method == QLatin1String("chmod") || method == QLatin1String("lchmod"))
        return onReceiver(Effect::Kind::Writes, QStringLiteral(".%1() changes").arg(method), false);
    if (method == QLatin1String("symlink_to") || method == QLatin1String("hardlink_to") ||
        method == QLatin1String("link_to"))
        return add(Effect::Kind::Unknown, at,
                   QStringLiteral(".%1() makes a link, which leads where it says").arg(method));
    if ((method == QLatin1String("rename") || method == QLatin1String("replace")) && open >= 0 &&
        arguments(open).size() == 1) {
        onReceiver(Effect::Kind::Writes, QStringLiteral(".%1() moves").arg(method), false);
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral(".%1() replaces").arg(method),
                          nullptr, true);
    }
    if (method == QLatin1String("open") && open >= 0)
        return openCall(at, open, dot);
    static const QSet<QString> saving = setOf({"to_csv", "to_excel", "to_parquet", "to_pickle", "to_feather",
                                               "to_hdf", "savefig", "save", "to_json"});
    if (saving.contains(method) && open >= 0 && argument(open, 0)) {
        const auto path = literalArgument(open, 0);
        if (path)
            add(Effect::Kind::Writes, at, QStringLiteral(".%1() writes %2").arg(method, *path),
                absolute(*path), true, true);
    }
}

} // namespace Detail

void read(CommandCatalog &c, const QString &code, const QString &origin)
{
    QList<Python::Token> tokens;
    QString why;
    if (code.size() > kMaxCodeChars) {
        c.unknown(QStringLiteral("%1: more Python than Countersign reads").arg(origin));
    } else if (!Python::tokenize(code, &tokens, &why)) {
        c.unknown(QStringLiteral("%1: Python Countersign cannot read (%2)").arg(origin, why));
    } else {
        const QStringList lines = code.split(QLatin1Char('\n'));
        Detail::Reader(c, tokens, lines, origin).run();
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Read;
        e.what = QStringLiteral(
                     "runs %1, Python Countersign read: it reads, computes and writes only what it names")
                     .arg(origin);
        c.append(std::move(e));
    }
}

} // namespace Countersign::Shell::PythonCode
