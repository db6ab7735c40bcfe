#include "projecttools.h"

#include <algorithm>

#include "argtools.h"
#include "nodetools.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace Countersign::Shell::ProjectTools {

using namespace ArgTools;

namespace {

const QStringList kMakeDefinitions = words({"Makefile", "makefile", "GNUmakefile"});
const QStringList kCargoDefinitions =
    words({"Cargo.toml", "build.rs", ".cargo/config.toml", ".cargo/config"});
const QStringList kGoDefinitions = words({"go.mod", "go.work"});
const QStringList kCmakeDefinitions = words({"CMakeLists.txt", "CMakePresets.json", "CMakeUserPresets.json"});
const QStringList kGradleDefinitions = words({"build.gradle", "build.gradle.kts", "settings.gradle",
                                              "settings.gradle.kts", "pom.xml", "gradlew", "mvnw"});
const QStringList kRubyDefinitions = words({"Rakefile", "Gemfile", ".rspec"});

bool cargo(CommandCatalog &c, const QList<Arg> &args)
{
    const int at = subcommandIndex(args, words({"-C", "--manifest-path", "--config", "-Z"}));
    const QString sub = at < 0 ? QString() : args.at(at).text;
    for (const Arg &a : args) {
        if (a.text == QLatin1String("--config") || a.text.startsWith(QLatin1String("--config=")) ||
            a.text.startsWith(QLatin1String("+"))) {
            c.add(Effect::Kind::Environment, QStringLiteral("cargo %1 changes how cargo builds").arg(a.text));
            return true;
        }
    }
    static const QStringList builds = words({"build",
                                             "b",
                                             "check",
                                             "c",
                                             "test",
                                             "t",
                                             "run",
                                             "r",
                                             "bench",
                                             "doc",
                                             "d",
                                             "clippy",
                                             "fmt",
                                             "tree",
                                             "metadata",
                                             "nextest",
                                             "clean",
                                             "fix",
                                             "expand",
                                             "llvm-cov",
                                             "miri",
                                             "udeps",
                                             "machete",
                                             "watch",
                                             "verify-project",
                                             "locate-project",
                                             "pkgid",
                                             "version",
                                             "help",
                                             "-V",
                                             "--version",
                                             "--list"});
    static const QStringList installs = words({"add", "install", "update", "fetch", "generate-lockfile",
                                               "vendor", "binstall", "uninstall", "remove", "rm"});
    if (sub.isEmpty() || builds.contains(sub)) {
        static const QRegularExpression harmless(QStringLiteral(
            "^(--release|-r|--lib|--bins?|--tests?|--benches|--examples?|--all-targets|--workspace|--all|--"
            "all-features|"
            "--no-default-features|-q|--quiet|-v+|--verbose|--locked|--offline|--frozen|--no-run|--doc|--no-"
            "fail-fast|"
            "--check|--message-format(=[a-z-]+)?|--color(=[a-z]+)?|--timings|-j[0-9]*|--jobs(=[0-9]+)?|-p|--"
            "package(=[A-Za-z0-9_-]+)?|"
            "-F|--features(=[A-Za-z0-9_,/ "
            "-]+)?|--bin(=[A-Za-z0-9_-]+)?|--example(=[A-Za-z0-9_-]+)?|--test(=[A-Za-z0-9_-]+)?|"
            "--bench(=[A-Za-z0-9_-]+)?|--profile(=[a-z-]+)?|--exclude|--keep-going|--future-incompat-report|-"
            "-no-deps|--open|"
            "--fix|--allow-dirty|--allow-staged|--allow-no-vcs|--edition-idioms|--all-targets)$"));
        for (qsizetype k = 1; k < args.size(); ++k) {
            const QString t = args.at(k).text;
            if (t == QLatin1String("--"))
                break; // the test binary's own arguments
            if (t.startsWith(QLatin1Char('-')) && !harmless.match(t).hasMatch()) {
                c.unknown(QStringLiteral("cargo %1 may change what cargo builds or where it writes").arg(t));
                return true;
            }
        }
        c.project(QStringLiteral("runs the project's cargo %1").arg(sub), kCargoDefinitions);
        return true;
    }
    if (installs.contains(sub)) {
        c.add(Effect::Kind::Installs, QStringLiteral("cargo %1 changes the project's dependencies").arg(sub));
        return true;
    }
    if (sub == QLatin1String("publish") || sub == QLatin1String("login") || sub == QLatin1String("owner") ||
        sub == QLatin1String("yank")) {
        c.add(Effect::Kind::Network, QStringLiteral("cargo %1 sends to the registry").arg(sub));
        return true;
    }
    c.unknown(QStringLiteral("cargo %1 is not a cargo command Countersign knows").arg(sub));
    return true;
}

bool go(CommandCatalog &c, const QList<Arg> &args)
{
    const QString sub = args.value(1).text;
    static const QStringList builds =
        words({"build", "test", "vet", "fmt", "run", "list", "doc", "version", "env", "help", "tool"});
    // go list -m asks the module proxy, or the module's own host, about what it names: the name
    // leaves the machine (go list -m -versions SECRET.example/m).
    if (sub == QLatin1String("list") && std::any_of(args.cbegin() + 2, args.cend(), [](const Arg &a) {
            return a.text == QLatin1String("-m") || a.text == QLatin1String("--m");
        })) {
        // Go takes -flag and --flag, -flag=value and -flag value (-f takes its template).
        bool remote = false;
        for (qsizetype k = 2; k < args.size(); ++k) {
            const Arg &a = args.at(k);
            QString flag = a.text.startsWith(QLatin1String("--")) ? a.text.mid(1) : a.text;
            flag = flag.section(QLatin1Char('='), 0, 0);
            if (!a.known || flag == QLatin1String("-versions") || flag == QLatin1String("-u") ||
                flag == QLatin1String("-retracted") || flag == QLatin1String("-reuse"))
                remote = true;
            else if (flag == QLatin1String("-f") && !a.text.contains(QLatin1Char('=')))
                ++k; // its template, not a module
            else if (!a.text.startsWith(QLatin1Char('-')) && a.text != QLatin1String("all"))
                remote = true;
        }
        if (remote) {
            c.add(Effect::Kind::Network,
                  QStringLiteral("go list -m asks the module proxy about what it names"));
            return true;
        }
    }
    if (builds.contains(sub)) {
        for (const Arg &a : args.mid(2)) {
            if (a.text.contains(QLatin1Char('@')) || a.text.startsWith(QLatin1String("-exec")) ||
                a.text.startsWith(QLatin1String("-toolexec")) ||
                a.text.startsWith(QLatin1String("-modfile")) ||
                a.text.startsWith(QLatin1String("-overlay")) || a.text.startsWith(QLatin1String("-o")) ||
                a.text.startsWith(QLatin1String("-C"))) {
                c.unknown(QStringLiteral("go %1 %2 fetches or runs something else").arg(sub, a.text));
                return true;
            }
        }
        if (sub == QLatin1String("env") && args.size() > 2 && args.at(2).text == QLatin1String("-w")) {
            c.add(Effect::Kind::Environment, QStringLiteral("go env -w changes go's settings"));
            return true;
        }
        c.project(QStringLiteral("runs the project's go %1").arg(sub), kGoDefinitions);
        return true;
    }
    if (sub == QLatin1String("get") || sub == QLatin1String("install") || sub == QLatin1String("mod")) {
        if (sub == QLatin1String("mod") &&
            (args.value(2).text == QLatin1String("why") || args.value(2).text == QLatin1String("graph") ||
             args.value(2).text == QLatin1String("verify"))) {
            c.project(QStringLiteral("go mod %1").arg(args.value(2).text), kGoDefinitions);
            return true;
        }
        c.add(Effect::Kind::Installs, QStringLiteral("go %1 fetches modules").arg(sub));
        return true;
    }
    c.unknown(QStringLiteral("go %1 (go generate runs any command the sources name)").arg(sub));
    return true;
}

bool make(CommandCatalog &c, const QList<Arg> &args)
{
    QStringList definitions = kMakeDefinitions;
    QString cwd = c.how().cwd;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            c.unknown(QStringLiteral("make is given an argument that expands (%1)").arg(a.text));
            return true;
        }
        if ((a.text == QLatin1String("-f") || a.text == QLatin1String("--file") ||
             a.text == QLatin1String("--makefile")) &&
            k + 1 < args.size()) {
            if (args.at(k + 1).text == QLatin1String("-") || !args.at(k + 1).known) {
                c.unknown(QStringLiteral("make -f - reads its makefile from standard input"));
                return true;
            }
            definitions = {args.at(++k).text};
        } else if ((a.text == QLatin1String("-C") || a.text == QLatin1String("--directory")) &&
                   k + 1 < args.size()) {
            cwd = CommandCatalog::absolute(args.at(++k), cwd);
        } else if (a.text.startsWith(QLatin1String("-C")) && a.text.size() > 2) {
            cwd = CommandCatalog::absolute(Arg{a.text.mid(2), true, false, {}}, cwd);
        } else if (a.text.startsWith(QLatin1Char('-'))) {
            // Options that only say how much to do; any other (--eval, --directory=, -I, -W, -o,
            // --file=, -E, -R, ...) may change what runs.
            static const QRegularExpression harmless(QStringLiteral(
                "^(-j[0-9]*|-l[0-9.]*|-k|-s|-n|-B|-q|-i|-w|-O[a-z]*|-r|--jobs(=[0-9]+)?|--keep-going|--"
                "silent|--quiet|"
                "--dry-run|--just-print|--always-make|--no-print-directory|--print-directory|--warn-"
                "undefined-variables|"
                "--output-sync(=[a-z]+)?|--no-builtin-rules|--load-average(=[0-9.]+)?|-[jksnBqiwr]+)$"));
            if (!harmless.match(a.text).hasMatch()) {
                c.unknown(QStringLiteral("make %1 may change what make runs").arg(a.text));
                return true;
            }
            if (a.text == QLatin1String("-j") || a.text == QLatin1String("-l")) {
                bool number = false;
                args.value(k + 1).text.toDouble(&number);
                if (number)
                    ++k;
            }
            continue;
        } else if (a.text.contains(QLatin1Char('='))) {
            // A variable on the command line overrides the makefile's: it can change any recipe.
            c.add(Effect::Kind::Environment, QStringLiteral("make %1 overrides what the makefile says")
                                                 .arg(a.text.section(QLatin1Char('='), 0, 0)));
        } else if (publishing(a.text)) {
            c.unknown(QStringLiteral("make %1 reaches past the project").arg(a.text));
            return true;
        }
    }
    c.setCwd(cwd);
    c.project(QStringLiteral("runs the project's make %1")
                  .arg(operandsAfter(args, 1).join(QLatin1Char(' ')))
                  .trimmed(),
              definitions);
    return true;
}

// The definitions a tool runs: the file an option names (tox -c, mvn -f, ninja -f, just
// --justfile, gradle -b), in place of the ones it looks for, else those.
QStringList namedDefinitions(const QString &program, const QList<Arg> &args, const QStringList &looked)
{
    static const QHash<QString, QStringList> naming = {
        {QStringLiteral("tox"), words({"-c", "--conf"})},
        {QStringLiteral("mvn"), words({"-f", "--file"})},
        {QStringLiteral("ninja"), words({"-f"})},
        {QStringLiteral("just"), words({"-f", "--justfile"})},
        {QStringLiteral("gradle"), words({"-b", "--build-file", "-c", "--settings-file"})},
        {QStringLiteral("task"), words({"-t", "--taskfile"})},
        {QStringLiteral("pytest"), words({"-c"})},
    };
    const QStringList options = naming.value(program);
    QStringList named;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const QString name = args.at(k).text.section(QLatin1Char('='), 0, 0);
        if (!options.contains(name))
            continue;
        const QString value = args.at(k).text.contains(QLatin1Char('='))
                                  ? args.at(k).text.section(QLatin1Char('='), 1)
                                  : args.value(++k).text;
        // Where it says, from the folder the tool runs in (a bare name too: not looked up above).
        named.append(value.contains(QLatin1Char('/')) ? value : QStringLiteral("./") + value);
    }
    return named.isEmpty() ? looked : looked + named;
}

// pip and its kin (uv pip too); uv run, poetry run and pdm run: the command they run is read.
bool readPythonPackager(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    if ((program == QLatin1String("uv") || program == QLatin1String("poetry") ||
         program == QLatin1String("pdm")) &&
        (args.value(1).text == QLatin1String("run"))) {
        QList<Arg> inner = args.mid(2);
        if (!inner.isEmpty())
            c.runInner(inner);
        return true;
    }
    if (program == QLatin1String("uv") && args.value(1).text == QLatin1String("pip"))
        return pip(c, QStringLiteral("uv pip"), args.mid(1));
    return pip(c, program, args);
}

// A system's or a language's package manager (apt, brew, gem, ...): a look-up reads what is
// installed or asks a remote index, bundle exec runs its command, anything else installs.
void readSystemInstaller(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QStringList reading =
        words({"list", "show", "search", "info", "--version", "policy", "-l", "outdated"});
    // A look-up that names a package to a remote index sends the name there (brew info and
    // search ask Homebrew's API; gem search is remote unless --local; --remote anywhere).
    const QString sub = args.value(1).text;
    const bool named =
        std::any_of(args.cbegin() + std::min<qsizetype>(2, args.size()), args.cend(),
                    [](const Arg &a) { return !a.text.startsWith(QLatin1Char('-')) || !a.known; });
    const bool remote =
        std::any_of(args.cbegin() + 1, args.cend(),
                    [](const Arg &a) {
                        return a.text == QLatin1String("--remote") || a.text == QLatin1String("-r");
                    }) ||
        (program == QLatin1String("brew") && named &&
         (sub == QLatin1String("info") || sub == QLatin1String("search") || sub == QLatin1String("desc"))) ||
        (program == QLatin1String("gem") && sub == QLatin1String("search") &&
         std::none_of(args.cbegin() + 2, args.cend(),
                      [](const Arg &a) {
                          return a.text == QLatin1String("--local") || a.text == QLatin1String("-l");
                      })) ||
        (program == QLatin1String("snap") && named &&
         (sub == QLatin1String("info") || sub == QLatin1String("find"))) ||
        (program == QLatin1String("composer") &&
         (sub == QLatin1String("search") || sub == QLatin1String("outdated") ||
          std::any_of(args.cbegin() + 1, args.cend(), [](const Arg &a) {
              return a.text == QLatin1String("-a") || a.text == QLatin1String("--all") ||
                     a.text == QLatin1String("--available") || a.text == QLatin1String("-l") ||
                     a.text == QLatin1String("--latest");
          })));
    if (reading.contains(sub) && remote)
        c.add(Effect::Kind::Network,
              QStringLiteral("%1 %2 sends what it names to a remote index").arg(program, sub));
    else if (reading.contains(sub))
        c.add(Effect::Kind::Reads, QStringLiteral("%1 %2 reads what is installed").arg(program, sub));
    else if (program == QLatin1String("bundle") && args.value(1).text == QLatin1String("exec"))
        c.runInner(args.mid(2));
    else
        c.add(Effect::Kind::Installs, QStringLiteral("%1 installs or changes packages").arg(program));
}

// A build, test, lint or format tool: what it is, and the files that define what it runs.
struct ProjectTool final
{
    const char *what;
    QStringList definitions;
};

const QHash<QString, ProjectTool> &projectToolTable()
{
    const QStringList py = pythonDefinitions();
    const QStringList js = nodeDefinitions();
    static const QHash<QString, ProjectTool> tools = {
        {QStringLiteral("pytest"), {"tests", py}},
        {QStringLiteral("py.test"), {"tests", py}},
        {QStringLiteral("tox"), {"tests", py}},
        {QStringLiteral("nox"), {"tests", py}},
        {QStringLiteral("black"), {"formatter", py}},
        {QStringLiteral("ruff"), {"linter", py}},
        {QStringLiteral("flake8"), {"linter", py}},
        {QStringLiteral("pylint"), {"linter", py}},
        {QStringLiteral("mypy"), {"type checker", py}},
        {QStringLiteral("isort"), {"formatter", py}},
        {QStringLiteral("pyright"), {"type checker", py}},
        {QStringLiteral("coverage"), {"tests", py}},
        {QStringLiteral("jest"), {"tests", js}},
        {QStringLiteral("vitest"), {"tests", js}},
        {QStringLiteral("mocha"), {"tests", js}},
        {QStringLiteral("tsc"), {"build", js}},
        {QStringLiteral("eslint"), {"linter", js}},
        {QStringLiteral("prettier"), {"formatter", js}},
        {QStringLiteral("biome"), {"linter", js}},
        {QStringLiteral("vite"), {"build", js}},
        {QStringLiteral("webpack"), {"build", js}},
        {QStringLiteral("esbuild"), {"build", js}},
        {QStringLiteral("playwright"), {"tests", js}},
        {QStringLiteral("stylelint"), {"linter", js}},
        {QStringLiteral("cmake"), {"build", kCmakeDefinitions}},
        {QStringLiteral("ctest"), {"tests", kCmakeDefinitions}},
        {QStringLiteral("ninja"), {"build", kCmakeDefinitions + words({"build.ninja", "meson.build"})}},
        {QStringLiteral("meson"), {"build", words({"meson.build", "meson_options.txt"})}},
        {QStringLiteral("gradle"), {"build", kGradleDefinitions}},
        {QStringLiteral("mvn"), {"build", kGradleDefinitions}},
        {QStringLiteral("rake"), {"build", kRubyDefinitions}},
        {QStringLiteral("rspec"), {"tests", kRubyDefinitions}},
        {QStringLiteral("rubocop"), {"linter", kRubyDefinitions}},
        {QStringLiteral("just"), {"recipes", words({"justfile", "Justfile", ".justfile"})}},
        {QStringLiteral("task"), {"tasks", words({"Taskfile.yml", "Taskfile.yaml"})}},
        {QStringLiteral("dotnet"),
         {"build", words({"Directory.Build.props", "global.json", "NuGet.Config"})}},
        {QStringLiteral("rustfmt"), {"formatter", kCargoDefinitions}},
        {QStringLiteral("gofmt"), {"formatter", kGoDefinitions}},
        {QStringLiteral("clang-format"), {"formatter", words({".clang-format"})}},
        {QStringLiteral("clang-tidy"), {"linter", words({".clang-tidy", "compile_commands.json"})}},
        {QStringLiteral("shellcheck"), {"linter", words({".shellcheckrc"})}},
        {QStringLiteral("phpunit"), {"tests", words({"phpunit.xml", "composer.json"})}},
        {QStringLiteral("swift"), {"build", words({"Package.swift"})}},
        {QStringLiteral("gcc"), {"compiler", {}}},
        {QStringLiteral("g++"), {"compiler", {}}},
        {QStringLiteral("cc"), {"compiler", {}}},
        {QStringLiteral("c++"), {"compiler", {}}},
        {QStringLiteral("clang"), {"compiler", {}}},
        {QStringLiteral("clang++"), {"compiler", {}}},
        {QStringLiteral("rustc"), {"compiler", {}}},
        {QStringLiteral("javac"), {"compiler", {}}},
    };
    return tools;
}

// An option or operand that loads, installs or publishes more than the project's own code: asks
// (true).
bool projectToolLoads(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QStringList loading = words(
        {"-e",        "--eval",        "--exec",     "--execute",         "--require",       "--import",
         "--loader",  "--plugin",      "--rulesdir", "--resolve-plugins", "--install-types", "--init-script",
         "--command", "--rakefile",    "--settings", "--global-settings", "--toolchain",     "-D",
         "-I",        "--include-dir", "-r",         "--rcfile",          "--load-plugins",  "--plugins",
         "-L",        "--preset-file", "--prefix",   "--destdir"});
    for (const Arg &a : args.mid(1)) {
        const QString name = a.text.section(QLatin1Char('='), 0, 0);
        const bool loads =
            std::any_of(loading.cbegin(), loading.cend(),
                        [&](const QString &l) {
                            return name == l || (l.size() == 2 && a.text.startsWith(l) &&
                                                 !a.text.startsWith(QLatin1String("--")) &&
                                                 program != QLatin1String("cmake") &&
                                                 l != QLatin1String("-D") && l != QLatin1String("-I") &&
                                                 l != QLatin1String("-L") && l != QLatin1String("-r"));
                        }) ||
            (program == QLatin1String("cmake") && a.text.startsWith(QLatin1String("-D")) &&
             !a.text.startsWith(QLatin1String("-DCMAKE_BUILD_TYPE=")) &&
             !a.text.startsWith(QLatin1String("-DBUILD_TESTING=")) &&
             !a.text.startsWith(QLatin1String("-DCMAKE_EXPORT_COMPILE_COMMANDS="))) ||
            (program == QLatin1String("eslint") && (name == QLatin1String("-c"))) ||
            ((program == QLatin1String("rake") || program == QLatin1String("gradle")) &&
             (a.text.startsWith(QLatin1String("-I")) || a.text.startsWith(QLatin1String("-r")) ||
              a.text.startsWith(QLatin1String("-f")))) ||
            ((program == QLatin1String("mvn") || program == QLatin1String("gradle")) &&
             (a.text.startsWith(QLatin1String("-D")) || a.text == QLatin1String("-s") ||
              a.text == QLatin1String("-gs"))) ||
            (!a.text.startsWith(QLatin1Char('-')) && publishing(a.text)) ||
            (program == QLatin1String("coverage") && a.text == QLatin1String("run")) ||
            (program == QLatin1String("playwright") && a.text == QLatin1String("install")) ||
            (program == QLatin1String("dotnet") &&
             (a.text == QLatin1String("nuget") || a.text == QLatin1String("publish") ||
              a.text == QLatin1String("pack")));
        if (loads) {
            c.unknown(QStringLiteral("%1 %2 loads, installs or publishes more than the project's own code")
                          .arg(program, a.text));
            return true;
        }
    }
    return false;
}

// An option that may change what the tool runs or where it writes, or an argument that expands:
// asks (true). what is the tool's kind (a compiler's options are its own).
bool projectToolRedirects(CommandCatalog &c, const QString &program, const QList<Arg> &args, const char *what)
{
    for (const Arg &a : args.mid(1)) {
        const QString t = a.text;
        const bool compiler = QString::fromLatin1(what) == QLatin1String("compiler");
        if ((program == QLatin1String("cmake") &&
             (t == QLatin1String("-E") || t == QLatin1String("-P") ||
              t.startsWith(QLatin1String("--install")) || t.startsWith(QLatin1String("-C")) ||
              t.startsWith(QLatin1String("--toolchain")))) ||
            (compiler && (t.startsWith(QLatin1String("-wrapper")) ||
                          t.startsWith(QLatin1String("-fplugin")) || t.startsWith(QLatin1String("-B")) ||
                          t.startsWith(QLatin1String("-specs")) || t.startsWith(QLatin1String("--specs")) ||
                          t.startsWith(QLatin1String("-Xclang")) || t.startsWith(QLatin1String("-fuse-ld")) ||
                          t.startsWith(QLatin1String("-Wl,")) || t.startsWith(QLatin1String("@")))) ||
            (program == QLatin1String("pytest") &&
             (t.startsWith(QLatin1String("-p")) || t.startsWith(QLatin1String("--basetemp")) ||
              t.startsWith(QLatin1String("-c")) || t.startsWith(QLatin1String("--rootdir")) ||
              t.startsWith(QLatin1String("--confcutdir")) || t.startsWith(QLatin1String("--override-ini")) ||
              t.startsWith(QLatin1String("-o")))) ||
            (t.startsWith(QLatin1String("--config")) && program != QLatin1String("cmake")) || !a.known) {
            c.unknown(QStringLiteral("%1 %2 may change what runs or where it writes").arg(program, t));
            return true;
        }
    }
    return false;
}

// A tool of the table above: the project's own command, naming the files that define what it
// runs, unless an option makes it more; what a compiler reads and any -o are judged too.
bool readProjectTool(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const QHash<QString, ProjectTool> &tools = projectToolTable();
    const auto tool = tools.constFind(program);
    if (tool == tools.cend())
        return false;
    if (program == QLatin1String("dotnet") &&
        (args.value(1).text == QLatin1String("add") || args.value(1).text == QLatin1String("tool"))) {
        c.add(Effect::Kind::Installs, QStringLiteral("dotnet %1 installs packages").arg(args.value(1).text));
        return true;
    }
    if (program == QLatin1String("cmake") && args.value(1).text == QLatin1String("--install")) {
        c.unknown(QStringLiteral("cmake --install installs outside the project"));
        return true;
    }
    if (projectToolLoads(c, program, args))
        return true;
    if (projectToolRedirects(c, program, args, tool->what))
        return true;
    if ((program == QLatin1String("cmake") || program == QLatin1String("meson")) &&
        args.value(1).text == QLatin1String("-P")) {
        c.unknown(QStringLiteral("cmake -P runs a script"));
        return true;
    }
    c.project(QStringLiteral("runs the project's %1 (%2)").arg(QLatin1String(tool->what), program),
              namedDefinitions(program, args, tool->definitions));
    if (QString::fromLatin1(tool->what) == QLatin1String("compiler"))
        compilerReads(c, program, args);
    // A compiler's -o, a formatter's -i/--write: files written, judged as writes.
    for (qsizetype k = 1; k < args.size(); ++k) {
        if (args.at(k).text == QLatin1String("-o") && k + 1 < args.size())
            c.addPath(Effect::Kind::Writes, QStringLiteral("%1 writes %2").arg(program, args.at(k + 1).text),
                      args.at(k + 1));
    }
    return true;
}

} // namespace

QStringList pythonDefinitions()
{
    return words({"pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py", "pytest.ini",
                  "conftest.py", "tests/conftest.py"});
}

QStringList nodeDefinitions()
{
    return words({"package.json", ".npmrc", "jest.config.js", "jest.config.ts", "vitest.config.ts",
                  "vitest.config.js", "vite.config.ts", "vite.config.js", ".mocharc.json", ".mocharc.js",
                  "tsconfig.json", "eslint.config.js", ".eslintrc.js", ".eslintrc.json", "webpack.config.js",
                  "babel.config.js"});
}

bool read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    if (NodeTools::read(c, program, args))
        return true;
    if (program == QLatin1String("cargo"))
        return cargo(c, args);
    if (program == QLatin1String("go"))
        return go(c, args);
    if (program == QLatin1String("make") || program == QLatin1String("gmake"))
        return make(c, args);
    if (program == QLatin1String("pip") || program == QLatin1String("pip3") ||
        program == QLatin1String("pipx") || program == QLatin1String("uv") ||
        program == QLatin1String("poetry") || program == QLatin1String("pdm") ||
        program == QLatin1String("conda") || program == QLatin1String("mamba"))
        return readPythonPackager(c, program, args);
    static const QStringList installers =
        words({"apt",    "apt-get",  "aptitude", "dpkg",   "dnf",     "yum",     "pacman",
               "zypper", "apk",      "brew",     "port",   "snap",    "flatpak", "gem",
               "bundle", "composer", "cpan",     "cpanm",  "nix-env", "choco",   "winget",
               "scoop",  "asdf",     "mise",     "rustup", "nvm",     "pyenv",   "sdk"});
    if (installers.contains(program)) {
        readSystemInstaller(c, program, args);
        return true;
    }
    return readProjectTool(c, program, args);
}

} // namespace Countersign::Shell::ProjectTools
