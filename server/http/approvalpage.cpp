#include "approvalpage.h"

#include "httprequest.h"

#include <QRegularExpression>

namespace Countersign {

std::optional<HttpResponse> ApprovalPage::serve(const HttpRequest &request)
{
    static const QRegularExpression approval(QStringLiteral("^/approvals/([0-9a-f]{32})$"));
    const auto match = approval.match(QString::fromLatin1(request.path()));
    if (!match.hasMatch() || request.method != "GET")
        return std::nullopt;
    Q_EMIT revealRequested(match.captured(1));
    HttpResponse page;
    page.status = 200;
    page.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/html; charset=utf-8")));
    page.headers.append(qMakePair(QByteArray("Cache-Control"), QByteArray("no-store")));
    page.body = "<!doctype html><meta charset=utf-8><title>Countersign</title>"
                "<p>This request is waiting in the <b>Countersign</b> window. Approve or decline it there; "
                "this page cannot do either.</p>";
    return page;
}

} // namespace Countersign
