// CodeRunners::interpreter: python, node, ruby, perl, php and the others, each argument read in turn
// (coderunners.h).
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

// Interpreters: inline code asks; a script file runs as the project's; a module by name (python -m)
// is read as the program it is.
namespace {

// Its version or its help alone (java -version, ruby --version): prints and exits. Only the flags
// that do for that interpreter (python -v is verbose, and runs what it reads), and nothing on its
// input.
bool printsOnly(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QHash<QString, QStringList> printing = {
        {QStringLiteral("python"), words({"-V", "--version", "-h", "--help"})},
        {QStringLiteral("node"), words({"-v", "--version", "-h", "--help"})},
        {QStringLiteral("java"), words({"-version", "--version", "-help", "--help", "-h"})},
        {QStringLiteral("ruby"), words({"--version", "-h", "--help"})},
        {QStringLiteral("perl"), words({"-v", "--version"})},
        {QStringLiteral("php"), words({"-v", "--version", "-h", "--help"})},
        {QStringLiteral("deno"), words({"--version", "-V", "--help"})},
        {QStringLiteral("bun"), words({"--version", "-v", "--help"})}};
    static const QRegularExpression versioned(QStringLiteral("[0-9.]+$"));
    const QString family = program.startsWith(QLatin1String("python")) ? QStringLiteral("python")
                           : program == QLatin1String("nodejs")        ? QStringLiteral("node")
                                                                       : QString(program).remove(versioned);
    if (args.size() == 2 && printing.value(family).contains(args.at(1).text) &&
        c.how().stdinKind == Stdin::None) {
        c.add(Effect::Kind::Reads, QStringLiteral("%1 prints its version or help").arg(program));
        return true;
    }
    return false;
}

// python -m MODULE: a module it knows (the project's tests, a linter, a venv, a server), else asks.
void pythonModule(CommandCatalog &c, const QString &program, const QList<Arg> &args, qsizetype k)
{
    const Arg &a = args.at(k);
    const QString module = a.text.size() > 2 ? a.text.mid(2) : args.value(k + 1).text;
    QList<Arg> inner = {Arg{module, true, false, {}}};
    inner += args.mid(a.text.size() > 2 ? k + 1 : k + 2);
    static const QStringList asPrograms = words({"pytest", "pip", "pip3", "black", "ruff", "mypy", "flake8",
                                                 "pylint", "isort", "tox", "nox", "coverage"});
    if (module == QLatin1String("unittest") || module == QLatin1String("doctest")) {
        c.project(QStringLiteral("runs the project's tests (%1 -m %2)").arg(program, module),
                  ProjectTools::pythonDefinitions());
    } else if (module == QLatin1String("json.tool") || module == QLatin1String("py_compile") ||
               module == QLatin1String("compileall") || module == QLatin1String("this") ||
               module == QLatin1String("site")) {
        c.readsOperands(inner);
    } else if (module == QLatin1String("venv") || module == QLatin1String("virtualenv")) {
        for (const Arg &dir : inner.mid(1))
            if (!CommandCatalog::isOption(dir))
                c.addPath(Effect::Kind::Writes,
                          QStringLiteral("makes a virtual environment in %1").arg(dir.text), dir);
    } else if (asPrograms.contains(module)) {
        c.runInner(inner);
    } else if (module == QLatin1String("http.server") || module == QLatin1String("SimpleHTTPServer")) {
        c.add(Effect::Kind::Network,
              QStringLiteral("serves the folder over HTTP (%1 -m %2)").arg(program, module));
    } else {
        c.unknown(QStringLiteral("%1 -m %2 runs a module Countersign does not know").arg(program, module));
    }
}

// node --test: the project's tests, unless an option before them may load code first.
void nodeTests(CommandCatalog &c, const QList<Arg> &args)
{
    for (const Arg &other : args.mid(1)) {
        if (other.text.startsWith(QLatin1String("-")) && !other.text.startsWith(QLatin1String("--test"))) {
            c.unknown(QStringLiteral("node --test %1 may load code first").arg(other.text));
            return;
        }
    }
    c.project(QStringLiteral("runs the project's tests (node --test)"), ProjectTools::nodeDefinitions());
}

// node -e CODE (-p, --eval=CODE, --print CODE) at k: read (true), or not that form (false).
bool nodeInline(CommandCatalog &c, const QString &program, const QList<Arg> &args, qsizetype k)
{
    const Arg &a = args.at(k);
    const bool joined =
        a.text.startsWith(QLatin1String("--eval=")) || a.text.startsWith(QLatin1String("--print="));
    if ((joined ||
         ((a.text == QLatin1String("-e") || a.text == QLatin1String("-p") || a.text == QLatin1String("-pe") ||
           a.text == QLatin1String("--eval") || a.text == QLatin1String("--print")) &&
          k + 1 < args.size()))) {
        const Arg code =
            joined ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}} : args.at(k + 1);
        // node reads options after the code too: one may load code before it.
        for (qsizetype j = joined ? k + 1 : k + 2; j < args.size(); ++j) {
            if (args.at(j).text == QLatin1String("--"))
                break;
            if (args.at(j).text.startsWith(QLatin1Char('-')) || !args.at(j).known) {
                c.unknown(
                    QStringLiteral("%1 %2 after the code may load code first").arg(program, args.at(j).text));
                return true;
            }
        }
        if (!code.known) {
            c.unknown(QStringLiteral("%1 %2 of code that expands before it runs").arg(program, a.text));
            return true;
        }
        JavaScriptCode::read(c, code.text,
                             QStringLiteral("%1 %2").arg(program, a.text.section(QLatin1Char('='), 0, 0)));
        return true;
    }
    return false;
}

// An option before the script (at k) that may load code, settings or files, or one it does not
// read: asks (true). *k moves past the option's value.
bool optionRefused(CommandCatalog &c, const QString &program, const QList<Arg> &args, qsizetype *k, bool node,
                   bool python)
{
    const Arg &a = args.at(*k);
    static const QStringList valued = words(
        {"-W", "-X", "--require", "-r", "--import", "--loader", "-I", "-cp", "-classpath", "--class-path"});
    // Options that load code, settings or files before the script (node --require=, perl -M,
    // php -d auto_prepend_file=, ruby -r, python's startup through -X? no: those are listed).
    static const QStringList loaders = words({"-r",
                                              "--require",
                                              "--import",
                                              "--loader",
                                              "--experimental-loader",
                                              "-M",
                                              "-m",
                                              "-d",
                                              "-I",
                                              "--env-file",
                                              "--preserve-symlinks",
                                              "--experimental",
                                              "--inspect",
                                              "--cpu-prof",
                                              "--heap-prof",
                                              "--redirect-warnings",
                                              "--report",
                                              "--diagnostic-dir",
                                              "--openssl-config",
                                              "--icu-data-dir",
                                              "--snapshot",
                                              "-z",
                                              "--prof",
                                              "--title",
                                              "-a",
                                              "--allow"});
    // node's options are many, and many load code, open a port or write a file
    // (--inspect-brk, --report-filename, --logfile, --snapshot-blob, --env-file-if-exists):
    // only these few are read. Python's -X: only the ones that change no file or code.
    static const QStringList nodeQuiet =
        words({"--no-warnings", "--no-deprecation", "--trace-warnings", "--trace-deprecation",
               "--throw-deprecation", "--pending-deprecation", "--trace-uncaught", "--enable-source-maps",
               "--input-type=commonjs"});
    static const QRegularExpression nodeSized(
        QStringLiteral("^--(max-old-space-size|max-semi-space-size|stack-size)=[0-9]+$"));
    static const QStringList pythonX =
        words({"dev", "utf8", "utf8=1", "utf8=0", "importtime", "faulthandler", "tracemalloc",
               "warn_default_encoding", "no_debug_ranges", "frozen_modules=on", "frozen_modules=off"});
    if ((node && !nodeQuiet.contains(a.text) && !nodeSized.match(a.text).hasMatch()) ||
        (python && a.text == QLatin1String("-X") && !pythonX.contains(args.value(*k + 1).text)) ||
        (python && a.text.startsWith(QLatin1String("-X")) && a.text.size() > 2 &&
         !pythonX.contains(a.text.mid(2)))) {
        c.unknown(QStringLiteral("%1 %2 is an option Countersign does not read").arg(program, a.text));
        return true;
    }
    const bool loads = std::any_of(loaders.cbegin(), loaders.cend(),
                                   [&a](const QString &l) {
                                       return a.text == l || a.text.startsWith(l + QLatin1Char('=')) ||
                                              (l.size() == 2 && a.text.startsWith(l) &&
                                               !a.text.startsWith(QLatin1String("--")));
                                   }) ||
                       (!node && !python); // the others' options are not read: any of them may load code
    if (loads && !(python && a.text.startsWith(QLatin1String("-m")))) {
        c.unknown(QStringLiteral("%1 %2 loads code before the script").arg(program, a.text));
        return true;
    }
    if (valued.contains(a.text))
        ++*k;
    return false;
}

// No script: code from standard input (a here-document is code too, and Python's and node's are read).
void codeOnInput(CommandCatalog &c, const QString &program, bool python, bool node)
{
    if (python && c.how().stdinKind == Stdin::Text && !c.how().stdinDynamic) {
        PythonCode::read(c, c.how().stdinText, QStringLiteral("%1's here-document").arg(program));
        return;
    }
    if (node && c.how().stdinKind == Stdin::Text && !c.how().stdinDynamic) {
        JavaScriptCode::read(c, c.how().stdinText, QStringLiteral("%1's here-document").arg(program));
        return;
    }
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = c.how().stdinKind == Stdin::File ? Effect::Code::Script : Effect::Code::Stdin;
    e.path = c.how().stdinPath;
    e.pathKnown = !e.path.isEmpty();
    e.cwd = c.how().cwd;
    e.argv = c.how().argv;
    e.what = c.how().stdinKind == Stdin::Text
                 ? QStringLiteral("runs the code in its here-document (%1)").arg(program)
                 : QStringLiteral("runs the code it reads on standard input (%1)").arg(program);
    if (c.how().stdinKind == Stdin::Text)
        e.code = Effect::Code::Inline;
    c.append(std::move(e));
}

} // namespace

bool interpreter(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QRegularExpression names(
        QStringLiteral("^(python[0-9.]*|pypy[0-9.]*|node|nodejs|perl|ruby|php[0-9.]*|deno|bun|lua[0-9.]*|"
                       "Rscript|tclsh|wish|osascript|pwsh|powershell|java|jshell|groovy|scala|kotlin|julia|"
                       "swift|elixir|erl|ts-node|tsx|irb|ghci|runghc|guile|racket|sbcl|clojure)$"));
    if (!names.match(program).hasMatch())
        return false;
    const bool python =
        program.startsWith(QLatin1String("python")) || program.startsWith(QLatin1String("pypy"));
    const bool node = program == QLatin1String("node") || program == QLatin1String("nodejs");
    if (printsOnly(c, program, args))
        return true;
    if (program == QLatin1String("java") && c.how().stdinKind == Stdin::None && java(c, args))
        return true;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            c.unknown(QStringLiteral("%1 is given an argument that expands (%2)").arg(program, a.text));
            return true;
        }
        static const QStringList inlineFlags =
            words({"-c", "-e", "-E", "--eval", "-p", "--print", "-r", "-i", "--command", "-x", "-n"});
        const QString flag = a.text.left(2);
        if (a.text == QLatin1String("-"))
            break; // the script is standard input
        if (a.text.startsWith(QLatin1Char('-')) && a.text.size() > 1) {
            if (python && (a.text == QLatin1String("-m") ||
                           (a.text.startsWith(QLatin1String("-m")) && a.text.size() > 2))) {
                pythonModule(c, program, args, k);
                return true;
            }
            if (node && (a.text == QLatin1String("--test") || a.text.startsWith(QLatin1String("--test")))) {
                nodeTests(c, args);
                return true;
            }
            // python -c CODE: the code is read for what it does.
            if (python && a.text.startsWith(QLatin1String("-c")) &&
                (a.text.size() > 2 || k + 1 < args.size())) {
                const Arg code = a.text.size() > 2 ? Arg{a.text.mid(2), a.known, false, {}} : args.at(k + 1);
                if (!code.known) {
                    c.unknown(QStringLiteral("%1 -c of code that expands before it runs").arg(program));
                    return true;
                }
                PythonCode::read(c, code.text, QStringLiteral("%1 -c").arg(program));
                return true;
            }
            if (node && nodeInline(c, program, args, k))
                return true;
            if (inlineFlags.contains(a.text) || inlineFlags.contains(flag) ||
                a.text.startsWith(QLatin1String("--eval")) || a.text.startsWith(QLatin1String("--print"))) {
                Effect e;
                e.kind = Effect::Kind::Runs;
                e.code = Effect::Code::Inline;
                e.what = QStringLiteral("runs code given on the command line (%1 %2)").arg(program, a.text);
                c.append(std::move(e));
                return true;
            }
            if (optionRefused(c, program, args, &k, node, python))
                return true;
            continue;
        }
        const QString path = CommandCatalog::absolute(a, c.how().cwd);
        c.script(QStringLiteral("runs the script %1 with %2").arg(a.text, program), path,
                 !path.isEmpty() && !a.glob);
        return true;
    }
    codeOnInput(c, program, python, node);
    return true;
}

} // namespace Countersign::Shell::CodeRunners
