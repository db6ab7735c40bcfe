#pragma once

#include "config.h"
#include "result.h"
#include "systemclock.h"

#include <QString>

#include <memory>

namespace Countersign {

class AuditStore;
class Database;
class ReceiptSigner;
struct CommandLine;

// The audit store a one-shot command writes into, as the console's: the configuration's store (it
// must exist already), signed with this installation's key, so that what the command records goes
// under a signed checkpoint as the window's does (undo, phone revoke).
struct CommandStore final
{
    Config config;
    SystemClock clock;
    std::unique_ptr<Database> db;
    std::unique_ptr<ReceiptSigner> signer;
    std::unique_ptr<AuditStore> store;

    // missing: said after "no audit log at PATH" when there is none.
    static Result<std::unique_ptr<CommandStore>> open(const CommandLine &cl, const QString &missing = {});
    ~CommandStore();
};

} // namespace Countersign
