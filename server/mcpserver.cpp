#include "mcpserver.h"

#include "database.h"
#include "dispatcher.h"
#include "fixturetools.h"
#include "httpserver.h"
#include "mcphttpendpoint.h"
#include "statustool.h"
#include "systemclock.h"
#include "tokenstore.h"
#include "toolregistry.h"

namespace Countersign {

McpServer::McpServer(Config config, QString databasePath, QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_databasePath(std::move(databasePath))
{
}

McpServer::~McpServer()
{
    stop();
}

std::unique_ptr<ToolRegistry> McpServer::buildTools(const Config &config)
{
    auto tools = std::make_unique<ToolRegistry>();
    tools->add(std::make_unique<StatusTool>(QStringLiteral(COUNTERSIGN_VERSION)));
    if (config.testFixtures())
        FixtureTools::addTo(*tools);
    return tools;
}

Result<quint16> McpServer::start()
{
    auto db = Database::open(m_databasePath);
    if (!db)
        return failure(db.error());
    m_database = std::move(db).value();
    m_clock = std::make_unique<SystemClock>();
    m_tokens = std::make_unique<TokenStore>(*m_database, *m_clock);
    m_tools = buildTools(m_config);
    m_dispatcher = std::make_unique<Dispatcher>(
        *m_tools, Dispatcher::ServerInfo{QStringLiteral("countersign"), QStringLiteral(COUNTERSIGN_VERSION),
                                         QStringLiteral("Countersign gates destructive tools behind a human's "
                                                        "approval in its desktop window.")});
    m_endpoint = std::make_unique<McpHttpEndpoint>(
        *m_dispatcher, [this](const QByteArray &token) { return m_tokens->authenticate(token); });
    m_http = new HttpServer(
        [this](const HttpRequest &request, HttpConnection::Responder respond) {
            const QByteArray path = request.target.split('?').first();
            if (path == "/mcp")
                return m_endpoint->serve(request, std::move(respond));
            respond(McpHttpEndpoint::refusal(404, -32000, QStringLiteral("Not Found")));
        },
        HttpConnection::Timeouts{}, this);
    return m_http->listen(m_config.listenHost(), m_config.listenPort());
}

void McpServer::stop()
{
    delete m_http;
    m_http = nullptr;
    m_endpoint.reset();
    m_dispatcher.reset();
    m_tools.reset();
    m_tokens.reset();
    m_database.reset();
}

} // namespace Countersign
