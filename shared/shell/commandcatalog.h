#pragma once

#include "commandeffects.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <utility>

namespace Countersign::Shell {

// One argument as the program will get it, as far as the reader knows it.
struct Arg final
{
    QString text;
    bool known = true; // false: it expands to something not known before the line runs
    bool glob = false; // a pattern the shell expands
    QStringList variables;
};

// Where a program's standard input comes from.
enum class Stdin { None, Pipe, File, Text };

// How a command is run: its folder, what it reads on standard input, the variables set in front.
struct Invocation final
{
    QString cwd; // empty: not known
    Stdin stdinKind = Stdin::None;
    QString stdinPath;
    QString stdinText;         // a here-document or here-string
    bool stdinDynamic = false; // its text is only known when the line runs
    // Stdin::Pipe from a part that prints paths (find DIR, git ls-files): the folders they are under.
    QStringList stdinPaths;
    QStringList assigned;
    QStringList argv; // the command as read, wrappers taken off (set by CommandCatalog)
    int depth = 0;
    QString source; // the code that runs it (Effect::source), for every effect it has
};

// What each program does with its arguments: the programs an agent's shell runs every day (reads,
// writes, deletions, network, installs, interpreters, build and test tools), the wrappers that run
// another command (sudo, env, timeout, xargs, npx -c, ...) and the shells that read a line of
// their own (sh -c, eval). A program it does not know is an Unknown effect: it asks.
class CommandCatalog final
{
public:
    using ReadLine =
        std::function<void(const QString &line, const QString &cwd, int depth, const QString &source)>;
    using RunArgs = std::function<void(const QList<Arg> &args, const Invocation &how)>;

    CommandCatalog(Invocation how, QString home, ReadLine readLine, RunArgs runArgs);

    QList<Effect> effectsOf(QList<Arg> args);

    // An argument as an absolute path (cwd and ~ applied, cleaned); empty when it cannot be known.
    static QString absolute(const Arg &arg, const QString &cwd);

    // For the program readers (git): record one effect of the command being read.
    void add(Effect::Kind kind, const QString &what, const QString &path = {}, bool known = true,
             bool glob = false);
    void addPath(Effect::Kind kind, const QString &what, const Arg &arg);
    // The names under arg, not what the files hold (ls, tree, find's start folders).
    void addListing(const QString &what, const Arg &arg)
    {
        addPath(Effect::Kind::Reads, what, arg);
        m_effects.last().note = Effect::Note::Names;
    }
    // A file read whose content decides what the command does (a patch): a write to it in the
    // same line asks (Effect::definitions names it).
    void addDefinition(const QString &what, const Arg &arg)
    {
        addPath(Effect::Kind::Reads, what, arg);
        m_effects.last().definitions = {m_effects.last().path};
    }
    // The last effect deletes only what under its path is named name (Effect::Note::Outputs).
    void setLastOutputs(const QString &name)
    {
        m_effects.last().note = Effect::Note::Outputs;
        m_effects.last().definitions = {name};
    }
    // A write that replaces what the file held (cp onto it, tee, sed -i, -o FILE).
    void addReplace(const QString &what, const Arg &arg);
    void project(const QString &what, const QStringList &definitions);
    // A file run as a program or by an interpreter (Code::Script); known: its path is known now.
    // source: the code that runs it (Effect::source), when code does.
    void script(const QString &what, const QString &path, bool known, const QString &source = {});
    // An effect made by hand: its folder and argv are the command's when it names none.
    void append(Effect e);
    void unknown(const QString &what) { add(Effect::Kind::Unknown, what); }
    // The operands of a reading program (options skipped; the values of optionsWithValue too).
    void readsOperands(const QList<Arg> &args, const QStringList &optionsWithValue = {});
    // A command another one runs (xargs, find -exec, timeout): read as a command of its own;
    // argsFromStdin: more arguments come from standard input (xargs), not known.
    void runInner(const QList<Arg> &args, bool argsFromStdin = false);
    // A line another one runs (sh -c, eval, watch): read as a line of its own, in cwd; source:
    // the code that runs it (Effect::source), or the source of this command.
    void readLine(const QString &line, const QString &cwd, const QString &source = {});

    // Names that change what a later program runs or loads, set in front of it or exported.
    static bool poisons(const QString &name);
    // What setting name to value (as written: "$PATH:/usr/local/go/bin") changes for what runs
    // after it: PATH and JAVA_HOME name the folders programs are found in, each one put before the
    // system's an Environment effect with that folder for the judge (appended ones shadow no
    // program); another poison, an Environment effect; anything else, none.
    static QList<Effect> settingEffects(const QString &name, const QString &value, const QString &cwd,
                                        const QString &home);
    // An environment variable's name that says it holds a secret.
    static bool secretName(const QString &name);
    static bool isOption(const Arg &a);
    const Invocation &how() const { return m_how; }
    // What was recorded by hand (add, append, ...) since the last effectsOf.
    QList<Effect> takeEffects() { return std::exchange(m_effects, {}); }
    void setCwd(const QString &cwd) { m_how.cwd = cwd; }
    const QString &home() const { return m_home; }

    // Runs args as a command of its own, with how (a wrapper's command, in the wrapper's folder).
    void run(const QList<Arg> &args, const Invocation &how) { m_runArgs(args, how); }

private:
    void secretVariables(const QList<Arg> &args);
    // A program no reader knows: a manual, a question for its help or version, a known command
    // glued to punctuation that is no program here, or else an Unknown effect.
    void otherProgram(const QString &program, const QList<Arg> &args);

    Invocation m_how;
    QString m_home;
    ReadLine m_readLine;
    RunArgs m_runArgs;
    QList<Effect> m_effects;
};

} // namespace Countersign::Shell
