#pragma once

#include <QFrame>
#include <QTimer>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace Countersign {

class PolicyChange;

// "The configuration widens what runs without you": shown above the tabs while a reloaded
// configuration waits for the human, with what it widens and narrows (each before → after) and
// two buttons; or the same for an upstream that changed its tools (UpstreamTrust). Everything
// from the file or the upstream is shown as plain text.
class PolicyChangeBanner final : public QFrame
{
    Q_OBJECT
public:
    static constexpr int kSettleMs = 1000;
    explicit PolicyChangeBanner(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(PolicyChangeBanner)

    // when: when the file was changed and the configuration in force accepted, in words.
    void setChange(const PolicyChange &change, const QString &sourcePath, const QString &when = QString());
    // An upstream's change of its tools that widens, one line per change.
    void setUpstreamChange(const QString &upstream, const QStringList &widening);

Q_SIGNALS:
    void acceptClicked();
    void keepCurrentClicked();

private:
    void setText(const QString &title, const QString &text);

    QLabel *m_title = nullptr;
    QPlainTextEdit *m_changes = nullptr;
    QPushButton *m_accept = nullptr;
    QTimer *m_settle = nullptr; // Accept waits this long after the text last changed
    QPushButton *m_keep = nullptr;
};

} // namespace Countersign
