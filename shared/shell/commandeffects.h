#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace Countersign::Shell {

class CommandCatalog;

// One thing a command line would do, as the reader understands it. Paths are absolute (the
// folder, earlier cd's and ~ applied), as written otherwise: links are followed by whoever judges.
struct Effect final
{
    enum class Kind {
        Reads,       // path read (a file or a folder's listing)
        Writes,      // path created or changed (inside a git work tree, git keeps what it had committed)
        Deletes,     // what is at path is deleted, discarded or overwritten past what git keeps
        Network,     // something leaves the machine (host, when known, in path)
        Runs,        // code runs: see Code
        Installs,    // a package is fetched and installed (and its install scripts run)
        Secret,      // a secret is read: an environment dump, a secret variable
        History,     // git history is rewritten or dropped
        Environment, // what later programs run is changed (LD_PRELOAD=, PATH=, alias, git -c)
        Privilege,   // runs as another user (sudo, su, doas)
        Unknown,     // the reader cannot tell what this part does
    };
    // What runs, for Kind::Runs.
    enum class Code {
        None,
        Project, // the project's own build, test, lint or format command: definitions say what runs
        Script,  // a file run as a program or by an interpreter (path)
        Inline,  // code given on the command line (python -c, node -e)
        Stdin,   // code read from a pipe (curl ... | sh)
        Read,    // code Countersign read (python -c, a script): what it does is in the effects beside it
        Built,   // code compiled from the workspace, loaded from path (java -cp out Main: a class folder
                 // or jar); trusted as the project's tests are, when it loads only from the roots
    };

    Kind kind = Kind::Unknown;
    Code code = Code::None;
    QString path;          // absolute; the host for Network; empty when none
    bool pathKnown = true; // false: it expands (a variable, a substitution) and is not known yet
    bool glob = false;     // path is a pattern (*, ?, [...], {a,b})
    bool replaces =
        false; // Writes: an existing file's content is replaced (>, cp onto it, sed -i), not added to
    QStringList definitions; // Code::Project: the files that define what runs (names, looked up from cwd)
    QString cwd;             // the folder the command runs in (empty: not known)
    QStringList argv;        // the command as read (wrappers taken off), for the card and the plans
    QString what;            // in words, for the card: "deletes build (rm -rf)"
    // Reads: Names, only the names under path (a listing), not what the files hold; NoProgram, a
    // word the shell will refuse as no program on this machine (cd.., find.). Secret: Dump, every
    // environment variable printed (a filter after it in the pipeline may narrow what it prints).
    // Deletes: Outputs, what under path has the name in definitions (find -name '*.pyc' -delete),
    // which the judge counts as compiled output or not.
    enum class Note { None, Names, NoProgram, Dump, Outputs };
    Note note = Note::None;
    // Where in code the agent runs this comes from, for the card: "python3 -c, line 3
    // (shutil.rmtree('build'))"; a command a subprocess call holds carries its call's. Empty: the line.
    QString source;
};

// What a command line does: each simple command, in order, with wrappers taken off (sudo, env,
// timeout, nice, xargs, npx -c, ...), nested shells read (sh -c, bash -lc, eval, a here-document
// piped into a shell), cd followed, and every redirection a read or a write.
class CommandEffects final
{
public:
    struct Context final
    {
        QString cwd;  // absolute; empty when not known
        QString home; // the home folder ~ and $HOME stand for
    };

    static QList<Effect> ofLine(const QString &line, const Context &context);
    // An argv that is run without a shell (run_command): the same effects, no parsing.
    static QList<Effect> ofArgv(const QStringList &argv, const Context &context);
    // A Python script's code (PythonCode), run in context.cwd; origin names it for the card.
    // importFolder: where its own modules are (a script's folder; empty: context.cwd).
    static QList<Effect> ofPython(const QString &code, const QString &origin, const Context &context,
                                  const QString &importFolder = {});
    // A JavaScript file's code (JavaScriptCode, as a CommonJS module of moduleFolder), run in
    // context.cwd; origin names it for the card.
    static QList<Effect> ofJavaScript(const QString &code, const QString &origin, const Context &context,
                                      const QString &moduleFolder);

    static QString kindName(Effect::Kind kind);
    // A reader of code of one language (PythonCode::read, JavaScriptCode::read).
    using CodeReader = void (*)(CommandCatalog &catalog, const QString &code, const QString &origin,
                                const QString &folder);

private:
    static QList<Effect> read(const QString &line, const Context &context);
    // Code of one language read by its reader (PythonCode::read, JavaScriptCode::read), run in
    // context.cwd; folder: its modules' folder (the reader's own default when empty).
    static QList<Effect> readCode(CodeReader reader, const QString &code, const QString &origin,
                                  const Context &context, const QString &folder);

public:
    // While one is alive on a thread, a line (or Python code) read once in a context is not read
    // again there: the effects of one call's decision, asked for by its policy, its plan and its
    // undo list within one synchronous step. Nested memos share the outermost one's.
    class Memo final
    {
    public:
        Memo();
        ~Memo();
        Memo(const Memo &) = delete;
        Memo &operator=(const Memo &) = delete;
    };
};

} // namespace Countersign::Shell
