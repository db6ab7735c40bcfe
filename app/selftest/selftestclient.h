#pragma once

#include "result.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace Countersign {

// How `countersign selftest` runs one installed agent headless against the scripted model: the
// agent's own shell tool and the arguments it takes, whether Countersign's MCP tools reach it, and
// what to write into a sandbox HOME (before `setup` adds Countersign's entries) and put in the
// environment so that the agent talks to the scripted model, with its own prompts off (the gate is
// then the only thing that can stop a call). Learned from each agent's files, as tests/agents runs
// them.
struct SelftestClient final
{
    struct Launch final
    {
        QStringList arguments;
        QProcessEnvironment environment;
    };
    struct Sandbox final
    {
        QString home;    // a fresh HOME, with its XDG folders under it
        QString project; // the folder the agent works in
    };

    QString client; // HookSetup's name: claude-code, codex, ...
    QString shellTool;
    // Countersign's MCP tools: the model calls one after the shell (clients whose MCP entry setup
    // writes, and that run it headless without a prompt of their own).
    bool mcp = false;
    // For an agent whose hooks can only stop the whole run (Cline): the log, under HOME, where the
    // reason of a decline is written; it never reaches the model.
    QString stopLog;

    // The shell tool's arguments for command, run in the project.
    nlohmann::json shellArgs(const QString &command, const Sandbox &sandbox) const;
    // Writes the agent's model configuration into the sandbox; the arguments and environment to
    // run it with prompt (the user's PATH, nothing else of theirs).
    Result<Launch> prepare(const Sandbox &sandbox, const QString &modelBase, const QString &prompt) const;

    // The client by HookSetup's name, or nothing.
    static std::optional<SelftestClient> of(const QString &client);
};

} // namespace Countersign
