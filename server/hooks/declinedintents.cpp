#include "declinedintents.h"

#include <QDir>

namespace Countersign {

namespace {

// The same file, or one inside the other: deleting a folder reaches every file in it.
bool overlaps(const QString &a, const QString &b)
{
    const QString x = QDir::cleanPath(a);
    const QString y = QDir::cleanPath(b);
    if (x.isEmpty() || y.isEmpty() || x == QLatin1String("/") || y == QLatin1String("/"))
        return x == y && !x.isEmpty();
    return x == y || x.startsWith(y + QLatin1Char('/')) || y.startsWith(x + QLatin1Char('/'));
}

} // namespace

void DeclinedIntents::declined(const QString &session, const QStringList &targets, const QString &what,
                               qint64 atMs)
{
    if (targets.isEmpty())
        return;
    if (!m_sessions.contains(session)) {
        if (m_order.size() >= kSessions)
            m_sessions.remove(m_order.takeFirst());
        m_order.append(session);
    }
    QList<Declined> &list = m_sessions[session];
    if (list.size() >= kPerSession)
        list.removeFirst();
    list.append(Declined{targets, what.left(200), atMs});
}

void DeclinedIntents::forget(const QString &connection)
{
    for (auto it = m_order.begin(); it != m_order.end();) {
        if (it->section(QLatin1Char('\n'), 0, 0) == connection) {
            m_sessions.remove(*it);
            it = m_order.erase(it);
        } else {
            ++it;
        }
    }
}

DeclinedIntents::Match DeclinedIntents::match(const QString &session, const QStringList &targets,
                                              qint64 nowMs) const
{
    Match m;
    QStringList reached, calls;
    for (const Declined &d : m_sessions.value(session)) {
        if (nowMs - d.atMs > kWithinMs)
            continue;
        bool hit = false;
        for (const QString &declinedTarget : d.targets) {
            for (const QString &target : targets) {
                if (overlaps(declinedTarget, target)) {
                    hit = true;
                    if (!reached.contains(declinedTarget))
                        reached.append(declinedTarget);
                }
            }
        }
        if (hit) {
            ++m.declines;
            calls.append(QStringLiteral("\"%1\"").arg(d.what));
        }
    }
    if (m.declines > 0)
        m.note = QStringLiteral("Tried again after your decline: this session's %1 %2 declined, and this "
                                "call reaches %3 too.")
                     .arg(calls.join(QStringLiteral(", ")),
                          m.declines == 1 ? QStringLiteral("was") : QStringLiteral("were"),
                          reached.join(QStringLiteral(", ")));
    return m;
}

} // namespace Countersign
