#include "readonlycommand.h"

#include "filepath.h"
#include "git.h"
#include "workspace.h"

#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace Countersign::ReadOnlyCommand {

namespace {

const QStringList kGitReading = {QStringLiteral("status"), QStringLiteral("diff"), QStringLiteral("log"),
                                 QStringLiteral("show")};

// What may follow an option's fixed text, in the same argument ("-n5", "--format=%h %s").
enum class Value { None, Number, Text, Format };

struct Option final
{
    QLatin1String text;
    Value value = Value::None;
};

bool printable(const QString &s)
{
    for (const QChar c : s) {
        if (c.category() == QChar::Other_Control || c.category() == QChar::Other_Format ||
            c == QChar::LineSeparator || c == QChar::ParagraphSeparator)
            return false;
    }
    return true;
}

bool valueFits(Value kind, const QString &v)
{
    switch (kind) {
    case Value::None:
        return v.isEmpty();
    case Value::Number: {
        bool ok = false;
        return !v.isEmpty() && v.size() <= 6 && v.toInt(&ok) >= 0 && ok;
    }
    case Value::Text:
        return !v.isEmpty() && printable(v);
    case Value::Format: // %G… verifies signatures: it runs gpg
        return printable(v) && !v.contains(QLatin1String("%G"));
    }
    return false;
}

bool matches(const QList<Option> &options, const QString &arg)
{
    for (const Option &o : options) {
        if (arg.startsWith(o.text) && valueFits(o.value, arg.mid(o.text.size())))
            return true;
    }
    return false;
}

const QList<Option> &optionsOf(const QString &command)
{
    using V = Value;
    static const QList<Option> kLs = {
        {QLatin1String("--all")},
        {QLatin1String("--almost-all")},
        {QLatin1String("--human-readable")},
        {QLatin1String("--recursive")},
        {QLatin1String("--reverse")},
        {QLatin1String("--classify")},
        {QLatin1String("--directory")},
        {QLatin1String("--inode")},
        {QLatin1String("--size")},
        {QLatin1String("--color=never")},
        {QLatin1String("--full-time")},
    };
    static const QList<Option> kPwd = {{QLatin1String("-L")}, {QLatin1String("-P")}};
    static const QList<Option> kStatus = {
        {QLatin1String("-s")},
        {QLatin1String("--short")},
        {QLatin1String("-b")},
        {QLatin1String("--branch")},
        {QLatin1String("--long")},
        {QLatin1String("--porcelain")},
        {QLatin1String("--porcelain=v1")},
        {QLatin1String("--porcelain=v2")},
        {QLatin1String("-z")},
        {QLatin1String("-uno")},
        {QLatin1String("-unormal")},
        {QLatin1String("-uall")},
        {QLatin1String("--untracked-files=no")},
        {QLatin1String("--untracked-files=normal")},
        {QLatin1String("--untracked-files=all")},
        {QLatin1String("--ignored")},
        {QLatin1String("--show-stash")},
        {QLatin1String("--ahead-behind")},
        {QLatin1String("--no-ahead-behind")},
    };
    // Shared by diff, log and show: what a patch looks like.
    static const QList<Option> kPatch = {
        {QLatin1String("-p")},
        {QLatin1String("--patch")},
        {QLatin1String("-s")},
        {QLatin1String("--no-patch")},
        {QLatin1String("--stat")},
        {QLatin1String("--numstat")},
        {QLatin1String("--shortstat")},
        {QLatin1String("--name-only")},
        {QLatin1String("--name-status")},
        {QLatin1String("--summary")},
        {QLatin1String("--raw")},
        {QLatin1String("-U"), V::Number},
        {QLatin1String("--unified="), V::Number},
        {QLatin1String("-w")},
        {QLatin1String("--ignore-all-space")},
        {QLatin1String("--ignore-space-change")},
        {QLatin1String("--ignore-blank-lines")},
        {QLatin1String("--word-diff")},
        {QLatin1String("--color=never")},
        {QLatin1String("--no-color")},
        {QLatin1String("-M")},
        {QLatin1String("-R")},
        {QLatin1String("-z")},
        {QLatin1String("--abbrev-commit")},
        {QLatin1String("--oneline")},
        {QLatin1String("--format="), V::Format},
        {QLatin1String("--pretty="), V::Format},
        {QLatin1String("--date="), V::Text},
    };
    static const QList<Option> kDiff =
        kPatch + QList<Option>{
                     {QLatin1String("--cached")},    {QLatin1String("--staged")},
                     {QLatin1String("--exit-code")}, {QLatin1String("--quiet")},
                     {QLatin1String("--check")},     {QLatin1String("--minimal")},
                     {QLatin1String("--patience")},  {QLatin1String("--histogram")},
                 };
    static const QList<Option> kLog = kPatch + QList<Option>{
                                                   {QLatin1String("-n"), V::Number},
                                                   {QLatin1String("-"), V::Number},
                                                   {QLatin1String("--max-count="), V::Number},
                                                   {QLatin1String("--skip="), V::Number},
                                                   {QLatin1String("--graph")},
                                                   {QLatin1String("--decorate")},
                                                   {QLatin1String("--no-decorate")},
                                                   {QLatin1String("--all")},
                                                   {QLatin1String("--reverse")},
                                                   {QLatin1String("--first-parent")},
                                                   {QLatin1String("--no-merges")},
                                                   {QLatin1String("--merges")},
                                                   {QLatin1String("--follow")},
                                                   {QLatin1String("--topo-order")},
                                                   {QLatin1String("--date-order")},
                                                   {QLatin1String("-i")},
                                                   {QLatin1String("--since="), V::Text},
                                                   {QLatin1String("--until="), V::Text},
                                                   {QLatin1String("--after="), V::Text},
                                                   {QLatin1String("--before="), V::Text},
                                                   {QLatin1String("--author="), V::Text},
                                                   {QLatin1String("--committer="), V::Text},
                                                   {QLatin1String("--grep="), V::Text},
                                                   {QLatin1String("-S"), V::Text},
                                                   {QLatin1String("-G"), V::Text},
                                               };
    static const QList<Option> kNone;
    if (command == QLatin1String("ls"))
        return kLs;
    if (command == QLatin1String("pwd"))
        return kPwd;
    if (command == QLatin1String("git status"))
        return kStatus;
    if (command == QLatin1String("git diff"))
        return kDiff;
    if (command == QLatin1String("git log"))
        return kLog;
    if (command == QLatin1String("git show"))
        return kPatch;
    return kNone;
}

// ls's one-letter options, alone or clustered ("-la").
bool lsCluster(const QString &arg)
{
    static const QString kLetters = QStringLiteral("aAlhRrtSd1FinogsGQcuUvX");
    if (arg.size() < 2 || arg.at(0) != QLatin1Char('-') || arg.at(1) == QLatin1Char('-'))
        return false;
    for (qsizetype i = 1; i < arg.size(); ++i) {
        if (!kLetters.contains(arg.at(i)))
            return false;
    }
    return true;
}

QString gitRefusal(const QString &cwd, const Workspace &ws)
{
    const Git::RepositoryCheck repo = Git::inspectRepository(cwd, gitCeilings(ws));
    if (!repo.error.isEmpty())
        return QStringLiteral("the repository cannot be read (%1)").arg(repo.error);
    for (const QString &folder : repo.folders) {
        if (!ws.confines(QDir::cleanPath(folder)))
            return QStringLiteral("the repository folder %1 is outside the workspace roots").arg(folder);
    }
    if (repo.borrowsObjects)
        return QStringLiteral("the repository borrows objects from elsewhere (objects/info/alternates)");
    if (!repo.riskyKeys.isEmpty())
        return QStringLiteral("the repository's configuration sets %1")
            .arg(repo.riskyKeys.join(QStringLiteral(", ")));
    return {};
}

} // namespace

QStringList gitCeilings(const Workspace &ws)
{
    QStringList ceilings;
    for (const QString &root : ws.roots())
        ceilings.append(QFileInfo(root).absolutePath());
    return ceilings;
}

QString refusal(const QStringList &argv, const QString &cwd, const Workspace &ws)
{
    if (argv.isEmpty())
        return QStringLiteral("no program");
    const QString program = argv.first();
    const bool git = program == QLatin1String("git");
    if (program != QLatin1String("ls") && program != QLatin1String("pwd") && !git)
        return QStringLiteral("%1 is not one of the read-only commands").arg(program);
    if (git && !kGitReading.contains(argv.value(1)))
        return QStringLiteral("only git status, diff, log and show run without a card");
    const QString command = git ? QStringLiteral("git %1").arg(argv.at(1)) : program;
    const QList<Option> &options = optionsOf(command);
    bool pathsOnly = false;
    for (qsizetype i = git ? 2 : 1; i < argv.size(); ++i) {
        const QString &arg = argv.at(i);
        if (!printable(arg))
            return QStringLiteral("an argument holds a control character");
        if (!pathsOnly && git && arg == QLatin1String("--")) {
            pathsOnly = true;
            continue;
        }
        if (!pathsOnly && arg.startsWith(QLatin1Char('-')) && arg.size() > 1) {
            if (matches(options, arg) || (program == QLatin1String("ls") && lsCluster(arg)))
                continue;
            if (command == QLatin1String("git log") && arg == QLatin1String("-n") && i + 1 < argv.size() &&
                valueFits(Value::Number, argv.at(i + 1))) {
                ++i;
                continue;
            }
            return QStringLiteral("%1 is not an option %2 runs without a card").arg(arg, command);
        }
        if (program == QLatin1String("pwd"))
            return QStringLiteral("pwd takes no arguments");
        // A path, or a git revision read as one: either way it must stay inside the roots.
        const QString absolute = FilePath::isAbsolute(arg) ? arg : cwd + QLatin1Char('/') + arg;
        if (arg.isEmpty() || !ws.confines(absolute))
            return QStringLiteral("%1 is outside the workspace roots").arg(arg);
    }
    return git ? gitRefusal(cwd, ws) : QString();
}

CommandSpec spec(const QStringList &argv, const QString &cwd, const Workspace &ws)
{
    CommandSpec spec{argv, cwd, 120'000, 256 * 1024, {}};
    if (argv.value(0) != QLatin1String("git") || !kGitReading.contains(argv.value(1)))
        return spec;
    QStringList settings = {QStringLiteral("core.fsmonitor=false"),
                            QStringLiteral("core.hooksPath=/dev/null"), QStringLiteral("core.pager=cat"),
                            QStringLiteral("protocol.allow=never")};
    // protocol.<name>.allow in the repository would beat protocol.allow: each one is named too.
    for (const char *protocol : {"ext", "file", "git", "http", "https", "ssh", "fd"})
        settings.append(QStringLiteral("protocol.%1.allow=never").arg(QLatin1String(protocol)));
    // A filter driver in the repository's configuration (a rule allowed the run anyway): emptied.
    const Git::RepositoryCheck repo = Git::inspectRepository(cwd, gitCeilings(ws));
    for (const QString &key : repo.riskyKeys) {
        const QStringList parts = key.split(QLatin1Char('.'));
        if (parts.size() < 3 || parts.first().compare(QLatin1String("filter"), Qt::CaseInsensitive) != 0)
            continue;
        const QString driver = QStringList(parts.mid(1, parts.size() - 2)).join(QLatin1Char('.'));
        for (const char *field : {"clean", "smudge", "process"})
            settings.append(QStringLiteral("filter.%1.%2=").arg(driver, QLatin1String(field)));
    }
    QStringList hardened = {QStringLiteral("git"), QStringLiteral("--no-pager"),
                            QStringLiteral("--no-optional-locks")};
    for (const QString &setting : settings)
        hardened << QStringLiteral("-c") << setting;
    hardened << argv.at(1);
    // A submodule is another repository with its own configuration: never entered.
    hardened << QStringLiteral("--ignore-submodules=all");
    if (argv.at(1) != QLatin1String("status"))
        hardened << QStringLiteral("--no-ext-diff") << QStringLiteral("--no-textconv");
    spec.argv = hardened + argv.mid(2);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &name : env.keys()) {
        if (name.startsWith(QLatin1String("GIT_")))
            env.remove(name); // GIT_DIR, GIT_WORK_TREE, GIT_EXTERNAL_DIFF, GIT_CONFIG_* ...
    }
    env.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    env.insert(QStringLiteral("GIT_CONFIG_GLOBAL"), QStringLiteral("/dev/null"));
    env.insert(QStringLiteral("GIT_CEILING_DIRECTORIES"), gitCeilings(ws).join(QLatin1Char(':')));
    env.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
    env.insert(QStringLiteral("GIT_NO_LAZY_FETCH"),
               QStringLiteral("1")); // git 2.44+; older: the switches above
    env.insert(QStringLiteral("GIT_PROTOCOL_FROM_USER"), QStringLiteral("0"));
    env.insert(QStringLiteral("GIT_PAGER"), QStringLiteral("cat"));
    env.insert(QStringLiteral("PAGER"), QStringLiteral("cat"));
    spec.environment = env;
    return spec;
}

} // namespace Countersign::ReadOnlyCommand
