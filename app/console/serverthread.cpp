#include "serverthread.h"

#include "mcpserver.h"

namespace Countersign {

ServerThread::ServerThread(McpServer::Setup setup) : m_setup(std::move(setup))
{
    m_thread.setObjectName(QStringLiteral("countersign-server"));
}

ServerThread::~ServerThread()
{
    stop();
}

Result<quint16> ServerThread::start(const std::function<void(McpServer *)> &wire)
{
    m_server = new McpServer(m_setup);
    if (wire)
        wire(m_server);
    m_server->moveToThread(&m_thread);
    m_thread.start();
    Result<quint16> result = failure(QStringLiteral("server thread did not start"));
    QMetaObject::invokeMethod(
        m_server, [&] { result = m_server->start(); }, Qt::BlockingQueuedConnection);
    return result;
}

void ServerThread::stop()
{
    if (!m_thread.isRunning())
        return;
    if (m_server) {
        // Deleted in its own thread, where its sockets and database connection live.
        QMetaObject::invokeMethod(
            m_server, [this] { delete m_server; }, Qt::BlockingQueuedConnection);
        m_server = nullptr;
    }
    m_thread.quit();
    m_thread.wait();
}

} // namespace Countersign
