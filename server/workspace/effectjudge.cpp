// What each kind of effect adds to the judgement of a line (CommandJudge::judgeEffect): reads,
// writes, deletions, what runs, and the rest, each asking with the code that made it quoted.
#include "commandjudge.h"

#include "pathrules.h"
#include "workspace.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace Countersign {

using Shell::Effect;

// One effect being judged, and what it adds to the line's judgement: a reason to ask (after the
// code that made it, Effect::source, so that the card quotes it), a target, a reason it may run.
struct CommandJudge::EffectCall final
{
    const Effect &e;
    Judgement &j;
    QStringList &allowedBecause;

    void ask(const QString &reason)
    {
        const QString why = e.source.isEmpty() || reason.startsWith(e.source)
                                ? reason
                                : QStringLiteral("%1: %2").arg(e.source, reason);
        if (!j.asks.contains(why))
            j.asks.append(why);
    }
    void target(const QString &path)
    {
        if (!path.isEmpty() && !j.targets.contains(path))
            j.targets.append(path);
    }
};

void CommandJudge::judgeReads(EffectCall &call) const
{
    const Effect &e = call.e;
    if (e.note == Effect::Note::Names)
        return; // a listing: names, not what the files hold, wherever it is
    if (e.path.isEmpty() && e.pathKnown)
        return; // prints; reads nothing named
    if (!e.pathKnown) {
        call.ask(QStringLiteral("%1: a path not known before the line runs").arg(e.what));
        return;
    }
    QStringList paths = {e.path};
    if (e.glob) {
        bool complete = true;
        paths = expand(e.path, &complete);
        if (!complete && (!m_ws || !m_ws->confines(QFileInfo(e.path).absolutePath())))
            call.ask(QStringLiteral("%1: a pattern outside the workspace roots").arg(e.what));
    }
    for (const QString &p : paths) {
        if (const QString why = readRefusal(p); !why.isEmpty())
            call.ask(why);
    }
}

void CommandJudge::judgeWrites(EffectCall &call) const
{
    const Effect &e = call.e;
    Judgement &j = call.j;
    QStringList &allowedBecause = call.allowedBecause;
    if (m_mode == Mode::Strict)
        call.ask(QStringLiteral("%1 (strict mode asks for every change)").arg(e.what));
    if (!e.pathKnown || e.path.isEmpty()) {
        call.ask(QStringLiteral("%1: where it writes is not known before the line runs").arg(e.what));
        return;
    }
    // mkdir of a folder that is already there (not a link to one) changes nothing.
    if (const QFileInfo made(QDir::cleanPath(e.path));
        m_mode == Mode::Standard && !e.glob && !e.argv.isEmpty() &&
        QFileInfo(e.argv.first()).fileName() == QLatin1String("mkdir") && made.isDir() && !made.isSymLink()) {
        allowedBecause.append(QStringLiteral("%1, a folder that is already there").arg(e.what));
        return;
    }
    QStringList paths = {e.path};
    if (e.glob) { // what it matches now, and the folder the pattern stays in
        bool complete = true;
        paths = expand(e.path, &complete);
        static const QRegularExpression wild(QStringLiteral("[*?\\[{]"));
        QString folder = e.path.left(e.path.indexOf(wild));
        paths.append(folder.left(folder.lastIndexOf(QLatin1Char('/'))));
        if (!complete)
            call.ask(QStringLiteral("%1: a pattern that matches more than Countersign reads").arg(e.what));
    }
    for (const QString &path : paths) {
        if (const QString why = writeRefusal(path); !why.isEmpty()) {
            call.ask(why);
            call.target(path);
        } else if (e.replaces && m_mode == Mode::Standard) {
            const QString resolved = PathRules::resolved(path);
            if (const QString lost = replaceRefusal(resolved); !lost.isEmpty()) {
                // Under the net, what the file held is kept before the call runs (the Edit
                // tool's undo, for the shell): work git does not keep is not lost. An ignored
                // file that is work (a state, a database) still asks.
                // (ln over a file leaves a link, which the net names with no undo.)
                const bool linking =
                    !e.argv.isEmpty() && QFileInfo(e.argv.first()).fileName() == QLatin1String("ln");
                if (netKept(resolved) && !linking && !lost.contains(QLatin1String("git ignores"))) {
                    allowedBecause.append(QStringLiteral("overwrites %1, and the net keeps what it held")
                                              .arg(PathRules::shortPath(resolved, m_home)));
                    continue;
                }
                j.destructive = true;
                call.ask(lost);
                call.target(path);
            }
        }
    }
    if (!allowedBecause.contains(QStringLiteral("writes inside the workspace roots")))
        allowedBecause.append(QStringLiteral("writes inside the workspace roots"));
}

void CommandJudge::judgeDeletes(EffectCall &call) const
{
    const Effect &e = call.e;
    Judgement &j = call.j;
    QStringList &allowedBecause = call.allowedBecause;
    if (const int compiled = e.note == Effect::Note::Outputs && e.pathKnown ? compiledUnder(e) : -1;
        compiled >= 0) {
        allowedBecause.append(QStringLiteral("%1: %2 compiled file%3 git ignores, which a build makes again")
                                  .arg(e.what)
                                  .arg(compiled)
                                  .arg(compiled == 1 ? QString() : QStringLiteral("s")));
        return;
    }
    if (e.pathKnown && !e.glob && committedOnly(e)) {
        allowedBecause.append(QStringLiteral("%1, which git keeps as committed").arg(e.what));
        return;
    }
    if (const int outputs = e.pathKnown && !e.glob ? compilerOutputsOnly(e) : 0; outputs > 0) {
        allowedBecause.append(QStringLiteral("%1: %2 compiled file%3 git ignores, which a build makes again")
                                  .arg(e.what)
                                  .arg(outputs)
                                  .arg(outputs > 1 ? QStringLiteral("s") : QString()));
        return;
    }
    if (e.pathKnown && !e.glob && sessionScratch(e.path)) {
        allowedBecause.append(QStringLiteral("%1, a file this agent session made and nobody changed since")
                                  .arg(e.what.isEmpty() ? QStringLiteral("deletes") : e.what));
        return;
    }
    j.destructive = true;
    call.ask(e.what.isEmpty() ? QStringLiteral("deletes files") : e.what);
    call.target(e.path);
}

void CommandJudge::judgeRuns(EffectCall &call) const
{
    const Effect &e = call.e;
    Judgement &j = call.j;
    QStringList &allowedBecause = call.allowedBecause;
    if (m_mode == Mode::Strict) {
        call.ask(QStringLiteral("%1 (strict mode asks for everything that is not a read)").arg(e.what));
        return;
    }
    switch (e.code) {
    case Effect::Code::Built: {
        // Classes the agent compiled in the roots run as the project's tests would; a place
        // it loads from outside them (but the system's Java) is code from elsewhere.
        const QString p = e.pathKnown ? PathRules::resolved(e.path) : QString();
        static const QStringList system = {QStringLiteral("/usr/share/java"), QStringLiteral("/usr/lib/jvm")};
        const bool systems = std::any_of(system.cbegin(), system.cend(),
                                         [&p](const QString &s) { return PathRules::under(p, s); });
        QStringList whys = namedOutside(e);
        if (p.isEmpty())
            whys.append(QStringLiteral("%1: a place only known when the line runs").arg(e.what));
        else if (!systems && (!m_ws || !m_ws->confines(p)))
            whys.append(QStringLiteral("%1: %2 is outside the workspace roots")
                            .arg(e.what, PathRules::shortPath(p, m_home)));
        else if (isProtected(p))
            whys.append(
                QStringLiteral("%1: %2 is a protected file").arg(e.what, PathRules::shortPath(p, m_home)));
        for (const QString &why : whys)
            call.ask(why);
        if (whys.isEmpty())
            allowedBecause.append(
                QStringLiteral("%1, code built in the workspace, run as its tests would be").arg(e.what));
        return;
    }
    case Effect::Code::Project: {
        for (const QString &why : namedOutside(e))
            call.ask(why);
        QString unchanged;
        if (const QString why = projectRefusal(e, &unchanged); !why.isEmpty())
            call.ask(why);
        else
            allowedBecause.append(QStringLiteral("%1; %2").arg(e.what, unchanged));
        return;
    }
    case Effect::Code::Script:
        if (const QString why = scriptRefusal(e.pathKnown ? e.path : QString()); why.isEmpty())
            allowedBecause.append(QStringLiteral("%1, unchanged since the last commit").arg(e.what));
        else if (!readScript(e, j, allowedBecause))
            call.ask(why);
        return;
    case Effect::Code::Read:
        allowedBecause.append(e.what);
        return;
    case Effect::Code::Inline:
    case Effect::Code::Stdin:
    case Effect::Code::None:
        call.ask(e.what);
        return;
    }
}

void CommandJudge::judgeEffect(const Effect &e, Judgement &j, QStringList &allowedBecause) const
{
    EffectCall call{e, j, allowedBecause};
    switch (e.kind) {
    case Effect::Kind::Reads:
        return judgeReads(call);
    case Effect::Kind::Writes:
        return judgeWrites(call);
    case Effect::Kind::Deletes:
        return judgeDeletes(call);
    case Effect::Kind::History:
        j.destructive = true;
        call.ask(e.what);
        call.target(e.path);
        return;
    case Effect::Kind::Environment:
        // A folder put before the system's programs (PATH, JAVA_HOME): one the agent may have
        // filled with no card shadows them; the system's own and the home folder's do not.
        if (!e.path.isEmpty()) {
            const bool modules = e.definitions.contains(QStringLiteral("PYTHONPATH")) ||
                                 e.definitions.contains(QStringLiteral("NODE_PATH"));
            const bool project = modules && m_ws && m_ws->confines(PathRules::resolved(e.path));
            if (const QString why = project ? QString() : programFolderRefusal(e.path); !why.isEmpty())
                call.ask(QStringLiteral("%1: %2").arg(e.what, why));
            return;
        }
        call.ask(e.what);
        return;
    case Effect::Kind::Network:
    case Effect::Kind::Installs:
    case Effect::Kind::Secret:
    case Effect::Kind::Privilege:
    case Effect::Kind::Unknown:
        call.ask(e.what);
        return;
    case Effect::Kind::Runs:
        return judgeRuns(call);
    }
}

} // namespace Countersign
