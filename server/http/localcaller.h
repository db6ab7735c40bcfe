#pragma once

#include "principal.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <optional>

namespace Countersign {

struct HttpRequest;

// Who is calling on the loopback listener, checked the same way for every door that acts for an
// agent (/mcp and /hooks/*): the Host header must name loopback and an Origin, when sent, must be
// a loopback web origin (DNS-rebinding defence); then the bearer token must name an active
// connection. Each door words a refusal in its own shape (an HTTP error for MCP, a deny the agent
// reads for a hook).
namespace LocalCaller {

enum class Refusal {
    None,
    Host,            // Host missing or not loopback
    Origin,          // an Origin that is not a loopback web origin
    NoToken,         // no Authorization: Bearer
    UnknownToken,    // a token no active connection holds
    StoreUnreadable, // the token store cannot be read, so no token can be checked
};

struct Checked final
{
    Refusal refusal = Refusal::None;
    std::optional<Principal> principal; // set exactly when refusal is None
    QString detail;                     // the header as sent, or the store's error
};

using Authenticator = std::function<std::optional<Principal>(const QByteArray &token)>;

// storeProblem: the token store's last error, empty while it reads (may be empty).
Checked check(const HttpRequest &request, const Authenticator &authenticate,
              const std::function<QString()> &storeProblem);

// The token of an "Authorization: Bearer TOKEN" header (the scheme in any case); none for any other.
std::optional<QByteArray> bearerToken(const QByteArray &authorization);

// Host and Origin alone (a page that only shows something: /approvals/NONCE).
bool isLoopbackHost(const QByteArray &hostHeader);
// A missing Origin passes; a present one must be http(s) on a loopback name.
bool isAllowedOrigin(const QByteArray &origin);

} // namespace LocalCaller

} // namespace Countersign
