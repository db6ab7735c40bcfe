#pragma once

#include <QSet>
#include <QString>

// What the Python reader knows of Python's names (pythonnames.cpp): which modules only compute,
// which reach the network, which of the standard library it does not read (any use asks), which
// attributes of os, os.path and sys only read, and which builtins run code. Private to shared/shell.
namespace Countersign::Shell::PythonNames {

// Modules any public name of which only computes, parses or reads what it is handed.
bool computes(const QString &module);
// For a module read call by call (logging, unittest, warnings, typing, zipfile, tarfile, tempfile,
// urllib): whether name is one that only computes; true for any name of the other computing ones.
bool callable(const QString &module, const QString &name);
// Modules whose calls reach the network.
bool network(const QString &module);
// A module of Python's standard library (a name Python itself brings); one that neither computes
// nor is read call by call asks.
bool standard(const QString &module);
// Modules through which code cannot be followed or which run programs: any use asks.
bool unread(const QString &module);
// A module reached as another's attribute (glob.os, os.path.os): the way around a reader of names.
bool reachedThrough(const QString &prefix, const QString &name);

bool osReads(const QString &function);     // os.X that only reads or computes
bool osPathReads(const QString &function); // os.path.X, pure or a read
bool sysReads(const QString &attribute);   // sys.X that only reads, prints or exits
// Builtins that run text as code or reach a namespace by name.
bool dynamicBuiltin(const QString &name);
// Builtins and names the reader's rules trust by name (open, str, getattr, print, Path, ...): code
// that binds one of them to something else is not read.
bool trustedName(const QString &name);
bool dunderAllowed(const QString &name);
// Method names through which a value that is a module would still run programs or delete.
bool guardedMethod(const QString &name);
// Python's keywords: never a name that is called.
bool keyword(const QString &name);

} // namespace Countersign::Shell::PythonNames
