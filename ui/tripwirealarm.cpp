#include "tripwirealarm.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace Countersign {

TripwireAlarm::TripwireAlarm(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("tripwireAlarm"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("#tripwireAlarm { background: #f8d7da; border: 2px solid #b02a37; }"
                                 "#tripwireAlarm QLabel { color: #58151c; }"));
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("tripwireAlarmTitle"));
    m_title->setTextFormat(Qt::PlainText);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("tripwireAlarmText"));
    m_text->setTextFormat(Qt::PlainText); // the call's and the files' names are the agent's
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_release = new QPushButton(this);
    m_release->setObjectName(QStringLiteral("tripwireRelease"));
    connect(m_release, &QPushButton::clicked, this, [this] {
        if (!m_alarms.isEmpty())
            Q_EMIT releaseClicked(m_alarms.firstKey());
    });
    m_settle = new QTimer(this);
    m_settle->setSingleShot(true);
    m_settle->setInterval(kSettleMs);
    connect(m_settle, &QTimer::timeout, m_release, [this] { m_release->setEnabled(true); });
    auto *text = new QVBoxLayout;
    text->addWidget(m_title);
    text->addWidget(m_text);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->addLayout(text, 1);
    layout->addWidget(m_release, 0, Qt::AlignTop);
    hide();
}

void TripwireAlarm::raiseAlarm(const QString &connection, const QString &message)
{
    m_alarms[connection].append(message);
    refresh();
}

void TripwireAlarm::clear(const QString &connection)
{
    m_alarms.remove(connection);
    refresh();
}

void TripwireAlarm::refresh()
{
    if (m_alarms.isEmpty()) {
        hide();
        return;
    }
    const QString connection = m_alarms.firstKey();
    const QStringList &messages = m_alarms.first();
    m_title->setText(m_alarms.size() == 1
                         ? tr("Connection \"%1\" is held").arg(connection)
                         : tr("%1 connections are held (\"%2\" shown)").arg(m_alarms.size()).arg(connection));
    m_text->setText(messages.join(QStringLiteral("\n\n")));
    m_release->setText(tr("I have looked: release \"%1\"").arg(connection.left(40)));
    m_release->setEnabled(false);
    m_settle->start();
    show();
}

} // namespace Countersign
