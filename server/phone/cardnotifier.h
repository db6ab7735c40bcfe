#pragma once

#include <QObject>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;

namespace Countersign {

// The optional notifier for when no page is open (configuration key "notifyUrl"): an HTTP POST to
// a URL the user set (a self-hosted ntfy server, for one) when a card has waited unseen. It carries
// no card content: the words "A Countersign card waits for your answer." and, as ntfy's Click
// header, the phone page's address when the phone listener runs. Never a redirect followed, 10 s at
// most; what became of it is said (sent, failed).
class CardNotifier final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kTimeoutMs = 10'000;
    static constexpr const char *kText = "A Countersign card waits for your answer.";

    explicit CardNotifier(QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(CardNotifier)

    // Empty: off.
    void setUrl(const QUrl &url) { m_url = url; }
    // The phone page's address, or empty when it does not run.
    void setPageUrl(const QString &url) { m_pageUrl = url; }
    void notify();

Q_SIGNALS:
    void sent(int httpStatus);
    void failed(const QString &why);

private:
    QNetworkAccessManager *m_network = nullptr;
    QUrl m_url;
    QString m_pageUrl;
};

} // namespace Countersign
