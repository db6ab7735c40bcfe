#pragma once

#include "grant.h"

#include <QDialog>
#include <QList>

class QButtonGroup;
class QComboBox;
class QLabel;

namespace Countersign {

class Clock;

// "Allow from now on" or "Deny from now on", from a card: the narrowest rules that cover its call
// (Grant::offersFor), narrowest first and chosen by default, each in words, with what it also lets
// through (or refuses), and as the rule it writes; and how long it holds (an hour, until midnight,
// while the call's agent session lasts, at most a day, where its hook sent one; until revoked). Accepted only
// by the confirm button ("confirmGrant", not a default button: Enter typed elsewhere grants nothing);
// "cancelGrant" and Escape reject. Everything is plain text (the agent chose the call's arguments).
class GrantDialog final : public QDialog
{
    Q_OBJECT
public:
    enum class Lasts { Hour, Today, Session, Always };
    // The longest a grant for one agent session holds (a session id an agent may reuse).
    static constexpr qint64 kSessionGrantMs = 24 * 3600 * 1000;

    // agentSession: the card's (Operation::agentSession); empty: "this agent session" is not offered.
    GrantDialog(const QList<Grant> &offers, const Clock &clock, const QString &agentSession = {},
                QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(GrantDialog)

    // The chosen grant, its expiry set from now.
    Grant chosen() const;
    void choose(int offer, Lasts lasts);

private:
    void showRule();

    QList<Grant> m_offers;
    const Clock &m_clock;
    QString m_session;
    QButtonGroup *m_scopes = nullptr;
    QComboBox *m_lasts = nullptr;
    QLabel *m_rule = nullptr;
};

} // namespace Countersign
