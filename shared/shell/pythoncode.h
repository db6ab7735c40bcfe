#pragma once

#include "commandcatalog.h"

#include <QString>

namespace Countersign::Shell {

// Python an agent runs (python -c, a here-document, a script it wrote), read for what it does
// without running it: conservatively, by the names it reaches and the literals it gives them.
// Deleting (shutil.rmtree, os.remove, Path.unlink), writing (open(..., "w"), Path.write_text,
// shutil.copy), processes (subprocess, os.system: the command lines they hold read by the shell
// reader), the network (requests, urllib, socket, ...), the environment and secret paths become
// effects like the shell's, each saying the line that made it; code it cannot follow (eval, exec,
// __import__, getattr, ctypes, a module's internals through dunders) is Unknown. Paths are followed
// through names assigned a literal once (p = "src/x.py"; open(p, "w")). What is left, reading and
// computing, is one Runs effect of Code::Read. A line of Python this reader cannot tokenize is
// Unknown as a whole.
namespace PythonCode {

// origin names the code for the card ("python3 -c", "reproduce.py"); it runs in c's folder, and
// its own modules are in importFolder (a script's folder; empty: the folder it runs in).
void read(CommandCatalog &c, const QString &code, const QString &origin, const QString &importFolder = {});

// Most characters of code read; more is Unknown.
constexpr qsizetype kMaxCodeChars = 256 * 1024;

} // namespace PythonCode

} // namespace Countersign::Shell
