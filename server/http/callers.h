#pragma once

#include "localcaller.h"
#include "principal.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QString>

#include <optional>

namespace Countersign {

struct HttpRequest;
class TokenStore;

// Who calls on the doors that act for an agent (/mcp and /hooks/* over HTTP, the bridges' and the
// hook shim's lines on the local socket): each request's bearer token looked up in the store, and
// each connection's calls told to the window (requestFrom) at most once a second.
class Callers final : public QObject
{
    Q_OBJECT
public:
    explicit Callers(TokenStore &tokens, QObject *parent = nullptr);

    // The connection a token names, if it is active.
    std::optional<Principal> authenticate(const QByteArray &token);
    // authenticate() as a function, for the doors that check a token themselves (the local socket).
    LocalCaller::Authenticator authenticator();
    // Host, Origin, then the bearer token (LocalCaller::check): what a door refuses, or who it serves.
    LocalCaller::Checked check(const HttpRequest &request);
    // Whether an Authorization header holds a valid token (the body budget's voucher).
    bool vouches(const QByteArray &authorization);
    bool isActive(qint64 connectionId);
    // Whether the connection a call came from is still active (not revoked while it waited).
    bool isStillActive(const Principal &principal) { return isActive(principal.connectionId); }
    // When the connection's current token was given (TokenStore::issuedMs).
    std::optional<qint64> issuedMs(const Principal &principal);
    // Why tokens cannot be looked up now (the store failed); empty while they can.
    QString storeProblem() const;

Q_SIGNALS:
    void requestFrom(const QString &connection, qint64 atMs);

private:
    TokenStore &m_tokens;
    QHash<QString, qint64> m_told; // connection -> when requestFrom last said so
};

} // namespace Countersign
