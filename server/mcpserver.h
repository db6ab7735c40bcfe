#pragma once

#include "config.h"
#include "result.h"

#include <QObject>

#include <memory>

namespace Countersign {

class Database;
class Dispatcher;
class HttpServer;
class McpHttpEndpoint;
class SystemClock;
class TokenStore;
class ToolRegistry;

// The server side composed: its own database connection, the tools, the dispatcher and the HTTP
// listener. Lives in (and must be started from) the server thread.
class McpServer final : public QObject
{
    Q_OBJECT
public:
    McpServer(Config config, QString databasePath, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(McpServer)
    ~McpServer() override;

    // Opens the database and listens. Returns the bound port.
    Result<quint16> start();
    // Stops listening and closes the database (call in the server thread before it ends).
    void stop();

    static std::unique_ptr<ToolRegistry> buildTools(const Config &config);

private:
    Config m_config;
    QString m_databasePath;
    std::unique_ptr<SystemClock> m_clock;
    std::unique_ptr<Database> m_database;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<ToolRegistry> m_tools;
    std::unique_ptr<Dispatcher> m_dispatcher;
    std::unique_ptr<McpHttpEndpoint> m_endpoint;
    HttpServer *m_http = nullptr;
};

} // namespace Countersign
