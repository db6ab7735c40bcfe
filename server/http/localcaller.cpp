#include "localcaller.h"

#include "httpconnection.h"
#include "httprequest.h"

#include <QUrl>

namespace Countersign::LocalCaller {

namespace {

bool isLoopbackName(const QString &host)
{
    const QString h = host.toLower();
    return h == QLatin1String("localhost") || h == QLatin1String("127.0.0.1") ||
           h == QLatin1String("[::1]") || h == QLatin1String("::1");
}

} // namespace

bool isLoopbackHost(const QByteArray &hostHeader)
{
    QString host = QString::fromLatin1(hostHeader);
    if (host.startsWith(QLatin1Char('['))) {
        const qsizetype close = host.indexOf(QLatin1Char(']'));
        if (close < 0)
            return false;
        host = host.left(close + 1);
    } else if (const qsizetype colon = host.lastIndexOf(QLatin1Char(':')); colon >= 0) {
        host = host.left(colon);
    }
    return isLoopbackName(host);
}

bool isAllowedOrigin(const QByteArray &origin)
{
    const QUrl url(QString::fromLatin1(origin), QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return false;
    if (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
        return false;
    return isLoopbackName(url.host()) || url.host() == QLatin1String("::1");
}

std::optional<QByteArray> bearerToken(const QByteArray &authorization)
{
    if (authorization.size() > 7 && authorization.left(7).toLower() == "bearer ")
        return authorization.mid(7).trimmed();
    return std::nullopt;
}

Checked check(const HttpRequest &request, const Authenticator &authenticate,
              const std::function<QString()> &storeProblem)
{
    const auto host = request.header("host");
    if (!host || !isLoopbackHost(*host))
        return {Refusal::Host, std::nullopt, host ? QString::fromLatin1(*host) : QStringLiteral("(missing)")};
    if (const auto origin = request.header("origin"); origin && !isAllowedOrigin(*origin))
        return {Refusal::Origin, std::nullopt, QString::fromLatin1(*origin)};
    const auto authorization = request.header("authorization");
    if (!authorization)
        return {Refusal::NoToken, std::nullopt, {}};
    std::optional<Principal> principal;
    if (const auto token = bearerToken(*authorization))
        principal = authenticate(*token);
    if (principal) {
        if (auto *connection = qobject_cast<HttpConnection *>(request.connection.data()))
            connection->vouch();
        return {Refusal::None, std::move(principal), {}};
    }
    if (const QString problem = storeProblem ? storeProblem() : QString(); !problem.isEmpty())
        return {Refusal::StoreUnreadable, std::nullopt, problem};
    return {Refusal::UnknownToken, std::nullopt, {}};
}

} // namespace Countersign::LocalCaller
