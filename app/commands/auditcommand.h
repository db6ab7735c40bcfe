#pragma once

#include <QString>

namespace Countersign {

struct CommandLine;

// countersign audit verify | audit export, and receipt verify FILE. Return the exit code.
int runAuditCommand(const CommandLine &cl);
int runReceiptCommand(const CommandLine &cl);

} // namespace Countersign
