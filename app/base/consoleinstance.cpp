#include "consoleinstance.h"

#include "localendpoint.h"
#include "socketpaths.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QRegularExpression>

#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

namespace {

constexpr int kAskTimeoutMs = 2000;
// One line each way: what the later start asks, and what the console answers.
constexpr char kRaise[] = "raise\n";
constexpr char kRaised[] = "raised\n";
constexpr char kUrl[] = "url\n"; // answered with the /mcp URL and a newline

} // namespace

ConsoleInstance::ConsoleInstance(const QString &lockPath) : m_lock(lockPath)
{
    m_lock.setStaleLockTime(0); // stale only when its process is gone, however old
}

ConsoleInstance::~ConsoleInstance()
{
    if (m_server)
        m_server->close();
}

QString ConsoleInstance::socketPath(const QString &dataDir)
{
    return SocketPaths::console(dataDir);
}

QString ConsoleInstance::bridgePath(const QString &dataDir)
{
    return SocketPaths::bridge(dataDir);
}

QString ConsoleInstance::runningUrl(const QString &dataDir)
{
    QLocalSocket socket;
    socket.connectToServer(socketPath(dataDir));
    if (!socket.waitForConnected(kAskTimeoutMs))
        return {};
    socket.write(kUrl);
    if (!socket.waitForBytesWritten(kAskTimeoutMs))
        return {};
    while (!socket.canReadLine()) {
        if (!socket.waitForReadyRead(kAskTimeoutMs) && !socket.canReadLine())
            return {};
    }
    if (const auto owner = LocalEndpoint::peerUid(socket.socketDescriptor()); !owner || *owner != ::getuid())
        return {};
    const QString url = QString::fromUtf8(socket.readLine()).trimmed();
    static const QRegularExpression loopback(QStringLiteral("^http://127\\.0\\.0\\.1:[0-9]{1,5}/mcp$"));
    return loopback.match(url).hasMatch() ? url : QString();
}

Result<std::unique_ptr<ConsoleInstance>> ConsoleInstance::claim(const QString &dataDir, QString *elsewhere)
{
    if (!QDir().mkpath(dataDir))
        return failure(QStringLiteral("cannot create the data folder %1").arg(dataDir));
    std::unique_ptr<ConsoleInstance> instance(
        new ConsoleInstance(QDir(dataDir).filePath(QStringLiteral("console.lock"))));
    if (!instance->m_lock.tryLock(0)) {
        if (instance->m_lock.error() != QLockFile::LockFailedError)
            return failure(QStringLiteral("cannot lock the data folder %1 (console.lock)").arg(dataDir));
        qint64 pid = 0;
        QString host, app;
        instance->m_lock.getLockInfo(&pid, &host, &app);
        QLocalSocket socket;
        socket.connectToServer(socketPath(dataDir));
        bool raised = false;
        if (socket.waitForConnected(kAskTimeoutMs)) {
            socket.write(kRaise);
            raised = socket.waitForBytesWritten(kAskTimeoutMs) && socket.waitForReadyRead(kAskTimeoutMs) &&
                     socket.readLine() == kRaised;
        }
        *elsewhere = QStringLiteral("a Countersign console for %1 is already running (pid %2)%3")
                         .arg(QDir(dataDir).absolutePath())
                         .arg(pid)
                         .arg(raised ? QStringLiteral("; it was asked to show its window")
                                     : QStringLiteral("; it did not answer"));
        return std::unique_ptr<ConsoleInstance>();
    }
    // The lock is ours: a socket file left by a console that died is no one's.
    const QString path = socketPath(dataDir);
    if (path.isEmpty())
        return failure(
            QStringLiteral("neither $XDG_RUNTIME_DIR nor /tmp/countersign-%1 is a folder of this user "
                           "closed to others, so the console has no safe place for its socket")
                .arg(::getuid()));
    QLocalServer::removeServer(path);
    instance->m_server = new QLocalServer(instance.get());
    instance->m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!instance->m_server->listen(path))
        return failure(
            QStringLiteral("cannot listen on %1: %2").arg(path, instance->m_server->errorString()));
    ConsoleInstance *self = instance.get();
    connect(self->m_server, &QLocalServer::newConnection, self, [self] {
        while (QLocalSocket *peer = self->m_server->nextPendingConnection()) {
            connect(peer, &QLocalSocket::disconnected, peer, &QObject::deleteLater);
            if (const auto uid = LocalEndpoint::peerUid(peer->socketDescriptor());
                !uid || *uid != ::getuid()) {
                peer->abort(); // only this user's later starts may ask
                continue;
            }
            connect(peer, &QLocalSocket::readyRead, self, [self, peer] {
                if (!peer->canReadLine()) {
                    if (peer->bytesAvailable() > 64)
                        peer->abort(); // not a line this console knows
                    return;
                }
                const QByteArray asked = peer->readLine(65);
                if (asked == kRaise) {
                    Q_EMIT self->raiseRequested();
                    peer->write(kRaised);
                } else if (asked == kUrl) {
                    peer->write(self->m_url.toUtf8() + '\n');
                }
                peer->flush();
                peer->disconnectFromServer();
            });
        }
    });
    return instance;
}

} // namespace Countersign
