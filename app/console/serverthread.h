#pragma once

#include "mcpserver.h"
#include "result.h"

#include <QThread>

#include <functional>

namespace Countersign {

// Runs the McpServer in its own thread: start() blocks until it listens (or failed), stop() ends it.
class ServerThread final
{
public:
    explicit ServerThread(McpServer::Setup setup);
    Q_DISABLE_COPY_MOVE(ServerThread)
    ~ServerThread();

    // wire runs before the server listens, to connect its signals (queued: it lives in the server
    // thread) so that no signal is emitted before anyone listens.
    Result<quint16> start(const std::function<void(McpServer *)> &wire = {});
    void stop();
    // The server (it lives in the server thread); null before start() and after stop().
    McpServer *server() const { return m_server; }

private:
    McpServer::Setup m_setup;
    QThread m_thread;
    McpServer *m_server = nullptr;
};

} // namespace Countersign
