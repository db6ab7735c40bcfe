#pragma once

#include "result.h"

#include <QString>

namespace Countersign::ClaudeSessionRecord {

// The last request the user made in a Claude Code session record (its JSONL transcript, as 2.1.x
// writes it: a "user" line whose message content is the prompt, text and not a tool's result; or,
// failing that, the "last-prompt" line), read from the file's end, at most maxBytes of it. Lines
// that are not JSON, too long or of another shape are passed over. Empty when no request is found
// in what was read; partial says whether the read stopped at maxBytes before the file's start.
struct Request final
{
    QString text;
    bool partial = false;
};
Result<Request> lastRequest(const QString &path, qint64 maxBytes = 8 * 1024 * 1024);

// Whether path can be a session record of this session: an absolute path, not a link, to a
// regular file named SESSION.jsonl (the session id: letters, digits, - and _) in a folder under
// a ".claude/projects" folder; the reason when not.
Status checkPath(const QString &path, const QString &session);

} // namespace Countersign::ClaudeSessionRecord
