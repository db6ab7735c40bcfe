#include "cardnotifier.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace Countersign {

CardNotifier::CardNotifier(QObject *parent) : QObject(parent), m_network(new QNetworkAccessManager(this)) {}

void CardNotifier::notify()
{
    if (m_url.isEmpty())
        return;
    QNetworkRequest request(m_url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("text/plain; charset=utf-8"));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(kTimeoutMs);
    request.setRawHeader("Title", "Countersign");
    if (!m_pageUrl.isEmpty())
        request.setRawHeader("Click", m_pageUrl.toUtf8());
    QNetworkReply *reply = m_network->post(request, QByteArray(kText));
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status != 0 && (status < 200 || status >= 300))
            return Q_EMIT failed(QStringLiteral("the notifier answered HTTP %1").arg(status));
        if (reply->error() != QNetworkReply::NoError || status == 0)
            return Q_EMIT failed(reply->errorString());
        Q_EMIT sent(status);
    });
}

} // namespace Countersign
