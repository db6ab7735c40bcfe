#pragma once

#include "commandcatalog.h"

#include <QString>

namespace Countersign::Shell {

// JavaScript an agent gives node inline (node -e, node -p, a here-document on its standard input),
// read for what it does without running it: conservatively, by an allowlist of the names it may
// reach. Reading and writing files through fs (their literal paths), programs run through
// child_process (their command lines read by the shell reader), the network (http, https, net,
// fetch, ...), process.env's secrets and paths named in strings become effects like the shell's,
// each saying the line that made it. Anything else, and code it cannot follow (eval, Function,
// a constructor reached from a value, a computed property, a module handed around, a package's
// own code), is Unknown. What is left, computing and printing, is one Runs effect of Code::Read.
// Code this reader cannot tokenize or parse for sure is Unknown as a whole.
namespace JavaScriptCode {

// origin names the code for the card ("node -e", "node's here-document"); it runs in c's folder.
// moduleFolder, when given: the code is a CommonJS file in that folder (a script node runs, a
// module the code requires), where module.exports and exports may be assigned and require('./x')
// is x beside it. A module of the project that code requires is a Script effect (judged as the
// project's tests' code is, and read when the agent changed it); what it exports may be called.
void read(CommandCatalog &c, const QString &code, const QString &origin, const QString &moduleFolder = {});

// Most characters of code read; more is Unknown.
constexpr qsizetype kMaxCodeChars = 256 * 1024;

} // namespace JavaScriptCode

} // namespace Countersign::Shell
