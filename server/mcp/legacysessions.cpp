#include "legacysessions.h"

#include <sodium.h>

namespace Countersign {

QByteArray LegacySessions::open(const Principal &principal, const Envelope &envelope, qint64 nowMs)
{
    dropIdle(nowMs);
    // The oldest of this connection's sessions goes when it holds too many.
    int held = 0;
    QByteArray oldest;
    qint64 oldestMs = 0;
    for (auto it = m_sessions.cbegin(); it != m_sessions.cend(); ++it) {
        if (it->principalId != principal.connectionId)
            continue;
        ++held;
        if (oldest.isEmpty() || it->lastUsedMs < oldestMs) {
            oldest = it.key();
            oldestMs = it->lastUsedMs;
        }
    }
    if (held >= kMaxPerConnection)
        m_sessions.remove(oldest);
    unsigned char bytes[16];
    randombytes_buf(bytes, sizeof bytes);
    const QByteArray id = QByteArray(reinterpret_cast<const char *>(bytes), sizeof bytes).toHex();
    m_sessions.insert(id, Session{principal.connectionId, envelope, nowMs});
    return id;
}

std::optional<Envelope> LegacySessions::find(const QByteArray &id, const Principal &principal, qint64 nowMs)
{
    dropIdle(nowMs);
    auto it = m_sessions.find(id);
    if (it == m_sessions.end() || it->principalId != principal.connectionId)
        return std::nullopt;
    it->lastUsedMs = nowMs;
    return it->envelope;
}

bool LegacySessions::close(const QByteArray &id, const Principal &principal)
{
    auto it = m_sessions.find(id);
    if (it == m_sessions.end() || it->principalId != principal.connectionId)
        return false;
    m_sessions.erase(it);
    return true;
}

void LegacySessions::dropIdle(qint64 nowMs)
{
    for (auto it = m_sessions.begin(); it != m_sessions.end();) {
        if (nowMs - it->lastUsedMs > kIdleMs)
            it = m_sessions.erase(it);
        else
            ++it;
    }
}

} // namespace Countersign
