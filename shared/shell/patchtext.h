#pragma once

#include <QList>
#include <QString>

namespace Countersign::Shell {

// The files a patch touches, read from its text as git apply, git am and GNU patch read it:
// "diff --git" headers and git's extended headers, "---"/"+++" pairs outside hunks (a hunk's own
// lines skipped by its counts), "Index:" names. Paths are as written, prefixes not yet stripped.
// A patch holding anything this reader does not follow (a quoted name, a header line it does not
// know, a context, normal or ed diff, a line that looks like a header in another form, a mail in
// a transfer encoding) says why in unreadable: what touches files must be read whole, or asked.
struct PatchFile final
{
    QString oldPath;      // empty when the file is new
    QString newPath;      // empty when the file is deleted
    bool link = false;    // a symbolic link is made (a mode whose type is 0120000)
    bool renamed = false; // renamed or copied from oldPath (names not prefixed)
};
struct PatchText final
{
    QList<PatchFile> files;
    QString unreadable; // why the reader cannot say what it touches; empty when it can
};

namespace PatchTextReader {

enum class Form {
    Git,  // git apply: git's headers
    Mail, // git am: mails, each one's message before its patch
    Gnu,  // GNU patch: a name may end at its first blank; an epoch timestamp is /dev/null
};

PatchText parse(const QString &text, Form form = Form::Git);

} // namespace PatchTextReader

} // namespace Countersign::Shell
