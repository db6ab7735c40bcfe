#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// What runs another command or code: wrappers (sudo, env, timeout, nice, xargs, ...) whose command
// is read in turn, shells (sh -c and eval read their line; a file runs; stdin runs what is piped
// in or the here-document), and interpreters (inline code asks; a script runs as the project's).
namespace CodeRunners {

bool wrapper(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);
bool shell(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);
bool interpreter(CommandCatalog &catalog, const QString &program, const QList<Arg> &args);
// java -cp FOLDERS Main (or java File.java): classes the agent compiled run as the project's tests
// would, judged by where they load from (Code::Built, one effect per place). Only the options that
// change no code it loads; any other (an agent, a boot class path, a JVM option) is not read.
// (javarunner.cpp; false: not that form, read as any other interpreter)
bool java(CommandCatalog &catalog, const QList<Arg> &args);

} // namespace CodeRunners

} // namespace Countersign::Shell
