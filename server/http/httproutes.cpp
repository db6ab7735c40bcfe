#include "httproutes.h"

#include "callers.h"
#include "httprequest.h"

namespace Countersign {

HttpRoutes::HttpRoutes(Callers &callers, HttpConnection::Refusal refuse)
    : m_callers(callers), m_refuse(std::move(refuse))
{
}

void HttpRoutes::addAgentDoor(const QByteArray &path, AgentDoor door)
{
    m_routes.append(Route{path, std::move(door), {}});
}

void HttpRoutes::addPage(const QByteArray &path, Page page)
{
    m_routes.append(Route{path, {}, std::move(page)});
}

const HttpRoutes::Route *HttpRoutes::find(const QByteArray &path) const
{
    for (const Route &route : m_routes) {
        const bool prefix = route.path.endsWith('/');
        if (prefix ? path.startsWith(route.path) : path == route.path)
            return &route;
    }
    return nullptr;
}

void HttpRoutes::route(const HttpRequest &request, Responder respond) const
{
    const Route *route = find(request.path());
    if (route && route->door)
        return route->door(request, m_callers.check(request), std::move(respond));
    if (route) {
        const auto host = request.header("host");
        if (host && LocalCaller::isLoopbackHost(*host)) {
            if (auto page = route->page(request))
                return respond(std::move(*page));
        }
    }
    respond(m_refuse(404, QStringLiteral("Not Found")));
}

HttpConnection::Router HttpRoutes::router() const
{
    return std::bind_front(&HttpRoutes::route, this);
}

} // namespace Countersign
