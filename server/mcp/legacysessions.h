#pragma once

#include "mcprequest.h"
#include "principal.h"

#include <QByteArray>
#include <QHash>

#include <optional>

namespace Countersign {

// The sessions of 2025-era HTTP clients: made at initialize (Mcp-Session-Id), each bound to the
// connection that made it and holding what the client said of itself then (protocol version,
// clientInfo, capabilities). A session ends with DELETE or after kIdleMs without a request; a
// connection keeps at most kMaxPerConnection (the oldest goes first).
class LegacySessions final
{
public:
    static constexpr qint64 kIdleMs = 60LL * 60 * 1000;
    static constexpr int kMaxPerConnection = 64;

    // A new session for the initialize request's envelope; its id (32 hex characters, random).
    QByteArray open(const Principal &principal, const Envelope &envelope, qint64 nowMs);
    // The envelope of a live session of this connection; none when the id is unknown, expired or
    // another connection's (the client must initialize again).
    std::optional<Envelope> find(const QByteArray &id, const Principal &principal, qint64 nowMs);
    // Ends a session of this connection; false when there was none.
    bool close(const QByteArray &id, const Principal &principal);
    int count() const { return int(m_sessions.size()); }

private:
    struct Session final
    {
        qint64 principalId = 0;
        Envelope envelope;
        qint64 lastUsedMs = 0;
    };
    void dropIdle(qint64 nowMs);

    QHash<QByteArray, Session> m_sessions;
};

} // namespace Countersign
