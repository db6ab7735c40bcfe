#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// The project's own tools: package managers (installs and publishing ask; a package.json script
// is the project's own command), build systems, test runners, linters and formatters. Each build,
// test, lint or format command is a Code::Project effect naming the files that define what it
// runs, so that it runs with no card only while they are as committed.
namespace ProjectTools {

bool read(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);

QStringList pythonDefinitions();
// pip and its kin (piptools.cpp): program is how the line names it ("pip3", "uv pip").
bool pip(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);
// What a compiler reads: its sources, the folders and files its options name (-I, -include, ...),
// and what each file includes by a name Countersign can follow, to a bound (compilerreads.cpp).
void compilerReads(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);
QStringList nodeDefinitions();

} // namespace ProjectTools

} // namespace Countersign::Shell
