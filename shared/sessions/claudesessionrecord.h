#pragma once

#include "result.h"

#include <QString>

namespace Countersign::ClaudeSessionRecord {

// The user's words behind a tool call, from a Claude Code session record (its JSONL transcript,
// as 2.1.x writes it): the line of the assistant's call with this tool-use id, then its parents
// (parentUuid) up to the first "user" line that holds the user's own text (not a tool's result,
// not the client's own lines). Read from the file's end, at most maxBytes of it; lines that are
// not JSON or longer than 256 KiB are passed over. Empty when no such chain is found in what was
// read (partial: the read stopped at maxBytes before the file's start), and when a uuid of the
// chain stands on two lines (a line written in to stand in for one of the chain's). The file is
// opened with no link followed on its way, and only a regular file is read.
struct Request final
{
    QString text;
    bool partial = false;
};
Result<Request> requestBehind(const QString &path, const QString &toolUseId,
                              qint64 maxBytes = 4 * 1024 * 1024);

// Whether path can be a session record of this session: an absolute path, not a link, to a
// regular file named SESSION.jsonl (the session id: letters, digits, - and _) in a folder of the
// "projects" folder of one of claudeFolders (the console user's ~/.claude, $CLAUDE_CONFIG_DIR);
// the reason when not.
Status checkPath(const QString &path, const QString &session, const QStringList &claudeFolders);
// The folders whose "projects" folder holds this user's Claude Code session records.
QStringList claudeFolders();

} // namespace Countersign::ClaudeSessionRecord
