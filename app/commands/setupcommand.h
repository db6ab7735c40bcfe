#pragma once

namespace Countersign {

struct CommandLine;

// `countersign setup CLIENT` does all of one agent's set-up (ClientInstaller: its hooks or plugin,
// Countersign's MCP server in its own configuration, a connection and token for each), then checks
// it (ClientCheck) and prints the report. `setup --all` does every agent whose program is on PATH;
// `setup --check [CLIENT]` and `doctor [CLIENT]` only report; `setup --remove CLIENT` takes it all
// out again. Exit 0 when every agent asked about is ready (or, for --all and --check without a
// client, not installed), 1 otherwise or on an error.
int runSetupCommand(const CommandLine &cl);

} // namespace Countersign
