#include "commandcatalog.h"

#include "filecommands.h"
#include "gitcommand.h"
#include "projecttools.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

namespace Countersign::Shell {

namespace {

QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out.append(QLatin1String(w));
    return out;
}

// Programs that only read their operands (files, or standard input) and print.
const QStringList &readers()
{
    static const QStringList list = words(
        {"cat",       "tac",       "head",       "tail",      "less",    "more",    "wc",      "nl",
         "od",        "xxd",       "hexdump",    "strings",   "file",    "stat",    "du",      "ls",
         "dir",       "tree",      "grep",       "egrep",     "fgrep",   "rg",      "ag",      "ack",
         "diff",      "cmp",       "comm",       "cut",       "paste",   "tr",      "fold",    "fmt",
         "column",    "expand",    "unexpand",   "rev",       "base64",  "base32",  "md5sum",  "sha1sum",
         "sha224sum", "sha256sum", "sha384sum",  "sha512sum", "b2sum",   "cksum",   "jq",      "basename",
         "dirname",   "realpath",  "readlink",   "pwd",       "echo",    "printf",  "true",    "false",
         "test",      "[",         "[[",         "((",        "seq",     "sleep",   "date",    "whoami",
         "id",        "groups",    "uname",      "uptime",    "which",   "whereis", "type",    "hash",
         "ps",        "pgrep",     "free",       "df",        "locale",  "nproc",   "arch",    "tput",
         "clear",     "exit",      "return",     "set",       "shopt",   "unset",   "read",    "wait",
         "jobs",      "getconf",   "tty",        "yes",       "expr",    "cal",     "iconv",   "fd",
         "fdfind",    "lsof",      "sum",        "look",      "join",    "numfmt",  "shuf",    "split",
         "csplit",    "tsort",     "ldd",        "nm",        "objdump", "readelf", "size",    "cloc",
         "tokei",     "bat",       "batcat",     "zcat",      "zgrep",   "bzcat",   "xzcat",   "lscpu",
         "lsblk",     "printenv",  "env",        "history",   "export",  "local",   "declare", "typeset",
         "shift",     "trap",      "umask",      "ulimit",    "logname", "users",   "w",       "who",
         "last",      "stty",      "mountpoint", "findmnt",   "top",     "htop",    "time",    "times",
         "dirs",      "popd",      "sort",       "uniq",      "tee",     "cd",      ":"});
    return list;
}

// The folders a program found by name lives in: /usr/bin/git is git.
QString programName(const QString &word)
{
    static const QStringList bins =
        words({"/usr/bin/", "/bin/", "/usr/local/bin/", "/usr/sbin/", "/sbin/", "/usr/local/sbin/"});
    for (const QString &bin : bins) {
        if (word.startsWith(bin) && !word.mid(bin.size()).contains(QLatin1Char('/')))
            return word.mid(bin.size());
    }
    return word;
}

} // namespace

bool CommandCatalog::poisons(const QString &name)
{
    static const QStringList exact = {QStringLiteral("PATH"),
                                      QStringLiteral("LD_PRELOAD"),
                                      QStringLiteral("LD_LIBRARY_PATH"),
                                      QStringLiteral("LD_AUDIT"),
                                      QStringLiteral("NODE_OPTIONS"),
                                      QStringLiteral("NODE_PATH"),
                                      QStringLiteral("PYTHONPATH"),
                                      QStringLiteral("PYTHONSTARTUP"),
                                      QStringLiteral("PYTHONHOME"),
                                      QStringLiteral("PERL5OPT"),
                                      QStringLiteral("PERL5LIB"),
                                      QStringLiteral("PERLLIB"),
                                      QStringLiteral("RUBYOPT"),
                                      QStringLiteral("RUBYLIB"),
                                      QStringLiteral("BASH_ENV"),
                                      QStringLiteral("ENV"),
                                      QStringLiteral("PROMPT_COMMAND"),
                                      QStringLiteral("SHELLOPTS"),
                                      QStringLiteral("BASHOPTS"),
                                      QStringLiteral("IFS"),
                                      QStringLiteral("PAGER"),
                                      QStringLiteral("EDITOR"),
                                      QStringLiteral("VISUAL"),
                                      QStringLiteral("SSH_ASKPASS"),
                                      QStringLiteral("LESSOPEN"),
                                      QStringLiteral("LESSCLOSE"),
                                      QStringLiteral("CC"),
                                      QStringLiteral("CXX"),
                                      QStringLiteral("LD"),
                                      QStringLiteral("SHELL"),
                                      QStringLiteral("MAKEFLAGS"),
                                      QStringLiteral("RUSTC"),
                                      QStringLiteral("RUSTC_WRAPPER"),
                                      QStringLiteral("RUSTFLAGS"),
                                      QStringLiteral("JAVA_TOOL_OPTIONS"),
                                      QStringLiteral("HOME"),
                                      QStringLiteral("XDG_CONFIG_HOME"),
                                      QStringLiteral("PYTHONWARNINGS"),
                                      QStringLiteral("NPM_CONFIG_PREFIX"),
                                      QStringLiteral("BROWSER"),
                                      QStringLiteral("TMPDIR"),
                                      QStringLiteral("PWD"),
                                      QStringLiteral("OLDPWD"),
                                      QStringLiteral("CDPATH"),
                                      QStringLiteral("GLOBIGNORE"),
                                      QStringLiteral("HISTFILE"),
                                      QStringLiteral("PS4"),
                                      QStringLiteral("FIGNORE"),
                                      QStringLiteral("TERMINFO"),
                                      QStringLiteral("GCONV_PATH"),
                                      QStringLiteral("HOSTALIASES"),
                                      QStringLiteral("LOCPATH"),
                                      QStringLiteral("NLSPATH"),
                                      QStringLiteral("MALLOC_CONF")};
    static const QStringList more = {QStringLiteral("http_proxy"),
                                     QStringLiteral("https_proxy"),
                                     QStringLiteral("HTTP_PROXY"),
                                     QStringLiteral("HTTPS_PROXY"),
                                     QStringLiteral("ALL_PROXY"),
                                     QStringLiteral("all_proxy"),
                                     QStringLiteral("ftp_proxy"),
                                     QStringLiteral("CURL_HOME"),
                                     QStringLiteral("WGETRC"),
                                     QStringLiteral("CURL_CA_BUNDLE"),
                                     QStringLiteral("SSL_CERT_FILE"),
                                     QStringLiteral("SSL_CERT_DIR"),
                                     QStringLiteral("GOFLAGS"),
                                     QStringLiteral("GOPROXY"),
                                     QStringLiteral("GOTOOLCHAIN"),
                                     QStringLiteral("MAKEFILES"),
                                     QStringLiteral("_JAVA_OPTIONS"),
                                     QStringLiteral("JDK_JAVA_OPTIONS"),
                                     QStringLiteral("MAVEN_OPTS"),
                                     QStringLiteral("GRADLE_OPTS"),
                                     QStringLiteral("CMAKE_C_COMPILER_LAUNCHER"),
                                     QStringLiteral("CMAKE_CXX_COMPILER_LAUNCHER"),
                                     QStringLiteral("XDG_DATA_HOME"),
                                     QStringLiteral("XDG_CACHE_HOME"),
                                     QStringLiteral("GNUPGHOME"),
                                     QStringLiteral("SSH_AUTH_SOCK"),
                                     QStringLiteral("GIT_ASKPASS"),
                                     QStringLiteral("NODE_EXTRA_CA_CERTS"),
                                     QStringLiteral("DENO_DIR"),
                                     QStringLiteral("CC_WRAPPER"),
                                     QStringLiteral("AR"),
                                     QStringLiteral("CPP"),
                                     QStringLiteral("FC"),
                                     QStringLiteral("PKG_CONFIG_PATH"),
                                     QStringLiteral("INPUTRC"),
                                     QStringLiteral("TERMCAP"),
                                     QStringLiteral("MANPAGER"),
                                     QStringLiteral("GIT_EDITOR"),
                                     QStringLiteral("GNUMAKEFLAGS"),
                                     QStringLiteral("MFLAGS"),
                                     QStringLiteral("MAKELEVEL"),
                                     QStringLiteral("ZDOTDIR"),
                                     QStringLiteral("NPM_TOKEN"),
                                     QStringLiteral("JAVA_HOME"),
                                     QStringLiteral("GOROOT"),
                                     QStringLiteral("GOPATH")};
    const QString base = name.section(QLatin1Char('['), 0, 0);
    if (base != name)
        return poisons(base) || base.startsWith(QLatin1String("BASH_"));
    return exact.contains(name) || more.contains(name) || name.startsWith(QLatin1String("LD_")) ||
           name.startsWith(QLatin1String("BASH_")) || name.startsWith(QLatin1String("YARN_")) ||
           name.startsWith(QLatin1String("PIP_")) || name.startsWith(QLatin1String("PYTEST_")) ||
           name.startsWith(QLatin1String("UV_")) || name.startsWith(QLatin1String("POETRY_")) ||
           name.startsWith(QLatin1String("BUNDLE_")) || name.startsWith(QLatin1String("COMPOSER_")) ||
           name.startsWith(QLatin1String("RUSTC_")) || name.startsWith(QLatin1String("DOTNET_")) ||
           name.startsWith(QLatin1String("NUGET_")) || name.startsWith(QLatin1String("GEM_")) ||
           name.startsWith(QLatin1String("DYLD_")) || name.startsWith(QLatin1String("GIT_")) ||
           name.startsWith(QLatin1String("CARGO_")) || name.startsWith(QLatin1String("npm_config_")) ||
           name.startsWith(QLatin1String("NPM_CONFIG_")) || name.startsWith(QLatin1String("BASH_FUNC_"));
}

bool CommandCatalog::isOption(const Arg &a)
{
    return a.known && a.text.size() > 1 && a.text.startsWith(QLatin1Char('-'));
}

bool CommandCatalog::secretName(const QString &name)
{
    static const QRegularExpression secret(
        QStringLiteral(
            "TOKEN|SECRET|PASSW|API_?KEY|PRIVATE|CREDENTIAL|(^|_)AUTH($|_)|_KEY$|^KEY$|SESSION|COOKIE|DSN|"
            "^PGPASS|_PAT$|WEBHOOK"),
        QRegularExpression::CaseInsensitiveOption);
    return secret.match(name).hasMatch();
}

void CommandCatalog::readLine(const QString &line, const QString &cwd)
{
    m_readLine(line, cwd, m_how.depth + 1);
}

CommandCatalog::CommandCatalog(Invocation how, QString home, ReadLine readLine, RunArgs runArgs)
    : m_how(std::move(how)), m_home(std::move(home)), m_readLine(std::move(readLine)),
      m_runArgs(std::move(runArgs))
{
}

QString CommandCatalog::absolute(const Arg &arg, const QString &cwd)
{
    if (!arg.known || arg.text.isEmpty())
        return {};
    QString joined;
    if (QDir::isAbsolutePath(arg.text))
        joined = arg.text;
    else if (cwd.isEmpty())
        return {};
    else
        joined = cwd + QLatin1Char('/') + arg.text;
    // ".." is kept as written: the kernel follows a link before it goes up ("link/.." is where the
    // link leads, one up), and the judge resolves it the same way.
    if (joined.split(QLatin1Char('/')).contains(QStringLiteral("..")))
        return joined;
    return QDir::cleanPath(joined);
}

void CommandCatalog::add(Effect::Kind kind, const QString &what, const QString &path, bool known, bool glob)
{
    Effect e;
    e.kind = kind;
    e.what = what;
    e.path = path;
    e.pathKnown = known;
    e.glob = glob;
    e.cwd = m_how.cwd;
    e.argv = m_how.argv;
    m_effects.append(std::move(e));
}

void CommandCatalog::addPath(Effect::Kind kind, const QString &what, const Arg &arg)
{
    const QString path = absolute(arg, m_how.cwd);
    add(kind, what, path, arg.known && !path.isEmpty(), arg.glob);
}

void CommandCatalog::append(Effect e)
{
    if (e.cwd.isEmpty())
        e.cwd = m_how.cwd;
    if (e.argv.isEmpty())
        e.argv = m_how.argv;
    m_effects.append(std::move(e));
}

void CommandCatalog::addReplace(const QString &what, const Arg &arg)
{
    addPath(Effect::Kind::Writes, what, arg);
    m_effects.last().replaces = true;
}

void CommandCatalog::project(const QString &what, const QStringList &definitions)
{
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = Effect::Code::Project;
    e.what = what;
    e.definitions = definitions;
    e.cwd = m_how.cwd;
    e.path = m_how.cwd;
    e.pathKnown = !m_how.cwd.isEmpty();
    e.argv = m_how.argv;
    m_effects.append(std::move(e));
}

void CommandCatalog::secretVariables(const QList<Arg> &args)
{
    for (const Arg &a : args) {
        for (const QString &v : a.variables) {
            if (secretName(v))
                add(Effect::Kind::Secret, QStringLiteral("reads the secret variable $%1").arg(v));
        }
    }
}

// The operands of a reading program (options skipped; the values of optionsWithValue too).
void CommandCatalog::readsOperands(const QList<Arg> &args, const QStringList &optionsWithValue)
{
    // An option's value is read as an operand too: "5" in "head -n 5" names nothing, and a path
    // given as a value is read like any other (cat -n FILE is never taken for -n's value).
    Q_UNUSED(optionsWithValue)
    const QString program = args.first().text;
    static const QStringList textOperands =
        words({"echo",     "printf",  "test",   "[",       "[[",       "((",     "expr",    "seq",
               "sleep",    "date",    "which",  "type",    "export",   "local",  "declare", "unset",
               "typeset",  ":",       "exit",   "return",  "set",      "read",   "hash",    "whereis",
               "pgrep",    "tput",    "id",     "umask",   "shift",    "true",   "false",   "yes",
               "basename", "dirname", "groups", "uname",   "printenv", "locale", "getconf", "nproc",
               "arch",     "shopt",   "ulimit", "wait",    "jobs",     "times",  "dirs",    "popd",
               "w",        "who",     "users",  "logname", "ps",       "top",    "htop",    "free",
               "uptime",   "whoami",  "clear",  "stty",    "tty",      "lscpu",  "cal",     "time"});
    if (textOperands.contains(program))
        return; // their operands are text, not files
    const bool patternFirst = program == QLatin1String("grep") || program == QLatin1String("egrep") ||
                              program == QLatin1String("fgrep") || program == QLatin1String("rg") ||
                              program == QLatin1String("ag") || program == QLatin1String("ack") ||
                              program == QLatin1String("jq") || program == QLatin1String("look");
    bool patternGiven = false;
    for (const Arg &a : args.mid(1)) {
        if (a.text == QLatin1String("-e") || a.text == QLatin1String("-f") ||
            a.text.startsWith(QLatin1String("--regexp")) || a.text.startsWith(QLatin1String("--file")))
            patternGiven = true;
    }
    bool operands = false;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!operands && a.known && a.text == QLatin1String("--")) {
            operands = true;
            continue;
        }
        if (!operands && isOption(a)) {
            const qsizetype eq = a.text.indexOf(QLatin1Char('='));
            if (eq > 0) // --file=PATH
                addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, a.text.mid(eq + 1)),
                        Arg{a.text.mid(eq + 1), a.known, a.glob, a.variables});
            continue;
        }
        if (patternFirst && !patternGiven) {
            patternGiven = true; // the first operand is the pattern or the filter
            if (k > 1 &&
                (args.at(k - 1).text == QLatin1String("-e") || args.at(k - 1).text == QLatin1String("-f")))
                addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, a.text), a);
            continue;
        }
        addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, a.text), a);
    }
}

// A command given to another (xargs, find -exec, timeout): read as its own command.
void CommandCatalog::runInner(const QList<Arg> &args, bool argsFromStdin)
{
    if (args.isEmpty())
        return;
    Invocation inner = m_how;
    inner.argv.clear();
    inner.depth += 1;
    QList<Arg> all = args;
    if (argsFromStdin)
        all.append(Arg{QStringLiteral("(from standard input)"), false, false, {}});
    m_runArgs(all, inner);
}

QList<Effect> CommandCatalog::effectsOf(QList<Arg> args)
{
    m_effects.clear();
    if (args.isEmpty())
        return m_effects;
    for (const Arg &a : args)
        m_how.argv.append(a.text);
    secretVariables(args);
    const Arg &first = args.first();
    if (!first.known || first.glob) {
        unknown(QStringLiteral("the program's name (%1) is not known before the line runs").arg(first.text));
        return m_effects;
    }
    QString program = programName(first.text);
    args.first().text = program;
    if (program.contains(QLatin1Char('/'))) {
        // A program by path: a file of the project, or one elsewhere.
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Script;
        e.path = absolute(first, m_how.cwd);
        e.pathKnown = !e.path.isEmpty();
        e.cwd = m_how.cwd;
        e.argv = m_how.argv;
        e.what = QStringLiteral("runs the program %1").arg(first.text);
        const QString name = QFileInfo(program).fileName();
        if (program.contains(QLatin1String("node_modules/.bin/")) && !program.contains(QLatin1String(".."))) {
            QList<Arg> inner = args;
            inner.first().text = name;
            // Only a tool it knows (jest, tsc, eslint...), judged as that tool; its file is the
            // project's installed package, kept by the lock file, not by git.
            if (!ProjectTools::read(*this, name, inner))
                unknown(QStringLiteral("%1 is not a tool Countersign knows").arg(program));
            return m_effects;
        }
        if (name == QLatin1String("gradlew") || name == QLatin1String("mvnw")) {
            e.code = Effect::Code::Project;
            e.definitions =
                words({"gradlew", "mvnw", "build.gradle", "build.gradle.kts", "settings.gradle",
                       "settings.gradle.kts", "pom.xml", "gradle/wrapper/gradle-wrapper.properties"});
            e.what = QStringLiteral("runs the project's build (%1)").arg(name);
        }
        append(std::move(e));
        return m_effects;
    }
    if (wrapper(program, args))
        return m_effects;
    if (program == QLatin1String("git")) {
        GitCommand::read(*this, args);
        return m_effects;
    }
    // A question about the program itself.
    if (args.size() == 2 && args.at(1).known &&
        (args.at(1).text == QLatin1String("--version") || args.at(1).text == QLatin1String("--help"))) {
        add(Effect::Kind::Reads, QStringLiteral("asks %1 for its version or help").arg(program));
        return m_effects;
    }
    if (builtin(program, args) || shell(program, args) || interpreter(program, args) ||
        ProjectTools::read(*this, program, args) || FileCommands::read(*this, program, args))
        return m_effects;
    if (readers().contains(program)) {
        // Options that make a reader run a program or write a file.
        for (qsizetype k = 1; k < args.size(); ++k) {
            const QString t = args.at(k).text;
            const bool runs =
                ((program == QLatin1String("rg")) &&
                 (t.startsWith(QLatin1String("--pre")) || t == QLatin1String("-z") ||
                  t.startsWith(QLatin1String("--search-zip")))) ||
                ((program == QLatin1String("fd") || program == QLatin1String("fdfind")) &&
                 (t == QLatin1String("-x") || t == QLatin1String("-X") ||
                  t.startsWith(QLatin1String("--exec")))) ||
                ((program == QLatin1String("bat") || program == QLatin1String("batcat") ||
                  program == QLatin1String("ack") || program == QLatin1String("ag")) &&
                 (t.startsWith(QLatin1String("--pager")) || t.startsWith(QLatin1String("--output")) ||
                  t.startsWith(QLatin1String("--pre")))) ||
                ((program == QLatin1String("less") || program == QLatin1String("more")) &&
                 (t.startsWith(QLatin1Char('+')) || t.startsWith(QLatin1String("-o")) ||
                  t.startsWith(QLatin1String("-O")) || t.startsWith(QLatin1String("--log-file")) ||
                  t.startsWith(QLatin1String("--LOG-FILE")) || t.startsWith(QLatin1String("--lesskey")) ||
                  t.startsWith(QLatin1String("-k")))) ||
                (program == QLatin1String("tree") &&
                 (t.startsWith(QLatin1String("-o")) || t.startsWith(QLatin1String("--output")))) ||
                (program == QLatin1String("top") || program == QLatin1String("htop") ||
                 program == QLatin1String("watch")) ||
                ((program == QLatin1String("du") || program == QLatin1String("wc") ||
                  program == QLatin1String("sort")) &&
                 t.startsWith(QLatin1String("--files0-from")));
            if (runs) {
                unknown(QStringLiteral("%1 %2 runs a program, writes a file or reads a list of files")
                            .arg(program, t));
                return m_effects;
            }
        }
        readsOperands(args, words({"-n", "-c",        "-e",        "-f",     "-m", "-A",          "-B",
                                   "-C", "-t",        "-g",        "--glob", "-d", "--max-depth", "-L",
                                   "-I", "--exclude", "--include", "-k",     "-T", "-S"}));
        const bool nothingRead = std::none_of(m_effects.cbegin(), m_effects.cend(),
                                              [](const Effect &e) { return e.kind == Effect::Kind::Reads; });
        if (nothingRead) // what it prints comes from itself or its input: a read of the folder at most
            add(Effect::Kind::Reads, QStringLiteral("%1 prints").arg(program), m_how.cwd,
                !m_how.cwd.isEmpty());
        return m_effects;
    }
    unknown(QStringLiteral("%1 is not a program Countersign knows").arg(program));
    return m_effects;
}

// The shell's own commands and the few readers that write or dump the environment.
bool CommandCatalog::builtin(const QString &program, const QList<Arg> &args)
{
    const QList<Arg> rest = args.mid(1);
    const bool onlyOptions =
        std::all_of(rest.cbegin(), rest.cend(), [](const Arg &a) { return isOption(a); });
    static const QStringList dumps =
        words({"env", "printenv", "export", "declare", "set", "typeset", "readonly", "local"});
    if (dumps.contains(program) && onlyOptions && !(program == QLatin1String("set") && !rest.isEmpty())) {
        add(Effect::Kind::Secret,
            QStringLiteral("prints every environment variable (tokens and keys among them)"));
        return true;
    }
    // Names given to read, printf -v, mapfile: the variables they set.
    if (program == QLatin1String("read") || program == QLatin1String("printf") ||
        program == QLatin1String("mapfile") || program == QLatin1String("readarray") ||
        program == QLatin1String("getopts")) {
        for (qsizetype k = 1; k < rest.size() + 1; ++k) {
            const QString t = args.at(k).text;
            const bool named =
                program != QLatin1String("printf") || (k > 1 && args.at(k - 1).text == QLatin1String("-v"));
            if (named && !t.startsWith(QLatin1Char('-')) && poisons(t.section(QLatin1Char('['), 0, 0)))
                add(Effect::Kind::Environment,
                    QStringLiteral("%1 sets %2, which changes what programs run or load").arg(program, t));
            if (t.startsWith(QLatin1String("-v")) && t.size() > 2 && poisons(t.mid(2)))
                add(Effect::Kind::Environment, QStringLiteral("%1 sets %2").arg(program, t.mid(2)));
        }
        if (program == QLatin1String("mapfile") || program == QLatin1String("readarray") ||
            program == QLatin1String("read")) {
            for (qsizetype k = 1; k < args.size(); ++k) {
                if (args.at(k).text == QLatin1String("-u") || args.at(k).text.startsWith(QLatin1String("-u")))
                    add(Effect::Kind::Reads, QStringLiteral("%1 reads a descriptor").arg(program));
            }
        }
        add(Effect::Kind::Reads, QStringLiteral("%1 sets variables").arg(program));
        return true;
    }
    if (program == QLatin1String("hash") && std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
            return a.text.startsWith(QLatin1String("-p")) ||
                   (a.text.contains(QLatin1Char('p')) && isOption(a));
        })) {
        add(Effect::Kind::Environment, QStringLiteral("hash -p changes what a name runs"));
        return true;
    }
    if (program == QLatin1String("date")) {
        for (qsizetype k = 1; k < args.size(); ++k) {
            const QString t = args.at(k).text;
            if ((t == QLatin1String("-f") || t == QLatin1String("--file") || t == QLatin1String("-r") ||
                 t == QLatin1String("--reference")) &&
                k + 1 < args.size())
                addPath(Effect::Kind::Reads, QStringLiteral("date reads %1").arg(args.at(k + 1).text),
                        args.at(k + 1));
            else if ((t.startsWith(QLatin1String("-f")) || t.startsWith(QLatin1String("-r"))) && t.size() > 2)
                addPath(Effect::Kind::Reads, QStringLiteral("date reads %1").arg(t.mid(2)),
                        Arg{t.mid(2), args.at(k).known, false, {}});
            else if (t.startsWith(QLatin1String("--file=")) || t.startsWith(QLatin1String("--reference=")))
                addPath(Effect::Kind::Reads, QStringLiteral("date reads a file"),
                        Arg{t.section(QLatin1Char('='), 1), args.at(k).known, false, {}});
            else if (t == QLatin1String("-s") || t.startsWith(QLatin1String("--set")))
                add(Effect::Kind::Privilege, QStringLiteral("date -s sets the clock"));
        }
        add(Effect::Kind::Reads, QStringLiteral("date prints"));
        return true;
    }
    if (program == QLatin1String("ps")) {
        // BSD-style "e" (ps auxe, ps eww) prints each process's environment.
        for (const Arg &a : rest) {
            if ((!a.text.startsWith(QLatin1Char('-')) && a.text.contains(QLatin1Char('e'))) ||
                a.text.contains(QLatin1String("environ")) || a.text.startsWith(QLatin1String("-o")) ||
                a.text == QLatin1String("-O")) {
                add(Effect::Kind::Secret,
                    QStringLiteral("ps %1 can print other programs' environments").arg(a.text));
                return true;
            }
        }
        add(Effect::Kind::Reads, QStringLiteral("ps lists processes"));
        return true;
    }
    if (program == QLatin1String("jq") || program == QLatin1String("yq") ||
        program == QLatin1String("gojq")) {
        for (const Arg &a : rest) {
            if (a.text.contains(QLatin1String("env")) || a.text.contains(QLatin1String("ENV")) ||
                a.text.contains(QLatin1String("input_filename")) ||
                a.text.startsWith(QLatin1String("--rawfile")) ||
                a.text.startsWith(QLatin1String("--slurpfile")) || a.text.startsWith(QLatin1String("-L")) ||
                a.text == QLatin1String("-i") || a.text.startsWith(QLatin1String("--from-file")) ||
                a.text == QLatin1String("-f")) {
                add(Effect::Kind::Unknown,
                    QStringLiteral("%1 %2 reads the environment, other files or modules")
                        .arg(program, a.text));
                return true;
            }
        }
        readsOperands(args);
        return true;
    }
    if (program == QLatin1String("printenv")) {
        for (const Arg &a : rest) {
            if (!a.known || secretName(a.text))
                add(Effect::Kind::Secret, QStringLiteral("prints the secret variable %1").arg(a.text));
        }
        add(Effect::Kind::Reads, QStringLiteral("prints variables"));
        return true;
    }
    if (program == QLatin1String("history")) {
        add(Effect::Kind::Secret, QStringLiteral("reads the shell's history"));
        return true;
    }
    if (program == QLatin1String("export") || program == QLatin1String("declare") ||
        program == QLatin1String("local") || program == QLatin1String("typeset") ||
        program == QLatin1String("readonly")) {
        for (const Arg &a : rest) {
            if (isOption(a)) {
                if (a.text.contains(QLatin1Char('n')) || a.text.contains(QLatin1Char('f')))
                    unknown(QStringLiteral("%1 %2 makes a name another variable or a function")
                                .arg(program, a.text));
                continue;
            }
            const QString name = a.text.section(QLatin1Char('='), 0, 0);
            if (secretName(name) && !a.text.contains(QLatin1Char('=')))
                add(Effect::Kind::Secret,
                    QStringLiteral("%1 prints the secret variable %2").arg(program, name));
            static const QRegularExpression plainName(
                QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\[[^]]*\\])?\\+?$"));
            if (!plainName.match(name).hasMatch())
                unknown(QStringLiteral("%1 of a name that expands (%2)").arg(program, name));
            else if (poisons(name.endsWith(QLatin1Char('+')) ? name.chopped(1) : name))
                add(Effect::Kind::Environment, QStringLiteral("sets %1 for what runs after it").arg(name));
        }
        add(Effect::Kind::Reads, QStringLiteral("sets variables"));
        return true;
    }
    if (program == QLatin1String("umask") && !rest.isEmpty() &&
        !rest.first().text.startsWith(QLatin1Char('-'))) {
        add(Effect::Kind::Environment,
            QStringLiteral("umask %1 changes who may read what is written next").arg(rest.first().text));
        return true;
    }
    if (program == QLatin1String("shopt")) {
        // Options that change what the line's words mean or where a cd lasts: asked for.
        static const QStringList harmless =
            words({"-q", "-p", "nullglob", "failglob", "globstar", "nocaseglob", "nocasematch",
                   "checkwinsize", "histappend", "-s", "-u", "-o"});
        for (const Arg &a : rest) {
            if (!harmless.contains(a.text)) {
                add(Effect::Kind::Environment,
                    QStringLiteral("shopt %1 changes how the shell reads what follows").arg(a.text));
                return true;
            }
        }
        add(Effect::Kind::Reads, QStringLiteral("shopt"));
        return true;
    }
    if (program == QLatin1String("jobs") &&
        std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) { return a.text == QLatin1String("-x"); })) {
        runInner(rest.mid(1));
        return true;
    }
    if (program == QLatin1String("let")) {
        unknown(QStringLiteral("let evaluates arithmetic whose names may hold code"));
        return true;
    }
    if ((program == QLatin1String("alias") || program == QLatin1String("enable")) && !rest.isEmpty()) {
        add(Effect::Kind::Environment, QStringLiteral("%1 changes what a later name runs").arg(program));
        return true;
    }
    if (program == QLatin1String("sort")) {
        for (qsizetype k = 0; k < rest.size(); ++k) {
            const Arg &a = rest.at(k);
            const qsizetype o = isOption(a) && !a.text.startsWith(QLatin1String("--"))
                                    ? a.text.indexOf(QLatin1Char('o'))
                                    : -1;
            if (o > 0 && o + 1 == a.text.size() && k + 1 < rest.size())
                addReplace(QStringLiteral("sort writes %1").arg(rest.at(k + 1).text), rest.at(k + 1));
            else if (o > 0)
                addReplace(QStringLiteral("sort writes its output"),
                           Arg{a.text.mid(o + 1), a.known, a.glob, {}});
            else if (a.text.startsWith(QLatin1String("--o")))
                addReplace(QStringLiteral("sort writes its output"),
                           a.text.contains(QLatin1Char('='))
                               ? Arg{a.text.section(QLatin1Char('='), 1), a.known, a.glob, {}}
                               : rest.value(k + 1));
            else if (a.text.startsWith(QLatin1String("--com")) ||
                     a.text.startsWith(QLatin1String("--files0")))
                unknown(QStringLiteral("sort --compress-program runs another program"));
        }
        readsOperands(args, words({"-o", "-k", "-t", "-S", "-T", "--key", "--field-separator"}));
        return true;
    }
    if (program == QLatin1String("uniq")) {
        QList<Arg> operands;
        for (const Arg &a : rest) {
            if (!isOption(a))
                operands.append(a);
        }
        if (!operands.isEmpty())
            addPath(Effect::Kind::Reads, QStringLiteral("uniq reads %1").arg(operands.first().text),
                    operands.first());
        if (operands.size() >= 2)
            addPath(Effect::Kind::Writes, QStringLiteral("uniq writes %1").arg(operands.at(1).text),
                    operands.at(1));
        add(Effect::Kind::Reads, QStringLiteral("uniq prints"));
        return true;
    }
    if (program == QLatin1String("tee")) {
        const bool appends = std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
            return a.text == QLatin1String("--append") ||
                   (isOption(a) && !a.text.startsWith(QLatin1String("--")) &&
                    a.text.contains(QLatin1Char('a')));
        });
        for (const Arg &a : rest) {
            if (isOption(a))
                continue;
            if (appends)
                addPath(Effect::Kind::Writes, QStringLiteral("tee appends to %1").arg(a.text), a);
            else
                addReplace(QStringLiteral("tee writes %1").arg(a.text), a);
        }
        add(Effect::Kind::Reads, QStringLiteral("tee prints"));
        return true;
    }
    if (program == QLatin1String("source") || program == QLatin1String(".")) {
        if (rest.isEmpty()) {
            unknown(QStringLiteral("%1 with no file").arg(program));
        } else {
            Effect e;
            e.kind = Effect::Kind::Runs;
            e.code = Effect::Code::Script;
            e.path = absolute(rest.first(), m_how.cwd);
            e.pathKnown = !e.path.isEmpty();
            e.cwd = m_how.cwd;
            e.argv = m_how.argv;
            e.what = QStringLiteral("runs the shell code in %1 (%2)").arg(rest.first().text, program);
            append(std::move(e));
        }
        return true;
    }
    static const QStringList codeRunners =
        words({"ldd",     "dc",        "trap",  "crontab", "at",       "batch",   "systemctl",
               "service", "launchctl", "mount", "umount",  "chroot",   "nsenter", "unshare",
               "kill",    "killall",   "pkill", "reboot",  "shutdown", "halt"});
    if (codeRunners.contains(program)) {
        unknown(QStringLiteral("%1 runs, schedules or stops programs").arg(program));
        return true;
    }
    return false;
}

// Programs that run the command after their own options: taken off, and the command read.
bool CommandCatalog::wrapper(const QString &program, const QList<Arg> &args)
{
    // Each: the options that take a value as the next argument, and how many operands come
    // before the command (timeout's duration).
    struct Form final
    {
        QStringList valued;
        int operands = 0;
    };
    static const QHash<QString, Form> forms = {
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
    const auto form = forms.constFind(program);
    if (form == forms.cend())
        return false;
    if (program == QLatin1String("env") && args.size() == 1)
        return false; // a dump, judged by builtin()
    if (program == QLatin1String("sudo") || program == QLatin1String("doas"))
        add(Effect::Kind::Privilege, QStringLiteral("runs as another user (%1)").arg(program));
    if (program == QLatin1String("exec") && args.size() == 1)
        return true; // exec with redirections only: they were read already
    Invocation inner = m_how;
    qsizetype k = 1;
    int operands = form->operands;
    while (k < args.size()) {
        const Arg &a = args.at(k);
        if (!a.known) {
            unknown(QStringLiteral("%1 is given an argument that expands (%2)").arg(program, a.text));
            return true;
        }
        if (a.text == QLatin1String("--")) {
            ++k;
            break;
        }
        if (program == QLatin1String("env") && a.text.contains(QLatin1Char('=')) &&
            !a.text.startsWith(QLatin1Char('-'))) {
            const QString name = a.text.section(QLatin1Char('='), 0, 0);
            if (poisons(name))
                add(Effect::Kind::Environment,
                    QStringLiteral("sets %1, which changes what programs run or load").arg(name));
            ++k;
            continue;
        }
        if (a.text.startsWith(QLatin1Char('-')) && a.text.size() > 1) {
            const QString option = a.text.section(QLatin1Char('='), 0, 0);
            if (program == QLatin1String("env") &&
                (option == QLatin1String("-S") || option == QLatin1String("--split-string") ||
                 (option.startsWith(QLatin1String("-S")) && option.size() > 2))) {
                // env -S "line": the rest is split into words as a shell would
                QString line = a.text.contains(QLatin1Char('=')) ? a.text.section(QLatin1Char('='), 1)
                               : option.size() > 2 && option.startsWith(QLatin1String("-S"))
                                   ? a.text.mid(2)
                                   : args.value(k + 1).text;
                readLine(line, m_how.cwd);
                return true;
            }
            if ((program == QLatin1String("env") &&
                 (option == QLatin1String("-C") || option == QLatin1String("--chdir"))) ||
                (program == QLatin1String("sudo") && option == QLatin1String("-D"))) {
                const QString dir = a.text.contains(QLatin1Char('=')) ? a.text.section(QLatin1Char('='), 1)
                                                                      : args.value(k + 1).text;
                inner.cwd = absolute(Arg{dir, args.value(k + 1).known, false, {}}, m_how.cwd);
            }
            if (program == QLatin1String("sudo") &&
                (option == QLatin1String("-s") || option == QLatin1String("-i") ||
                 option == QLatin1String("-e") || option == QLatin1String("--edit"))) {
                unknown(QStringLiteral("sudo %1 opens a shell or an editor as another user").arg(option));
                return true;
            }
            if (program == QLatin1String("time") &&
                (option == QLatin1String("-o") || option.startsWith(QLatin1String("--o")))) {
                const Arg out = a.text.contains(QLatin1Char('='))
                                    ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}}
                                    : args.value(k + 1);
                addPath(Effect::Kind::Writes, QStringLiteral("time writes %1").arg(out.text), out);
                k += a.text.contains(QLatin1Char('=')) ? 1 : 2;
                continue;
            }
            if (program == QLatin1String("xargs") && a.text.startsWith(QLatin1String("--arg-file="))) {
                addPath(Effect::Kind::Reads, QStringLiteral("xargs reads its arguments from a file"),
                        Arg{a.text.mid(11), a.known, false, {}});
            }
            if (program == QLatin1String("xargs") &&
                (option == QLatin1String("-a") || option == QLatin1String("--arg-file")))
                addPath(Effect::Kind::Reads, QStringLiteral("xargs reads its arguments from a file"),
                        args.value(k + 1));
            if (program == QLatin1String("nice") && a.text.size() > 1 && a.text.at(1).isDigit()) {
                ++k; // nice -10
                continue;
            }
            k += form->valued.contains(option) && !a.text.contains(QLatin1Char('=')) ? 2 : 1;
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
            unknown(QStringLiteral("xargs runs echo with what it reads"));
        else if (program != QLatin1String("command") && program != QLatin1String("time"))
            unknown(QStringLiteral("%1 with no command").arg(program));
        return true;
    }
    if (program == QLatin1String("command") && args.value(1).text == QLatin1String("-v"))
        return true; // command -v NAME: says where a name leads
    inner.argv.clear();
    inner.depth += 1;
    QList<Arg> all = rest;
    if (program == QLatin1String("xargs")) {
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
        if (m_how.stdinPaths.isEmpty())
            all.append(Arg{QStringLiteral("(from standard input)"), false, false, {}});
        for (const QString &folder : m_how.stdinPaths)
            all.append(Arg{folder, true, folder.contains(QLatin1String("/**/")), {}});
    }
    m_runArgs(all, inner);
    return true;
}

// A shell: "-c LINE" is read as a line; a script file runs; with neither, it runs its input.
bool CommandCatalog::shell(const QString &program, const QList<Arg> &args)
{
    static const QStringList shells = words({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox",
                                             "fish", "rbash", "eval", "watch", "su", "script"});
    if (!shells.contains(program))
        return false;
    if (program == QLatin1String("busybox") && args.size() > 1) {
        runInner(args.mid(1));
        return true;
    }
    if (program == QLatin1String("eval") || program == QLatin1String("watch")) {
        QStringList parts;
        qsizetype k = 1;
        if (program == QLatin1String("watch")) {
            static const QStringList valued = words({"-n", "--interval", "-d", "-q", "--differences"});
            while (k < args.size() && isOption(args.at(k)))
                k += valued.contains(args.at(k).text) && args.at(k).text != QLatin1String("-d") ? 2 : 1;
        }
        for (const Arg &a : args.mid(k)) {
            if (!a.known || a.glob) {
                unknown(QStringLiteral("%1 of words that expand (%2)").arg(program, a.text));
                return true;
            }
            parts.append(a.text);
        }
        readLine(parts.join(QLatin1Char(' ')), m_how.cwd);
        return true;
    }
    if (program == QLatin1String("su")) {
        add(Effect::Kind::Privilege, QStringLiteral("runs as another user (su)"));
    }
    if (program == QLatin1String("zsh") || program == QLatin1String("fish") ||
        program == QLatin1String("ksh") || program == QLatin1String("mksh")) {
        unknown(QStringLiteral("%1 reads a language of its own, not bash's").arg(program));
        return true;
    }
    if (program == QLatin1String("script")) {
        unknown(QStringLiteral("script records a shell session"));
        return true;
    }
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            unknown(QStringLiteral("%1 is given an argument that expands (%2)").arg(program, a.text));
            return true;
        }
        const bool option = a.text.startsWith(QLatin1Char('-')) || a.text.startsWith(QLatin1Char('+'));
        if (option && a.text != QLatin1String("-") && a.text != QLatin1String("--")) {
            if (a.text == QLatin1String("-o") || a.text == QLatin1String("+o") ||
                a.text == QLatin1String("-O") || a.text == QLatin1String("--rcfile") ||
                a.text == QLatin1String("--init-file")) {
                if (a.text.endsWith(QLatin1String("file")))
                    unknown(QStringLiteral("%1 %2 runs another file first").arg(program, a.text));
                ++k;
                continue;
            }
            const bool command =
                !a.text.startsWith(QLatin1String("--")) && a.text.mid(1).contains(QLatin1Char('c'));
            if (command || (program == QLatin1String("su") && (a.text == QLatin1String("--command")))) {
                if (k + 1 >= args.size()) {
                    unknown(QStringLiteral("%1 -c with no line").arg(program));
                    return true;
                }
                if (!args.at(k + 1).known) {
                    unknown(QStringLiteral("%1 -c of a line that expands").arg(program));
                    return true;
                }
                readLine(args.at(k + 1).text, m_how.cwd);
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
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Script;
        e.path = absolute(a, m_how.cwd);
        e.pathKnown = !e.path.isEmpty() && !a.glob;
        e.cwd = m_how.cwd;
        e.argv = m_how.argv;
        e.what = QStringLiteral("runs the shell script %1").arg(a.text);
        append(std::move(e));
        return true;
    }
    // No line, no file: it runs what it reads.
    switch (m_how.stdinKind) {
    case Stdin::Text:
        if (m_how.stdinDynamic)
            unknown(QStringLiteral("%1 runs a here-document whose text is only known when the line runs")
                        .arg(program));
        else
            readLine(m_how.stdinText, m_how.cwd);
        break;
    case Stdin::File: {
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Script;
        e.path = m_how.stdinPath;
        e.pathKnown = !e.path.isEmpty();
        e.cwd = m_how.cwd;
        e.argv = m_how.argv;
        e.what = QStringLiteral("runs the shell code it reads from %1").arg(e.path);
        append(std::move(e));
        break;
    }
    case Stdin::Pipe:
    case Stdin::None: {
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Stdin;
        e.cwd = m_how.cwd;
        e.argv = m_how.argv;
        e.what = QStringLiteral("runs whatever is piped into %1").arg(program);
        append(std::move(e));
        break;
    }
    }
    return true;
}

// Interpreters: inline code asks; a script file runs as the project's; a module by name (python -m)
// is read as the program it is.
bool CommandCatalog::interpreter(const QString &program, const QList<Arg> &args)
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
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            unknown(QStringLiteral("%1 is given an argument that expands (%2)").arg(program, a.text));
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
                const QString module = a.text.size() > 2 ? a.text.mid(2) : args.value(k + 1).text;
                QList<Arg> inner = {Arg{module, true, false, {}}};
                inner += args.mid(a.text.size() > 2 ? k + 1 : k + 2);
                static const QStringList asPrograms =
                    words({"pytest", "pip", "pip3", "black", "ruff", "mypy", "flake8", "pylint", "isort",
                           "tox", "nox", "coverage"});
                if (module == QLatin1String("unittest") || module == QLatin1String("doctest")) {
                    project(QStringLiteral("runs the project's tests (%1 -m %2)").arg(program, module),
                            ProjectTools::pythonDefinitions());
                } else if (module == QLatin1String("json.tool") || module == QLatin1String("py_compile") ||
                           module == QLatin1String("compileall") || module == QLatin1String("this") ||
                           module == QLatin1String("site")) {
                    readsOperands(inner);
                } else if (module == QLatin1String("venv") || module == QLatin1String("virtualenv")) {
                    for (const Arg &dir : inner.mid(1))
                        if (!isOption(dir))
                            addPath(Effect::Kind::Writes,
                                    QStringLiteral("makes a virtual environment in %1").arg(dir.text), dir);
                } else if (asPrograms.contains(module)) {
                    runInner(inner);
                } else if (module == QLatin1String("http.server") ||
                           module == QLatin1String("SimpleHTTPServer")) {
                    add(Effect::Kind::Network,
                        QStringLiteral("serves the folder over HTTP (%1 -m %2)").arg(program, module));
                } else {
                    unknown(QStringLiteral("%1 -m %2 runs a module Countersign does not know")
                                .arg(program, module));
                }
                return true;
            }
            if (node && (a.text == QLatin1String("--test") || a.text.startsWith(QLatin1String("--test")))) {
                for (const Arg &other : args.mid(1)) {
                    if (other.text.startsWith(QLatin1String("-")) &&
                        !other.text.startsWith(QLatin1String("--test"))) {
                        unknown(QStringLiteral("node --test %1 may load code first").arg(other.text));
                        return true;
                    }
                }
                project(QStringLiteral("runs the project's tests (node --test)"),
                        ProjectTools::nodeDefinitions());
                return true;
            }
            if (inlineFlags.contains(a.text) || inlineFlags.contains(flag) ||
                a.text.startsWith(QLatin1String("--eval")) || a.text.startsWith(QLatin1String("--print"))) {
                Effect e;
                e.kind = Effect::Kind::Runs;
                e.code = Effect::Code::Inline;
                e.what = QStringLiteral("runs code given on the command line (%1 %2)").arg(program, a.text);
                append(std::move(e));
                return true;
            }
            static const QStringList valued = words({"-W", "-X", "--require", "-r", "--import", "--loader",
                                                     "-I", "-cp", "-classpath", "--class-path"});
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
            const bool loads =
                std::any_of(loaders.cbegin(), loaders.cend(),
                            [&a](const QString &l) {
                                return a.text == l || a.text.startsWith(l + QLatin1Char('=')) ||
                                       (l.size() == 2 && a.text.startsWith(l) &&
                                        !a.text.startsWith(QLatin1String("--")));
                            }) ||
                (!node && !python); // the others' options are not read: any of them may load code
            if (loads && !(python && a.text.startsWith(QLatin1String("-m")))) {
                unknown(QStringLiteral("%1 %2 loads code before the script").arg(program, a.text));
                return true;
            }
            if (valued.contains(a.text))
                ++k;
            continue;
        }
        Effect e;
        e.kind = Effect::Kind::Runs;
        e.code = Effect::Code::Script;
        e.path = absolute(a, m_how.cwd);
        e.pathKnown = !e.path.isEmpty() && !a.glob;
        e.cwd = m_how.cwd;
        e.argv = m_how.argv;
        e.what = QStringLiteral("runs the script %1 with %2").arg(a.text, program);
        append(std::move(e));
        return true;
    }
    // No script: code from standard input (a here-document is code too).
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = m_how.stdinKind == Stdin::File ? Effect::Code::Script : Effect::Code::Stdin;
    e.path = m_how.stdinPath;
    e.pathKnown = !e.path.isEmpty();
    e.cwd = m_how.cwd;
    e.argv = m_how.argv;
    e.what = m_how.stdinKind == Stdin::Text
                 ? QStringLiteral("runs the code in its here-document (%1)").arg(program)
                 : QStringLiteral("runs the code it reads on standard input (%1)").arg(program);
    if (m_how.stdinKind == Stdin::Text)
        e.code = Effect::Code::Inline;
    append(std::move(e));
    return true;
}

} // namespace Countersign::Shell
