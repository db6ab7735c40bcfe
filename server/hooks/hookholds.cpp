// HookService's holds: a connection held after the tripwire fired on one of its calls that ran with
// no card, a change found between calls, an agent session held after it came back by another road
// to what was declined twice, each recorded in the chain, and their release by a human.
#include "hookservice.h"

#include "auditstore.h"
#include "gatecall.h"

#include <QDateTime>
#include <QDir>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHooks)

namespace Countersign {

using json = nlohmann::json;

namespace {

// A change the tripwire found, as the chain records it.
json changeRecord(const Tripwire::Change &change)
{
    return {{"path", change.path.toStdString()},
            {"what", change.what.toStdString()},
            {"how", change.how.toStdString()}};
}

// A path under the home folder as ~/..., for the human.
QString inHome(const QString &path)
{
    const QString home = QDir::homePath();
    return path.startsWith(home + QLatin1Char('/')) ? QLatin1Char('~') + path.mid(home.size()) : path;
}

} // namespace

void HookService::triesAgain(const QString &session, const Principal &who, const QStringList &reaches,
                             AgentCall &call)
{
    const DeclinedIntents::Match again =
        m_declined.match(session, reaches, QDateTime::currentMSecsSinceEpoch());
    if (again.declines == 0)
        return;
    call.note = again.note;
    if (call.held.isEmpty())
        call.held = QStringLiteral("asks: it reaches what you declined of this agent session a moment ago");
    if (again.declines < 2 || m_heldSessions.contains(session))
        return;
    const QString why =
        QStringLiteral("held: this agent session came back by another road after two declines "
                       "of what it reaches; each of its calls asks until a human releases its "
                       "connection in the window");
    m_heldSessions.insert(session, why);
    call.held = why;
    const json detail = {{"connection", who.name.toStdString()},
                         {"session", session.section(QLatin1Char('\n'), 1).left(200).toStdString()},
                         {"reaches", reaches.join(QStringLiteral(", ")).left(2000).toStdString()},
                         {"declines", again.declines}};
    if (auto recorded = m_store.recordEvent(QStringLiteral("session-held-after-declines"), detail); !recorded)
        qCWarning(lcHooks) << "a held session was not recorded:" << recorded.error();
    const QString message =
        QStringLiteral(
            "An agent session of connection \"%1\" tried again by another road after two declines: %2 "
            "Every call of that session asks until you release \"%1\".")
            .arg(who.name, again.note);
    qCWarning(lcHooks).noquote() << message;
    Q_EMIT tripwireFired(who.name, message);
}

void HookService::tripped(const Allowed &allowed, const QList<Tripwire::Change> &changes)
{
    if (changes.isEmpty())
        return;
    json list = json::array();
    QStringList named;
    int restored = 0;
    for (const Tripwire::Change &change : changes) {
        json item = changeRecord(change);
        item["restored"] = change.restored;
        if (!change.problem.isEmpty())
            item["problem"] = change.problem.toStdString();
        if (!change.keptSha256.isEmpty())
            item["keptSha256"] = change.keptSha256.toStdString();
        list.push_back(std::move(item));
        named << QStringLiteral("  • %1 (%2): %3, %4")
                     .arg(inHome(change.path), change.what, change.how,
                          change.restored ? QStringLiteral("put back")
                                          : QStringLiteral("NOT put back: ") + change.problem);
        restored += change.restored ? 1 : 0;
    }
    const QString why =
        QStringLiteral("held: the tripwire fired on a call of this connection that ran with no card; every "
                       "call asks until a human releases it in the window");
    m_held.insert(allowed.connection, why);
    // Calls that ran beside it over the same record may be the ones that changed it: their
    // connections are held too.
    QStringList beside;
    if (m_settings.tripwire) {
        for (const QString &key : m_settings.tripwire->inFlight()) {
            const QString other = m_allowed.value(key).connection;
            if (!other.isEmpty() && other != allowed.connection && !beside.contains(other)) {
                beside << other;
                m_held.insert(other, why);
            }
        }
    }
    const json detail = {{"connection", allowed.connection.toStdString()},
                         {"agent", allowed.agent.toStdString()},
                         {"call", allowed.what.toStdString()},
                         {"changes", list},
                         {"restored", restored},
                         {"alsoHeld", beside.join(QStringLiteral(", ")).toStdString()}};
    const auto recorded = allowed.nonce.isEmpty()
                              ? m_store.recordEvent(QStringLiteral("tripwire-fired"), detail)
                              : m_store.recordEvent(QStringLiteral("tripwire-fired"), allowed.nonce, detail);
    if (!recorded)
        qCWarning(lcHooks) << "the tripwire's alarm was not recorded:" << recorded.error();
    const QString message =
        QStringLiteral(
            "The tripwire fired: %1 ran \"%2\" with no card (connection \"%3\"), and it changed what "
            "the gate protects.\n%4\nWhat it wrote is kept in the undo store%5. Every call of "
            "connection \"%3\" asks until you release it.")
            .arg(allowed.agent, allowed.what.left(200), allowed.connection, named.join(QLatin1Char('\n')),
                 allowed.nonce.isEmpty() ? QString()
                                         : QStringLiteral(" (operation %1)").arg(allowed.nonce.left(12)));
    qCWarning(lcHooks).noquote() << message;
    Q_EMIT tripwireFired(allowed.connection, message);
    for (const QString &other : beside)
        Q_EMIT tripwireFired(
            other, QStringLiteral("Connection \"%1\" had a call running with no card when the tripwire "
                                  "fired on connection \"%2\" (what changed may be its doing): every call "
                                  "of \"%1\" asks until you release it.")
                       .arg(other, allowed.connection));
}

void HookService::changedBetweenCalls(const QList<Tripwire::Change> &changes)
{
    json list = json::array();
    QStringList named;
    for (const Tripwire::Change &change : changes) {
        list.push_back(changeRecord(change));
        named << QStringLiteral("%1 %2 (%3)").arg(change.how, inHome(change.path), change.what);
    }
    if (auto recorded = m_store.recordEvent(QStringLiteral("tripwire-between-calls"), {{"changes", list}});
        !recorded)
        qCWarning(lcHooks) << "a change between calls was not recorded:" << recorded.error();
    const QString message =
        QStringLiteral(
            "What the gate protects changed while no agent call that runs with no card was running: %1. "
            "It was not put back (it may be yours, or a program an agent's call left running). "
            "Check it if you did not change it.")
            .arg(named.join(QStringLiteral("; ")));
    qCWarning(lcHooks).noquote() << message;
    Q_EMIT flagged(message);
}

Status HookService::release(const QString &connection, const QString &by)
{
    const bool held = m_held.remove(connection);
    const qsizetype sessions = m_heldSessions.removeIf(
        [&connection](const auto &it) { return it.key().section(QLatin1Char('\n'), 0, 0) == connection; });
    if (!held && sessions == 0)
        return failure(QStringLiteral("connection \"%1\" is not held").arg(connection));
    m_declined.forget(connection);
    const json detail = {{"connection", connection.toStdString()}, {"by", by.toStdString()}};
    if (auto recorded = m_store.recordEvent(QStringLiteral("tripwire-released"), detail); !recorded)
        qCWarning(lcHooks) << "the release of" << connection << "was not recorded:" << recorded.error();
    Q_EMIT holdReleased(connection);
    return Done{};
}

} // namespace Countersign
