#pragma once

#include "config.h"
#include "result.h"

#include <QThread>

namespace Countersign {

class McpServer;

// Runs the McpServer in its own thread: start() blocks until it listens (or failed), stop() ends it.
class ServerThread final
{
public:
    ServerThread(Config config, QString databasePath);
    Q_DISABLE_COPY_MOVE(ServerThread)
    ~ServerThread();

    Result<quint16> start();
    void stop();

private:
    Config m_config;
    QString m_databasePath;
    QThread m_thread;
    McpServer *m_server = nullptr;
};

} // namespace Countersign
