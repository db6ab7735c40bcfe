#pragma once

#include "commandeffects.h"
#include "policy.h"

#include <nlohmann/json_fwd.hpp>

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign {

class Workspace;

// What the gate does by default with an agent's command line, file read or file write, and why:
// irreversibility times blast radius (docs/threat-model.md). In "standard" mode reads, the
// project's own build and test commands while the files that define them are as committed, writes
// inside the workspace roots and git that keeps history run with no card; deletions, discarded
// work, rewritten history, the network, installs, secrets, writes outside the roots or to protected
// files (start-up files, the agents' settings, .git/, CI), environment poisoning and code given
// inline ask. "strict" asks for everything that is not a read. What the reader cannot read asks,
// and no part of a line softens what another part decides.
class CommandJudge final
{
public:
    using Mode = GateMode;

    struct Judgement final
    {
        Verdict verdict = Verdict::Ask;
        QString why;              // one sentence, for the audit row and the card
        QStringList asks;         // each reason to ask, in words
        QStringList targets;      // the paths deleted, discarded or written outside the roots, first
        bool destructive = false; // something would be deleted, discarded or rewritten
        nlohmann::json toJson() const;
    };

    // ws may be null (no roots: nothing is inside them). home: what ~ stands for.
    CommandJudge(const Workspace *ws, Mode mode, QString home);

    Judgement line(const QString &command, const QString &cwd) const;
    Judgement argv(const QStringList &argv, const QString &cwd) const;
    Judgement read(const QString &absolutePath) const;
    Judgement write(const QString &absolutePath) const;

    // A file whose reading hands over a credential (~/.ssh, ~/.aws, .env, ...), by its path as
    // written or where it leads.
    bool isSecret(const QString &absolutePath) const;
    // A file whose change reaches past the project or the gate: shell start-up files, the agents'
    // and Countersign's own settings, .git/ internals, CI definitions.
    bool isProtected(const QString &absolutePath) const;
    // Most files a pattern is expanded to when it is judged; more asks.
    static constexpr int kMaxGlobMatches = 2000;
    // The system's temporary folders anyone may write ($TMPDIR, /tmp, /var/tmp); memory: and
    // /dev/shm, which holds no scratch file worth a quiet write (a program folder there asks).
    static QStringList temporaryFolders(bool memory);

    // While one is alive on a thread, the files the agent session being decided made itself (path
    // -> their SHA-256 as its last call left them): deleting one that still holds exactly that,
    // and that git does not keep, loses nothing anyone else wrote (the agent's own scratch file).
    class Scratch final
    {
    public:
        explicit Scratch(QHash<QString, QString> files);
        ~Scratch();
        Scratch(const Scratch &) = delete;
        Scratch &operator=(const Scratch &) = delete;
    };
    // While one is alive on a thread, the net is under the call being decided: what a quiet call
    // overwrites inside the roots is kept before it runs (the shell's undo, as the Edit tool's), so
    // an overwrite of work git does not keep loses nothing.
    class NetScope final
    {
    public:
        NetScope();
        ~NetScope();
        NetScope(const NetScope &) = delete;
        NetScope &operator=(const NetScope &) = delete;
    };

private:
    Judgement judge(const QList<Shell::Effect> &effects) const;
    void judgeEffect(const Shell::Effect &e, Judgement &j, QStringList &allowedBecause) const;
    QString readRefusal(const QString &path) const;
    QString writeRefusal(const QString &path) const;
    QString projectRefusal(const Shell::Effect &e, QString *unchanged) const;
    // One effect being judged (commandjudge.cpp), and the judging of each kind of effect.
    struct EffectCall;
    void judgeReads(EffectCall &call) const;
    void judgeWrites(EffectCall &call) const;
    void judgeDeletes(EffectCall &call) const;
    void judgeRuns(EffectCall &call) const;
    // For each path a project command or built code is given outside the roots: why it asks.
    QStringList namedOutside(const Shell::Effect &e) const;
    QString scriptRefusal(const QString &path) const;
    // A Python or shell script that would ask as a file the agent wrote: its code read and its
    // effects judged instead; false when it is not one this can read (then the script asks).
    bool readScript(const Shell::Effect &e, Judgement &j, QStringList &allowedBecause) const;
    QStringList expand(const QString &pattern, bool *complete) const;
    QString replaceRefusal(const QString &path) const;
    QString programFolderRefusal(const QString &folder) const;
    bool newTemporaryFile(const QString &written, const QString &resolved) const;
    // A file the session being decided made and that still holds what it left (Scratch).
    bool sessionScratch(const QString &path) const;
    bool netKept(const QString &resolved) const;
    // The regular files rm, unlink or rmdir removes at e.path (links not followed), at most bound;
    // none when it removes a link, a root, a protected file or more than bound files.
    std::optional<QStringList> removedFiles(const Shell::Effect &e, int bound) const;
    // rm of files inside the roots that git holds as committed and unchanged (at most 20).
    bool committedOnly(const Shell::Effect &e) const;
    // Whether another effect of the line being judged may change what is at path before a deletion
    // of it runs: a write or a deletion there or of a place not known, or a program that runs.
    bool changedInLine(const Shell::Effect &deletion) const;
    // rm of objects and bytecode git ignores and a compiler makes again (at most 2,000): how many.
    int compilerOutputsOnly(const Shell::Effect &e) const;
    // find's deletion of what is named *.pyc, *.class, __pycache__... under a folder of the roots
    // (Effect::Note::Outputs): how many compiled files git ignores it deletes; -1 when anything
    // else would go.
    int compiledUnder(const Shell::Effect &e) const;
    // git run in folder, judged as in the repository git takes it for: one whose configuration
    // nothing protects (a folder shaped like a repository, a .git file leading elsewhere in the
    // roots) asks, since its settings can make even git status run a program.
    QString repositoryRefusal(const QString &folder) const;
    // Writes in the same line that change what a project command or a script of it runs.
    QString sameLineRefusal(const QList<Shell::Effect> &effects) const;

    const Workspace *m_ws;
    Mode m_mode;
    QString m_home;
    mutable int m_scriptDepth = 0;                        // scripts read within scripts, bounded
    mutable QSet<QString> m_writtenTwice;                 // paths two effects of the line being judged write
    mutable const QList<Shell::Effect> *m_line = nullptr; // the effects of the line being judged
};

} // namespace Countersign
