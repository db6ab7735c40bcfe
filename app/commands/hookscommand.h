#pragma once

#include "config.h"
#include "database.h"
#include "hookinstaller.h"
#include "result.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <memory>

namespace Countersign {

struct CommandLine;

// `countersign hooks install CLIENT` and `hooks remove CLIENT` (claude-code, codex, gemini, qwen):
// Countersign's pre- and post-tool hooks merged into the client's user-level settings
// (HookSetup), the file backed up beside itself first, a connection CLIENT-hooks with a fresh token
// (Claude Code: in its HTTP hook's header; the others: in a file of the data folder only the user
// can read, which the shim reads). Installing twice gives the same file; remove takes the hooks out,
// revokes the connection and deletes the token file. `install --setup` prints what would be merged
// and changes nothing.
int runHooksCommand(const CommandLine &cl);
// Where this program's hooks go: the user's home, the shim beside this program, the console's socket.
HookInstaller::Place hookPlace(const QString &dataDir, const QString &consoleBase);
// http://HOST:PORT of the console on this data folder: the running one's, else the configured one.
QString consoleBase(const CommandLine &cl, const Config &config);

// What `hooks` and `setup` write with: the configuration, where the hooks go (hookPlace), and once
// tokens() is called, the configuration's store (its data folder made if need be) whose tokens
// the connections get.
struct SetupTarget final
{
    Config config;
    HookInstaller::Place place;
    SystemClock clock;
    std::unique_ptr<Database> db;
    std::unique_ptr<TokenStore> tokenStore;

    static Result<std::unique_ptr<SetupTarget>> open(const CommandLine &cl);
    Result<TokenStore *> tokens();
};

} // namespace Countersign
