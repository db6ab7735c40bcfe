#pragma once

#include <QFrame>
#include <QMap>

class QLabel;
class QPushButton;
class QTimer;

namespace Countersign {

// "The tripwire fired": shown above the tabs while a connection is held because a call that ran
// with no card changed what the gate protects (HookService::tripwireFired). It says which call,
// which files and whether each was put back; "I have looked" releases the connection shown (its
// calls are judged as before again). One alarm per connection, the oldest shown first; the words
// are the server's, shown as plain text.
class TripwireAlarm final : public QFrame
{
    Q_OBJECT
public:
    // The release button waits this long after the alarm last changed.
    static constexpr int kSettleMs = 1000;
    explicit TripwireAlarm(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(TripwireAlarm)

    // A new alarm of this connection (a second one of a connection still held is added to it).
    void raiseAlarm(const QString &connection, const QString &message);
    // The connection was released (here or elsewhere): its alarm goes.
    void clear(const QString &connection);
    QStringList held() const { return m_alarms.keys(); }

Q_SIGNALS:
    // The human looked at the alarm of this connection and releases it.
    void releaseClicked(const QString &connection);

private:
    void refresh();

    QLabel *m_title = nullptr;
    QLabel *m_text = nullptr;
    QPushButton *m_release = nullptr;
    QTimer *m_settle = nullptr;
    QMap<QString, QStringList> m_alarms; // connection -> its alarms' words
};

} // namespace Countersign
