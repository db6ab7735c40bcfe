#pragma once

namespace Countersign {

struct CommandLine;

// countersign phone list | phone revoke ID: the paired phones, and their revocation, without the
// window (a headless console, a phone lost while away from the desk). A revocation is an event of
// the audit chain under a signed checkpoint, as the Settings page's is, so a console already
// running refuses the phone at its next request. Returns the exit code: 0 done, 1 refused or failed.
int runPhoneCommand(const CommandLine &cl);

} // namespace Countersign
