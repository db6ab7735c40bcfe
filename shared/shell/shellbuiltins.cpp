#include "shellbuiltins.h"

#include "argtools.h"

#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::ShellBuiltins {

using namespace ArgTools;

namespace {

// Names given to read, printf -v, mapfile: the variables they set.
void readVariableSetter(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const QList<Arg> rest = args.mid(1);
    for (qsizetype k = 1; k < rest.size() + 1; ++k) {
        const QString t = args.at(k).text;
        const bool named =
            program != QLatin1String("printf") || (k > 1 && args.at(k - 1).text == QLatin1String("-v"));
        if (named && !t.startsWith(QLatin1Char('-')) &&
            CommandCatalog::poisons(t.section(QLatin1Char('['), 0, 0)))
            c.add(Effect::Kind::Environment,
                  QStringLiteral("%1 sets %2, which changes what programs run or load").arg(program, t));
        if (t.startsWith(QLatin1String("-v")) && t.size() > 2 && CommandCatalog::poisons(t.mid(2)))
            c.add(Effect::Kind::Environment, QStringLiteral("%1 sets %2").arg(program, t.mid(2)));
    }
    if (program == QLatin1String("mapfile") || program == QLatin1String("readarray") ||
        program == QLatin1String("read")) {
        for (qsizetype k = 1; k < args.size(); ++k) {
            if (args.at(k).text == QLatin1String("-u") || args.at(k).text.startsWith(QLatin1String("-u")))
                c.add(Effect::Kind::Reads, QStringLiteral("%1 reads a descriptor").arg(program));
        }
    }
    c.add(Effect::Kind::Reads, QStringLiteral("%1 sets variables").arg(program));
}

void readDate(CommandCatalog &c, const QList<Arg> &args)
{
    for (qsizetype k = 1; k < args.size(); ++k) {
        const QString t = args.at(k).text;
        if ((t == QLatin1String("-f") || t == QLatin1String("--file") || t == QLatin1String("-r") ||
             t == QLatin1String("--reference")) &&
            k + 1 < args.size())
            c.addPath(Effect::Kind::Reads, QStringLiteral("date reads %1").arg(args.at(k + 1).text),
                      args.at(k + 1));
        else if ((t.startsWith(QLatin1String("-f")) || t.startsWith(QLatin1String("-r"))) && t.size() > 2)
            c.addPath(Effect::Kind::Reads, QStringLiteral("date reads %1").arg(t.mid(2)),
                      Arg{t.mid(2), args.at(k).known, false, {}});
        else if (t.startsWith(QLatin1String("--file=")) || t.startsWith(QLatin1String("--reference=")))
            c.addPath(Effect::Kind::Reads, QStringLiteral("date reads a file"),
                      Arg{t.section(QLatin1Char('='), 1), args.at(k).known, false, {}});
        else if (t == QLatin1String("-s") || t.startsWith(QLatin1String("--set")))
            c.add(Effect::Kind::Privilege, QStringLiteral("date -s sets the clock"));
    }
    c.add(Effect::Kind::Reads, QStringLiteral("date prints"));
}

void readPs(CommandCatalog &c, const QList<Arg> &rest)
{
    // BSD-style "e" (ps auxe, ps eww) prints each process's environment.
    for (const Arg &a : rest) {
        if ((!a.text.startsWith(QLatin1Char('-')) && a.text.contains(QLatin1Char('e'))) ||
            a.text.contains(QLatin1String("environ")) || a.text.startsWith(QLatin1String("-o")) ||
            a.text == QLatin1String("-O")) {
            c.add(Effect::Kind::Secret,
                  QStringLiteral("ps %1 can print other programs' environments").arg(a.text));
            return;
        }
    }
    c.add(Effect::Kind::Reads, QStringLiteral("ps lists processes"));
}

void readJq(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const QList<Arg> rest = args.mid(1);
    for (const Arg &a : rest) {
        if (a.text.contains(QLatin1String("env")) || a.text.contains(QLatin1String("ENV")) ||
            a.text.contains(QLatin1String("input_filename")) ||
            a.text.startsWith(QLatin1String("--rawfile")) ||
            a.text.startsWith(QLatin1String("--slurpfile")) || a.text.startsWith(QLatin1String("-L")) ||
            a.text == QLatin1String("-i") || a.text.startsWith(QLatin1String("--from-file")) ||
            a.text == QLatin1String("-f")) {
            c.add(Effect::Kind::Unknown,
                  QStringLiteral("%1 %2 reads the environment, other files or modules").arg(program, a.text));
            return;
        }
    }
    c.readsOperands(args);
}

void readPrintenv(CommandCatalog &c, const QList<Arg> &rest)
{
    for (const Arg &a : rest) {
        if (!a.known || CommandCatalog::secretName(a.text))
            c.add(Effect::Kind::Secret, QStringLiteral("prints the secret variable %1").arg(a.text));
    }
    c.add(Effect::Kind::Reads, QStringLiteral("prints variables"));
}

void readDeclaration(CommandCatalog &c, const QString &program, const QList<Arg> &rest)
{
    for (const Arg &a : rest) {
        if (CommandCatalog::isOption(a)) {
            if (a.text.contains(QLatin1Char('n')) || a.text.contains(QLatin1Char('f')))
                c.unknown(
                    QStringLiteral("%1 %2 makes a name another variable or a function").arg(program, a.text));
            continue;
        }
        const QString name = a.text.section(QLatin1Char('='), 0, 0);
        if (CommandCatalog::secretName(name) && !a.text.contains(QLatin1Char('=')))
            c.add(Effect::Kind::Secret,
                  QStringLiteral("%1 prints the secret variable %2").arg(program, name));
        static const QRegularExpression plainName(
            QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\[[^]]*\\])?\\+?$"));
        if (!plainName.match(name).hasMatch())
            c.unknown(QStringLiteral("%1 of a name that expands (%2)").arg(program, name));
        else if (a.text.contains(QLatin1Char('=')) || CommandCatalog::poisons(name))
            for (Effect e : CommandCatalog::settingEffects(name, a.text.section(QLatin1Char('='), 1),
                                                           c.how().cwd, c.home()))
                c.append(std::move(e));
    }
    c.add(Effect::Kind::Reads, QStringLiteral("sets variables"));
}

void readShopt(CommandCatalog &c, const QList<Arg> &rest)
{
    // Options that change what the line's words mean or where a cd lasts: asked for.
    static const QStringList harmless =
        words({"-q", "-p", "nullglob", "failglob", "globstar", "nocaseglob", "nocasematch", "checkwinsize",
               "histappend", "-s", "-u", "-o"});
    for (const Arg &a : rest) {
        if (!harmless.contains(a.text)) {
            c.add(Effect::Kind::Environment,
                  QStringLiteral("shopt %1 changes how the shell reads what follows").arg(a.text));
            return;
        }
    }
    c.add(Effect::Kind::Reads, QStringLiteral("shopt"));
}

void readSort(CommandCatalog &c, const QList<Arg> &args)
{
    const QList<Arg> rest = args.mid(1);
    for (qsizetype k = 0; k < rest.size(); ++k) {
        const Arg &a = rest.at(k);
        const qsizetype o = CommandCatalog::isOption(a) && !a.text.startsWith(QLatin1String("--"))
                                ? a.text.indexOf(QLatin1Char('o'))
                                : -1;
        if (o > 0 && o + 1 == a.text.size() && k + 1 < rest.size())
            c.addReplace(QStringLiteral("sort writes %1").arg(rest.at(k + 1).text), rest.at(k + 1));
        else if (o > 0)
            c.addReplace(QStringLiteral("sort writes its output"),
                         Arg{a.text.mid(o + 1), a.known, a.glob, {}});
        else if (a.text.startsWith(QLatin1String("--o")))
            c.addReplace(QStringLiteral("sort writes its output"),
                         a.text.contains(QLatin1Char('='))
                             ? Arg{a.text.section(QLatin1Char('='), 1), a.known, a.glob, {}}
                             : rest.value(k + 1));
        else if (a.text.startsWith(QLatin1String("--com")) || a.text.startsWith(QLatin1String("--files0")))
            c.unknown(QStringLiteral("sort --compress-program runs another program"));
    }
    c.readsOperands(args, words({"-o", "-k", "-t", "-S", "-T", "--key", "--field-separator"}));
}

void readUniq(CommandCatalog &c, const QList<Arg> &rest)
{
    QList<Arg> operands;
    for (const Arg &a : rest) {
        if (!CommandCatalog::isOption(a))
            operands.append(a);
    }
    if (!operands.isEmpty())
        c.addPath(Effect::Kind::Reads, QStringLiteral("uniq reads %1").arg(operands.first().text),
                  operands.first());
    if (operands.size() >= 2)
        c.addPath(Effect::Kind::Writes, QStringLiteral("uniq writes %1").arg(operands.at(1).text),
                  operands.at(1));
    c.add(Effect::Kind::Reads, QStringLiteral("uniq prints"));
}

void readTee(CommandCatalog &c, const QList<Arg> &rest)
{
    const bool appends = std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
        return a.text == QLatin1String("--append") ||
               (CommandCatalog::isOption(a) && !a.text.startsWith(QLatin1String("--")) &&
                a.text.contains(QLatin1Char('a')));
    });
    for (const Arg &a : rest) {
        if (CommandCatalog::isOption(a))
            continue;
        if (appends)
            c.addPath(Effect::Kind::Writes, QStringLiteral("tee appends to %1").arg(a.text), a);
        else
            c.addReplace(QStringLiteral("tee writes %1").arg(a.text), a);
    }
    c.add(Effect::Kind::Reads, QStringLiteral("tee prints"));
}

} // namespace

// The shell's own commands and the few readers that write or dump the environment.
bool read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const QList<Arg> rest = args.mid(1);
    const bool onlyOptions =
        std::all_of(rest.cbegin(), rest.cend(), [](const Arg &a) { return CommandCatalog::isOption(a); });
    static const QStringList dumps =
        words({"env", "printenv", "export", "declare", "set", "typeset", "readonly", "local"});
    if (dumps.contains(program) && onlyOptions && !(program == QLatin1String("set") && !rest.isEmpty())) {
        Effect dump;
        dump.kind = Effect::Kind::Secret;
        dump.note = Effect::Note::Dump;
        dump.what = QStringLiteral("prints every environment variable (tokens and keys among them)");
        c.append(std::move(dump));
        return true;
    }
    if (program == QLatin1String("read") || program == QLatin1String("printf") ||
        program == QLatin1String("mapfile") || program == QLatin1String("readarray") ||
        program == QLatin1String("getopts")) {
        readVariableSetter(c, program, args);
        return true;
    }
    if (program == QLatin1String("hash") && std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
            return a.text.startsWith(QLatin1String("-p")) ||
                   (a.text.contains(QLatin1Char('p')) && CommandCatalog::isOption(a));
        })) {
        c.add(Effect::Kind::Environment, QStringLiteral("hash -p changes what a name runs"));
        return true;
    }
    if (program == QLatin1String("date")) {
        readDate(c, args);
        return true;
    }
    if (program == QLatin1String("ps")) {
        readPs(c, rest);
        return true;
    }
    if (program == QLatin1String("jq") || program == QLatin1String("yq") ||
        program == QLatin1String("gojq")) {
        readJq(c, program, args);
        return true;
    }
    if (program == QLatin1String("printenv")) {
        readPrintenv(c, rest);
        return true;
    }
    if (program == QLatin1String("history")) {
        c.add(Effect::Kind::Secret, QStringLiteral("reads the shell's history"));
        return true;
    }
    if (program == QLatin1String("export") || program == QLatin1String("declare") ||
        program == QLatin1String("local") || program == QLatin1String("typeset") ||
        program == QLatin1String("readonly")) {
        readDeclaration(c, program, rest);
        return true;
    }
    if (program == QLatin1String("umask") && !rest.isEmpty() &&
        !rest.first().text.startsWith(QLatin1Char('-'))) {
        c.add(Effect::Kind::Environment,
              QStringLiteral("umask %1 changes who may read what is written next").arg(rest.first().text));
        return true;
    }
    if (program == QLatin1String("shopt")) {
        readShopt(c, rest);
        return true;
    }
    if (program == QLatin1String("jobs") &&
        std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) { return a.text == QLatin1String("-x"); })) {
        c.runInner(rest.mid(1));
        return true;
    }
    if (program == QLatin1String("let")) {
        c.unknown(QStringLiteral("let evaluates arithmetic whose names may hold code"));
        return true;
    }
    if ((program == QLatin1String("alias") || program == QLatin1String("enable")) && !rest.isEmpty()) {
        c.add(Effect::Kind::Environment, QStringLiteral("%1 changes what a later name runs").arg(program));
        return true;
    }
    if (program == QLatin1String("sort")) {
        readSort(c, args);
        return true;
    }
    if (program == QLatin1String("uniq")) {
        readUniq(c, rest);
        return true;
    }
    if (program == QLatin1String("tee")) {
        readTee(c, rest);
        return true;
    }
    if (program == QLatin1String("source") || program == QLatin1String(".")) {
        if (rest.isEmpty()) {
            c.unknown(QStringLiteral("%1 with no file").arg(program));
        } else {
            const QString path = CommandCatalog::absolute(rest.first(), c.how().cwd);
            c.script(QStringLiteral("runs the shell code in %1 (%2)").arg(rest.first().text, program), path,
                     !path.isEmpty());
        }
        return true;
    }
    static const QStringList codeRunners =
        words({"ldd",     "dc",        "trap",  "crontab", "at",       "batch",   "systemctl",
               "service", "launchctl", "mount", "umount",  "chroot",   "nsenter", "unshare",
               "kill",    "killall",   "pkill", "reboot",  "shutdown", "halt"});
    if (codeRunners.contains(program)) {
        c.unknown(QStringLiteral("%1 runs, schedules or stops programs").arg(program));
        return true;
    }
    return false;
}

QString environmentFilter(const Command &c)
{
    if (c.kind != Command::Kind::Simple || !c.redirections.isEmpty() || !c.assignments.isEmpty() ||
        !c.inner.isEmpty() || c.words.size() < 2 ||
        !std::all_of(c.words.cbegin(), c.words.cend(), [](const Word &w) { return w.literal && !w.glob; }))
        return {};
    static const QStringList greps = {QStringLiteral("grep"), QStringLiteral("egrep"),
                                      QStringLiteral("fgrep")};
    if (!greps.contains(c.words.first().text))
        return {};
    // Options that only change how lines match or are shown (-i, -w, -E, -F, -n, -c, -x).
    static const QRegularExpression shown(QStringLiteral("^-[iwEFncxs]+$"));
    QString word;
    for (const Word &w : c.words.mid(1)) {
        if (shown.match(w.text).hasMatch() || w.text == QLatin1String("--ignore-case"))
            continue;
        if (w.text.startsWith(QLatin1Char('-')) || !word.isEmpty())
            return {}; // -v, -e, -f, a file: more than the lines that hold one word
        word = w.text;
    }
    // Only words that name where tools and the shell look (an agent picking a piece of a secret's
    // name, ECRE or ASSWOR, would print its value; so would "node" or "cargo", which name tokens
    // too): a secret whose name or value holds one of these is printed too.
    static const QStringList tools = {QStringLiteral("java"),      QStringLiteral("jdk"),
                                      QStringLiteral("jre"),       QStringLiteral("java_home"),
                                      QStringLiteral("path"),      QStringLiteral("home"),
                                      QStringLiteral("pwd"),       QStringLiteral("shell"),
                                      QStringLiteral("term"),      QStringLiteral("lang"),
                                      QStringLiteral("lc_all"),    QStringLiteral("locale"),
                                      QStringLiteral("editor"),    QStringLiteral("display"),
                                      QStringLiteral("xdg"),       QStringLiteral("virtual_env"),
                                      QStringLiteral("venv"),      QStringLiteral("pythonpath"),
                                      QStringLiteral("node_path"), QStringLiteral("ld_library_path"),
                                      QStringLiteral("pyenv"),     QStringLiteral("nvm"),
                                      QStringLiteral("rbenv"),     QStringLiteral("rustup"),
                                      QStringLiteral("goroot"),    QStringLiteral("gopath")};
    if (!tools.contains(word.toLower()))
        return {};
    return word;
}

} // namespace Countersign::Shell::ShellBuiltins
