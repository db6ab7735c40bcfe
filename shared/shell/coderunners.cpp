#include "coderunners.h"

#include "argtools.h"
#include "javascriptcode.h"
#include "projecttools.h"
#include "pythoncode.h"

#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::CodeRunners {

using namespace ArgTools;

namespace {

// A wrapper's form: the options that take a value as the next argument, and how many operands
// come before the command (timeout's duration).
struct WrapperForm final
{
    QStringList valued;
    int operands = 0;
};

// The wrappers wrapper() reads, each with its form.
const QHash<QString, WrapperForm> &wrapperForms()
{
    static const QHash<QString, WrapperForm> forms = {
        {QStringLiteral("sudo"),
         {words({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"}), 0}},
        {QStringLiteral("doas"), {words({"-u", "-C"}), 0}},
        {QStringLiteral("nohup"), {{}, 0}},
        {QStringLiteral("time"), {words({"-f", "--format"}), 0}},
        {QStringLiteral("command"), {{}, 0}},
        {QStringLiteral("builtin"), {{}, 0}},
        {QStringLiteral("exec"), {words({"-a"}), 0}},
        {QStringLiteral("timeout"), {words({"-s", "-k", "--signal", "--kill-after"}), 1}},
        {QStringLiteral("nice"), {words({"-n", "--adjustment"}), 0}},
        {QStringLiteral("ionice"), {words({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}), 0}},
        {QStringLiteral("stdbuf"), {words({"-i", "-o", "-e", "--input", "--output", "--error"}), 0}},
        {QStringLiteral("chrt"), {{}, 1}},
        {QStringLiteral("taskset"), {{}, 1}},
        {QStringLiteral("setsid"), {{}, 0}},
        {QStringLiteral("unbuffer"), {{}, 0}},
        {QStringLiteral("caffeinate"), {{}, 0}},
        {QStringLiteral("xargs"),
         {words({"-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "--max-args", "--max-procs", "--delimiter",
                 "--arg-file"}),
          0}},
        {QStringLiteral("env"), {words({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}), 0}},
    };
    return forms;
}

// An option of the wrapper at *k (env -S and -C, sudo -D, -s and -e, time -o, xargs -a, nice -10):
// read, and *k moved past it and its value; true when that ends the wrapper's reading (a line read
// in its place, or a shell or an editor that asks).
bool wrapperOption(CommandCatalog &c, const QString &program, const QList<Arg> &args, qsizetype *k,
                   const WrapperForm &form, Invocation &inner)
{
    const Arg &a = args.at(*k);
    const QString option = a.text.section(QLatin1Char('='), 0, 0);
    if (program == QLatin1String("env") &&
        (option == QLatin1String("-S") || option == QLatin1String("--split-string") ||
         (option.startsWith(QLatin1String("-S")) && option.size() > 2))) {
        // env -S "line": the rest is split into words as a shell would
        QString line = a.text.contains(QLatin1Char('=')) ? a.text.section(QLatin1Char('='), 1)
                       : option.size() > 2 && option.startsWith(QLatin1String("-S"))
                           ? a.text.mid(2)
                           : args.value(*k + 1).text;
        c.readLine(line, c.how().cwd);
        return true;
    }
    if ((program == QLatin1String("env") &&
         (option == QLatin1String("-C") || option == QLatin1String("--chdir"))) ||
        (program == QLatin1String("sudo") && option == QLatin1String("-D"))) {
        const QString dir =
            a.text.contains(QLatin1Char('=')) ? a.text.section(QLatin1Char('='), 1) : args.value(*k + 1).text;
        inner.cwd = CommandCatalog::absolute(Arg{dir, args.value(*k + 1).known, false, {}}, c.how().cwd);
    }
    if (program == QLatin1String("sudo") &&
        (option == QLatin1String("-s") || option == QLatin1String("-i") || option == QLatin1String("-e") ||
         option == QLatin1String("--edit"))) {
        c.unknown(QStringLiteral("sudo %1 opens a shell or an editor as another user").arg(option));
        return true;
    }
    if (program == QLatin1String("time") &&
        (option == QLatin1String("-o") || option.startsWith(QLatin1String("--o")))) {
        const Arg out = a.text.contains(QLatin1Char('='))
                            ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}}
                            : args.value(*k + 1);
        c.addPath(Effect::Kind::Writes, QStringLiteral("time writes %1").arg(out.text), out);
        *k += a.text.contains(QLatin1Char('=')) ? 1 : 2;
        return false;
    }
    if (program == QLatin1String("xargs") && a.text.startsWith(QLatin1String("--arg-file="))) {
        c.addPath(Effect::Kind::Reads, QStringLiteral("xargs reads its arguments from a file"),
                  Arg{a.text.mid(11), a.known, false, {}});
    }
    if (program == QLatin1String("xargs") &&
        (option == QLatin1String("-a") || option == QLatin1String("--arg-file")))
        c.addPath(Effect::Kind::Reads, QStringLiteral("xargs reads its arguments from a file"),
                  args.value(*k + 1));
    if (program == QLatin1String("nice") && a.text.size() > 1 && a.text.at(1).isDigit()) {
        ++*k; // nice -10
        return false;
    }
    *k += form.valued.contains(option) && !a.text.contains(QLatin1Char('=')) ? 2 : 1;
    return false;
}

// xargs's command (all, after the options that end at k): the words it replaces and what it
// appends come from its input.
void xargsCommand(CommandCatalog &c, const QList<Arg> &args, qsizetype k, QList<Arg> &all)
{
    // -I R, -i[R], --replace[=R]: each R in the command is a line of its input, not known.
    QString replace;
    for (qsizetype j = 1; j < k; ++j) {
        const QString t = args.at(j).text;
        if (t == QLatin1String("-I"))
            replace = args.value(j + 1).text;
        else if (t.startsWith(QLatin1String("-I")) || (t.startsWith(QLatin1String("-i")) && t.size() > 2))
            replace = t.mid(2);
        else if (t == QLatin1String("-i") || t == QLatin1String("--replace"))
            replace = QStringLiteral("{}");
        else if (t.startsWith(QLatin1String("--replace=")))
            replace = t.mid(10);
    }
    if (!replace.isEmpty()) {
        for (Arg &a : all) {
            if (a.text.contains(replace))
                a.known = false;
        }
    }
    // What it reads is what the part before it prints: paths under the folders find, fd or git
    // ls-files walk, or something not known.
    if (c.how().stdinPaths.isEmpty())
        all.append(Arg{QStringLiteral("(from standard input)"), false, false, {}});
    for (const QString &folder : c.how().stdinPaths)
        all.append(Arg{folder, true, folder.contains(QLatin1String("/**/")), {}});
}

} // namespace

// Programs that run the command after their own options: taken off, and the command read.
bool wrapper(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const QHash<QString, WrapperForm> &forms = wrapperForms();
    const auto form = forms.constFind(program);
    if (form == forms.cend())
        return false;
    if (program == QLatin1String("env") && args.size() == 1)
        return false; // a dump, judged by builtin()
    if (program == QLatin1String("sudo") || program == QLatin1String("doas"))
        c.add(Effect::Kind::Privilege, QStringLiteral("runs as another user (%1)").arg(program));
    if (program == QLatin1String("exec") && args.size() == 1)
        return true; // exec with redirections only: they were read already
    Invocation inner = c.how();
    qsizetype k = 1;
    int operands = form->operands;
    while (k < args.size()) {
        const Arg &a = args.at(k);
        if (!a.known) {
            c.unknown(QStringLiteral("%1 is given an argument that expands (%2)").arg(program, a.text));
            return true;
        }
        if (a.text == QLatin1String("--")) {
            ++k;
            break;
        }
        if (program == QLatin1String("env") && a.text.contains(QLatin1Char('=')) &&
            !a.text.startsWith(QLatin1Char('-'))) {
            for (Effect e :
                 CommandCatalog::settingEffects(a.text.section(QLatin1Char('='), 0, 0),
                                                a.text.section(QLatin1Char('='), 1), c.how().cwd, c.home()))
                c.append(std::move(e));
            ++k;
            continue;
        }
        if (a.text.startsWith(QLatin1Char('-')) && a.text.size() > 1) {
            if (wrapperOption(c, program, args, &k, *form, inner))
                return true;
            continue;
        }
        if (operands > 0) {
            --operands;
            ++k;
            continue;
        }
        break;
    }
    const QList<Arg> rest = args.mid(k);
    if (rest.isEmpty()) {
        if (program == QLatin1String("xargs")) // echo's words as a command
            c.unknown(QStringLiteral("xargs runs echo with what it reads"));
        else if (program != QLatin1String("command") && program != QLatin1String("time"))
            c.unknown(QStringLiteral("%1 with no command").arg(program));
        return true;
    }
    if (program == QLatin1String("command") && args.value(1).text == QLatin1String("-v"))
        return true; // command -v NAME: says where a name leads
    inner.argv.clear();
    inner.depth += 1;
    QList<Arg> all = rest;
    if (program == QLatin1String("xargs"))
        xargsCommand(c, args, k, all);
    c.run(all, inner);
    return true;
}

// A shell: "-c LINE" is read as a line; a script file runs; with neither, it runs its input.
bool shell(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QStringList shells = words({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox",
                                             "fish", "rbash", "eval", "watch", "su", "script"});
    if (!shells.contains(program))
        return false;
    if (program == QLatin1String("busybox") && args.size() > 1) {
        c.runInner(args.mid(1));
        return true;
    }
    if (program == QLatin1String("eval") || program == QLatin1String("watch")) {
        QStringList parts;
        qsizetype k = 1;
        if (program == QLatin1String("watch")) {
            static const QStringList valued = words({"-n", "--interval", "-d", "-q", "--differences"});
            while (k < args.size() && CommandCatalog::isOption(args.at(k)))
                k += valued.contains(args.at(k).text) && args.at(k).text != QLatin1String("-d") ? 2 : 1;
        }
        for (const Arg &a : args.mid(k)) {
            if (!a.known || a.glob) {
                c.unknown(QStringLiteral("%1 of words that expand (%2)").arg(program, a.text));
                return true;
            }
            parts.append(a.text);
        }
        c.readLine(parts.join(QLatin1Char(' ')), c.how().cwd);
        return true;
    }
    if (program == QLatin1String("su")) {
        c.add(Effect::Kind::Privilege, QStringLiteral("runs as another user (su)"));
    }
    if (program == QLatin1String("zsh") || program == QLatin1String("fish") ||
        program == QLatin1String("ksh") || program == QLatin1String("mksh")) {
        c.unknown(QStringLiteral("%1 reads a language of its own, not bash's").arg(program));
        return true;
    }
    if (program == QLatin1String("script")) {
        c.unknown(QStringLiteral("script records a shell session"));
        return true;
    }
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            c.unknown(QStringLiteral("%1 is given an argument that expands (%2)").arg(program, a.text));
            return true;
        }
        const bool option = a.text.startsWith(QLatin1Char('-')) || a.text.startsWith(QLatin1Char('+'));
        if (option && a.text != QLatin1String("-") && a.text != QLatin1String("--")) {
            if (a.text == QLatin1String("-o") || a.text == QLatin1String("+o") ||
                a.text == QLatin1String("-O") || a.text == QLatin1String("--rcfile") ||
                a.text == QLatin1String("--init-file")) {
                if (a.text.endsWith(QLatin1String("file")))
                    c.unknown(QStringLiteral("%1 %2 runs another file first").arg(program, a.text));
                ++k;
                continue;
            }
            const bool command =
                !a.text.startsWith(QLatin1String("--")) && a.text.mid(1).contains(QLatin1Char('c'));
            if (command || (program == QLatin1String("su") && (a.text == QLatin1String("--command")))) {
                if (k + 1 >= args.size()) {
                    c.unknown(QStringLiteral("%1 -c with no line").arg(program));
                    return true;
                }
                if (!args.at(k + 1).known) {
                    c.unknown(QStringLiteral("%1 -c of a line that expands").arg(program));
                    return true;
                }
                c.readLine(args.at(k + 1).text, c.how().cwd);
                return true;
            }
            if (a.text.mid(1).contains(QLatin1Char('s')))
                break; // -s: the script comes from standard input
            continue;
        }
        if (program == QLatin1String("su"))
            continue; // su USER
        if (a.text == QLatin1String("-") || a.text == QLatin1String("--"))
            continue;
        // sh FILE: the file runs.
        const QString path = CommandCatalog::absolute(a, c.how().cwd);
        c.script(QStringLiteral("runs the shell script %1").arg(a.text), path, !path.isEmpty() && !a.glob);
        return true;
    }
    // No line, no file: it runs what it reads.
    switch (c.how().stdinKind) {
    case Stdin::Text:
        if (c.how().stdinDynamic)
            c.unknown(QStringLiteral("%1 runs a here-document whose text is only known when the line runs")
                          .arg(program));
        else
            c.readLine(c.how().stdinText, c.how().cwd);
        break;
    case Stdin::File: {
        const QString path = c.how().stdinPath;
        c.script(QStringLiteral("runs the shell code it reads from %1").arg(path), path, !path.isEmpty());
        break;
    }
    case Stdin::Pipe:
    case Stdin::None: {
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Stdin;
        e.cwd = c.how().cwd;
        e.argv = c.how().argv;
        e.what = QStringLiteral("runs whatever is piped into %1").arg(program);
        c.append(std::move(e));
        break;
    }
    }
    return true;
}

} // namespace Countersign::Shell::CodeRunners
