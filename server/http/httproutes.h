#pragma once

#include "httpconnection.h"
#include "localcaller.h"

#include <QByteArray>
#include <QList>

#include <functional>
#include <optional>

namespace Countersign {

class Callers;
struct HttpRequest;

// Which door a request's path opens. Set up once, when the server starts; every request then goes
// from its connection through here to its door, and nothing on its way returns to the code that
// set the doors up. A door that acts for an agent (/mcp, /hooks/CLIENT) receives its caller
// already checked (Host, Origin, then the bearer token: Callers::check) and words any refusal in
// its own shape; a page (/approvals/NONCE) only shows something, to a loopback Host. Any other
// path, and a page that has nothing at its path, is refused 404 in the shape given.
class HttpRoutes final
{
public:
    using Responder = HttpConnection::Responder;
    using AgentDoor = std::function<void(const HttpRequest &, const LocalCaller::Checked &, Responder)>;
    // Nothing: no such page (404).
    using Page = std::function<std::optional<HttpResponse>(const HttpRequest &)>;

    HttpRoutes(Callers &callers, HttpConnection::Refusal refuse);
    Q_DISABLE_COPY_MOVE(HttpRoutes)

    // path: a whole path ("/mcp"), or a prefix that ends in "/" ("/hooks/").
    void addAgentDoor(const QByteArray &path, AgentDoor door);
    void addPage(const QByteArray &path, Page page);

    // Answers through respond exactly once (a door may answer after route() returns).
    void route(const HttpRequest &request, Responder respond) const;
    HttpConnection::Router router() const;

private:
    struct Route final
    {
        QByteArray path;
        AgentDoor door; // one of the two
        Page page;
    };
    const Route *find(const QByteArray &path) const;

    Callers &m_callers;
    HttpConnection::Refusal m_refuse;
    QList<Route> m_routes;
};

} // namespace Countersign
