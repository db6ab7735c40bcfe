#include "callers.h"

#include "tokenstore.h"

#include <QDateTime>

namespace Countersign {

Callers::Callers(TokenStore &tokens, QObject *parent) : QObject(parent), m_tokens(tokens) {}

std::optional<Principal> Callers::authenticate(const QByteArray &token)
{
    auto principal = m_tokens.authenticate(token);
    if (principal) {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        qint64 &told = m_told[principal->name];
        if (now - told >= 1000) {
            told = now;
            Q_EMIT requestFrom(principal->name, now);
        }
    }
    return principal;
}

LocalCaller::Authenticator Callers::authenticator()
{
    return std::bind_front(&Callers::authenticate, this);
}

LocalCaller::Checked Callers::check(const HttpRequest &request)
{
    return LocalCaller::check(request, authenticator(), std::bind_front(&Callers::storeProblem, this));
}

bool Callers::vouches(const QByteArray &authorization)
{
    const auto token = LocalCaller::bearerToken(authorization);
    return token && m_tokens.authenticate(*token).has_value();
}

bool Callers::isActive(qint64 connectionId)
{
    return m_tokens.isActive(connectionId);
}

std::optional<qint64> Callers::issuedMs(const Principal &principal)
{
    return m_tokens.issuedMs(principal.connectionId);
}

QString Callers::storeProblem() const
{
    return m_tokens.lastError();
}

} // namespace Countersign
