#include "commandcatalog.h"

#include "argtools.h"
#include "coderunners.h"
#include "filecommands.h"
#include "gitcommand.h"
#include "projecttools.h"
#include "shellbuiltins.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QStandardPaths>

namespace Countersign::Shell {

using namespace ArgTools;

namespace {

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

// A program by path: a file of the project, or one elsewhere.
void programByPath(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const Arg &first = args.first();
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = Effect::Code::Script;
    e.path = CommandCatalog::absolute(first, c.how().cwd);
    e.pathKnown = !e.path.isEmpty();
    e.cwd = c.how().cwd;
    e.argv = c.how().argv;
    e.what = QStringLiteral("runs the program %1").arg(first.text);
    const QString name = QFileInfo(program).fileName();
    if (program.contains(QLatin1String("node_modules/.bin/")) && !program.contains(QLatin1String(".."))) {
        QList<Arg> inner = args;
        inner.first().text = name;
        // Only a tool it knows (jest, tsc, eslint...), judged as that tool; its file is the
        // project's installed package, kept by the lock file, not by git.
        if (!ProjectTools::read(c, name, inner))
            c.unknown(QStringLiteral("%1 is not a tool Countersign knows").arg(program));
        return;
    }
    if (name == QLatin1String("gradlew") || name == QLatin1String("mvnw")) {
        e.code = Effect::Code::Project;
        e.definitions = words({"gradlew", "mvnw", "build.gradle", "build.gradle.kts", "settings.gradle",
                               "settings.gradle.kts", "pom.xml", "gradle/wrapper/gradle-wrapper.properties"});
        e.what = QStringLiteral("runs the project's build (%1)").arg(name);
    }
    c.append(std::move(e));
}

// Options that make a reader run a program or write a file: the first one is an Unknown effect,
// and true.
bool readerOptionRuns(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
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
             (t.startsWith(QLatin1String("-o")) || t.startsWith(QLatin1String("--output")) ||
              t.startsWith(QLatin1String("--fromfile")))) ||
            (program == QLatin1String("top") || program == QLatin1String("htop") ||
             program == QLatin1String("watch")) ||
            ((program == QLatin1String("du") || program == QLatin1String("wc") ||
              program == QLatin1String("sort")) &&
             t.startsWith(QLatin1String("--files0-from")));
        if (runs) {
            c.unknown(QStringLiteral("%1 %2 runs a program, writes a file or reads a list of files")
                          .arg(program, t));
            return true;
        }
    }
    return false;
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
                                      QStringLiteral("SIMPLE_BACKUP_SUFFIX"),
                                      QStringLiteral("DOCKER_HOST"),
                                      QStringLiteral("DOCKER_CONTEXT"),
                                      QStringLiteral("DOCKER_CONFIG"),
                                      QStringLiteral("CONTAINER_HOST"),
                                      QStringLiteral("KUBECONFIG"),
                                      QStringLiteral("MANPAGER"),
                                      QStringLiteral("MANOPT"),
                                      QStringLiteral("INFOPATH"),
                                      QStringLiteral("VERSION_CONTROL"),
                                      QStringLiteral("PATCH_VERSION_CONTROL"),
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
           name.startsWith(QLatin1String("NPM_CONFIG_")) || name.startsWith(QLatin1String("BASH_FUNC_")) ||
           name.startsWith(QLatin1String("OPENSSL_")) ||
           // node reads many (NODE_REDIRECT_WARNINGS appends to a file, NODE_V8_COVERAGE writes a
           // folder): all but the few that only change how it prints.
           (name.startsWith(QLatin1String("NODE_")) && name != QLatin1String("NODE_ENV") &&
            name != QLatin1String("NODE_NO_WARNINGS") && name != QLatin1String("NODE_DISABLE_COLORS"));
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
            "^PGPASS|_PAT$|WEBHOOK|ACCESS_KEY|KEY_ID$|DATABASE_UR[IL]|(^|_)DB_UR[IL]$|REDIS_UR[IL]|AMQP_UR["
            "IL]|"
            "MONGO(DB)?_UR[IL]|CONNECTION_STRING|_PASS$|_PWD$|PASSPHRASE|BROKER_URL|RABBITMQ_URL|"
            "(POSTGRES|PG|MYSQL|JDBC)_UR[IL]$"),
        QRegularExpression::CaseInsensitiveOption);
    return secret.match(name).hasMatch();
}

void CommandCatalog::readLine(const QString &line, const QString &cwd, const QString &source)
{
    m_readLine(line, cwd, m_how.depth + 1, source.isEmpty() ? m_how.source : source);
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
    if (arg.text.startsWith(QLatin1Char('/'))) // not QDir::isAbsolutePath: ":x" is a file here
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
    if (e.source.isEmpty())
        e.source = m_how.source;
    m_effects.append(std::move(e));
}

void CommandCatalog::script(const QString &what, const QString &path, bool known, const QString &source)
{
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = Effect::Code::Script;
    e.path = path;
    e.pathKnown = known;
    e.what = what;
    e.source = source;
    append(std::move(e));
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
        programByPath(*this, program, args);
        return m_effects;
    }
    if (CodeRunners::wrapper(*this, program, args))
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
    if (ShellBuiltins::read(*this, program, args) || CodeRunners::shell(*this, program, args) ||
        CodeRunners::interpreter(*this, program, args) || ProjectTools::read(*this, program, args) ||
        FileCommands::read(*this, program, args))
        return m_effects;
    if (readers().contains(program)) {
        if (readerOptionRuns(*this, program, args))
            return m_effects;
        const qsizetype before = m_effects.size();
        readsOperands(args, words({"-n", "-c",        "-e",        "-f",     "-m", "-A",          "-B",
                                   "-C", "-t",        "-g",        "--glob", "-d", "--max-depth", "-L",
                                   "-I", "--exclude", "--include", "-k",     "-T", "-S"}));
        // A listing prints the names under a folder, not what its files hold.
        static const QStringList listings = words({"ls", "dir", "tree", "du", "fd", "fdfind"});
        if (listings.contains(program)) {
            for (qsizetype k = before; k < m_effects.size(); ++k)
                m_effects[k].note = Effect::Note::Names;
        }
        const bool nothingRead = std::none_of(m_effects.cbegin(), m_effects.cend(),
                                              [](const Effect &e) { return e.kind == Effect::Kind::Reads; });
        if (nothingRead) { // what it prints comes from itself or its input: the folder's names at most
            add(Effect::Kind::Reads, QStringLiteral("%1 prints").arg(program), m_how.cwd,
                !m_how.cwd.isEmpty());
            m_effects.last().note = Effect::Note::Names;
        }
        return m_effects;
    }
    otherProgram(program, args);
    return m_effects;
}

void CommandCatalog::otherProgram(const QString &program, const QList<Arg> &args)
{
    // A manual, or any installed program's help or version, prints and changes nothing.
    static const QStringList manuals = words({"man", "info", "whatis", "apropos", "tldr"});
    static const QStringList asking =
        words({"--help", "-h", "--version", "-V", "version", "help", "-version", "-help"});
    // A file of that name in the folder it runs in or a project's own bin folders: the agent's
    // PATH may hold those, and the agent writes there with no card.
    const auto inProject = [&] {
        for (const char *bin : {"", "/.venv/bin", "/venv/bin", "/node_modules/.bin", "/bin", "/.bin"}) {
            if (!m_how.cwd.isEmpty() &&
                QFileInfo::exists(m_how.cwd + QLatin1String(bin) + QLatin1Char('/') + program))
                return true;
        }
        return false;
    };
    if (manuals.contains(program)) {
        // man 3 printf, man git-commit: a page by name; an option (-l FILE, -P PAGER, -o FILE) or
        // a path reads or runs more.
        for (const Arg &a : args.mid(1)) {
            if (!a.known || a.text.startsWith(QLatin1Char('-')) || a.text.contains(QLatin1Char('/'))) {
                unknown(QStringLiteral("%1 %2 reads a file, runs a pager or writes").arg(program, a.text));
                return;
            }
        }
        add(Effect::Kind::Reads, QStringLiteral("%1 prints a manual").arg(program));
        m_effects.last().note = Effect::Note::NoProgram;
        return;
    }
    if (args.size() == 2 && asking.contains(args.at(1).text) && !inProject() &&
        m_how.stdinKind == Stdin::None) {
        add(Effect::Kind::Reads, QStringLiteral("%1 prints its help or its version").arg(program));
        m_effects.last().note = Effect::Note::NoProgram; // found by name: a line that moves PATH asks
        return;
    }
    // A known command glued to punctuation (cd.., find., ls-la) that is no program here (not on
    // this PATH, not in the project: inProject): the shell refuses it, unless the line changes
    // where programs are found (the judge sees that).
    static const QRegularExpression glued(QStringLiteral("^([a-z]+)[.\\-]+[a-z]*$"));
    const auto typo = glued.match(program);
    const auto nowhere = [&] { return QStandardPaths::findExecutable(program).isEmpty() && !inProject(); };
    if (typo.hasMatch() &&
        (readers().contains(typo.captured(1)) || typo.captured(1) == QLatin1String("cd") ||
         typo.captured(1) == QLatin1String("find") || typo.captured(1) == QLatin1String("git")) &&
        nowhere()) {
        add(Effect::Kind::Reads,
            QStringLiteral("%1 is no program on this machine: the shell refuses it").arg(program));
        m_effects.last().note = Effect::Note::NoProgram;
        return;
    }
    unknown(QStringLiteral("%1 is not a program Countersign knows").arg(program));
}

} // namespace Countersign::Shell
