#pragma once

namespace Countersign {

struct CommandLine;

// countersign token add|list|revoke: runs against the database in the data folder; returns the
// exit code. With --setup, token add prints each client's setup (ClientSetup) after the token.
int runTokenCommand(const CommandLine &cl);

} // namespace Countersign
