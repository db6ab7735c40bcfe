#pragma once

#include "commandcatalog.h"

#include <QList>
#include <QString>

namespace Countersign::Shell {

// The files a patch touches, read from its text as git apply and GNU patch read it: "diff --git"
// headers, "---"/"+++" pairs outside hunks (a hunk's own lines skipped by its counts), the extended
// headers (new, deleted, renamed, copied, mode changes). Paths are as written, prefixes not yet
// stripped. A patch holding a form this reader does not follow (a quoted name, a context or ed
// diff) says so in unreadable.
struct PatchFile final
{
    QString oldPath;      // empty when the file is new
    QString newPath;      // empty when the file is deleted
    bool link = false;    // a symbolic link is made (mode 120000)
    bool renamed = false; // renamed or copied from oldPath
};
struct PatchText final
{
    QList<PatchFile> files;
    QString unreadable; // why the reader cannot say what it touches; empty when it can
};

namespace PatchCommands {

PatchText parse(const QString &text);

// git apply and git am (args: what follows the subcommand; cwd: where git runs) and GNU patch
// (args: the whole command): each file the patch touches judged as a write, a deletion or a link,
// the patch read from its files, a here-document or a redirected file (a pipe is not known).
void gitApply(CommandCatalog &c, const QString &sub, const QList<Arg> &args, const QString &cwd);
void patch(CommandCatalog &c, const QList<Arg> &args);

// Most bytes of a patch read to judge it; a larger one asks.
constexpr qint64 kMaxPatchBytes = 4 * 1024 * 1024;

} // namespace PatchCommands

} // namespace Countersign::Shell
