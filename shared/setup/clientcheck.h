#pragma once

#include "hookinstaller.h"

#include <QString>
#include <QStringList>

namespace Countersign {

// Whether an agent on this machine will really pass its calls through Countersign, as far as its
// own files and programs can tell (`countersign setup --check`, `countersign doctor CLIENT`):
//   - its program on PATH and the version it reports;
//   - Countersign's hooks (or plugin) and MCP server in its own configuration files;
//   - what the agent itself must still allow: Codex runs no hook whose hash the user has not trusted
//     (asked of `codex app-server`, which computes it), Gemini CLI runs settings hooks only in
//     trusted folders, Claude Code before 2.1.295 and Copilot CLI before 1.0.21 let a call through
//     when the hook fails.
struct ClientCheck final
{
    enum class Verdict {
        Ready,        // hooks and server in place, nothing left for the agent to allow
        NeedsStep,    // something to do first: step says what
        FailsOpen,    // its own tools run unasked: why says why, step what ends it
        NotInstalled, // no program on PATH (what is set up is still reported)
    };
    QString client;
    Verdict verdict = Verdict::NotInstalled;
    QString program;   // its path, when found
    QString version;   // as it reports it
    QStringList found; // what is in place, one fact a line
    QString why;
    QString step;

    static ClientCheck of(const QString &client, const HookInstaller::Place &place);
    // "ready", "needs a step", "fails open", "not installed".
    static QString verdictWord(Verdict verdict);
    // The agent's program on PATH (empty when there is none): what `setup --all` asks before it
    // sets an agent up, without running anything.
    static QString programPath(const QString &client);
    // The report as lines for a terminal (and the Connections tab).
    QString describe() const;
};

} // namespace Countersign
