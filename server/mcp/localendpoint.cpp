#include "localendpoint.h"

#include "hookwire.h"
#include "jsonbody.h"
#include "jsonrpc.h"
#include "linesession.h"

#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <utility>

#include <sys/socket.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcLocal, "countersign.local")

namespace Countersign {

namespace {

QByteArray line(const nlohmann::json &message)
{
    return JsonRpc::encode(message) + '\n';
}

// The hello's token, or why there is none; client is set for a hook shim's hello.
Result<QByteArray> helloToken(const QByteArray &hello, QString *hookClient = nullptr)
{
    auto parsed = JsonBody::parse(hello);
    if (!parsed || !parsed.value().is_object())
        return failure(QStringLiteral("the first line must be the bridge's hello (a JSON object)"));
    const nlohmann::json &h = parsed.value();
    const auto version = h.find("countersign");
    if (hookClient && version != h.end() && *version == HookWire::kHello) {
        const auto client = h.find("client");
        if (client == h.end() || !client->is_string() || client->get_ref<const std::string &>().size() > 64)
            return failure(QStringLiteral("the hook's hello names no client"));
        *hookClient = QString::fromStdString(client->get<std::string>());
    } else if (version == h.end() || *version != LocalEndpoint::kHelloVersion)
        return failure(QStringLiteral("this console speaks %1; update countersign --stdio to this console's "
                                      "version")
                           .arg(QLatin1String(LocalEndpoint::kHelloVersion)));
    const auto token = h.find("token");
    if (token == h.end() || !token->is_string() || token->get_ref<const std::string &>().empty())
        return failure(QStringLiteral("the hello carries no token"));
    return QByteArray::fromStdString(token->get<std::string>());
}

} // namespace

// What a bridge's connection holds between reads.
struct LocalEndpoint::Bridge final
{
    QPointer<LineSession> session; // after the hello
    QByteArray pending;            // the start of a line not yet ended
    bool skipping = false;         // dropping the rest of a line refused as too long
    // A hook shim's connection (hello "hook/1"): its one payload line, answered with one line.
    std::optional<Principal> hookPrincipal;
    QString hookClient;
    bool hookAsked = false;
    // Refused and said so: what else comes is dropped unread until the peer goes (closing on unread
    // bytes would reset the connection, and the peer could lose the refusal).
    bool ended = false;
};

std::optional<uid_t> LocalEndpoint::peerUid(qintptr socketDescriptor)
{
    ucred credentials = {};
    socklen_t size = sizeof credentials;
    if (socketDescriptor < 0 ||
        ::getsockopt(int(socketDescriptor), SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0)
        return std::nullopt;
    return credentials.uid;
}

LocalEndpoint::LocalEndpoint(const Dispatcher &dispatcher, Authenticator authenticate, QObject *parent)
    : QObject(parent), m_dispatcher(dispatcher), m_authenticate(std::move(authenticate))
{
}

LocalEndpoint::~LocalEndpoint()
{
    stopListening();
}

Status LocalEndpoint::listen(const QString &path)
{
    QLocalServer::removeServer(path);
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(path))
        return failure(QStringLiteral("cannot listen on %1: %2").arg(path, m_server->errorString()));
    connect(m_server, &QLocalServer::newConnection, this, &LocalEndpoint::accept);
    qCInfo(lcLocal) << "bridges connect at" << path;
    return success();
}

void LocalEndpoint::stopListening()
{
    if (m_server)
        m_server->close();
}

// A bridge's hello: its session, or the refusal sent and the connection ended (null).
void LocalEndpoint::notifyToolsChanged()
{
    m_sessions.removeAll(nullptr);
    for (const QPointer<LineSession> &session : std::as_const(m_sessions))
        session->notifyToolsChanged();
}

LineSession *LocalEndpoint::open(QLocalSocket *peer, const QByteArray &hello)
{
    auto token = helloToken(hello);
    const std::optional<Principal> principal =
        token ? m_authenticate(token.value()) : std::optional<Principal>();
    if (!principal) {
        const QString why = token ? QStringLiteral("the token is unknown or revoked") : token.error();
        peer->write(line({{"ok", false}, {"error", why.toStdString()}}));
        peer->disconnectFromServer();
        return nullptr;
    }
    qCInfo(lcLocal) << "stdio bridge for" << principal->name;
    auto *session = new LineSession(
        m_dispatcher,
        [this, token = token.value(), id = principal->connectionId] {
            auto now = m_authenticate(token);
            return now && now->connectionId == id ? now : std::optional<Principal>();
        },
        [socket = QPointer<QLocalSocket>(peer)](const QByteArray &out) {
            if (!socket || socket->state() != QLocalSocket::ConnectedState)
                return;
            if (socket->bytesToWrite() > kMaxUnreadBytes) // a peer that does not read: not buffered for
                return socket->abort();
            socket->write(out);
        },
        peer);
    peer->write(line({{"ok", true}, {"connection", principal->name.toStdString()}}));
    m_sessions.removeAll(nullptr);
    m_sessions.append(session);
    return session;
}

// A hook shim's hello: true when it was one (accepted, or refused and ended), false for a bridge's.
bool LocalEndpoint::openHook(QLocalSocket *peer, const QByteArray &hello, Bridge &bridge)
{
    QString client;
    auto token = helloToken(hello, &client);
    if (client.isEmpty())
        return false;
    const std::optional<Principal> principal =
        token && m_hooks ? m_authenticate(token.value()) : std::optional<Principal>();
    if (!principal) {
        const QString why = !m_hooks ? QStringLiteral("this console takes no hooks")
                            : token  ? QStringLiteral("the token is unknown or revoked")
                                     : token.error();
        peer->write(line({{"ok", false}, {"error", why.toStdString()}}));
        bridge.ended = true;
        QTimer::singleShot(kHelloTimeoutMs, peer, [peer] { peer->abort(); }); // a peer that stays
        return true;
    }
    bridge.hookPrincipal = principal;
    bridge.hookClient = client;
    return true;
}

// Each bridge: its hello within kHelloTimeoutMs, then its lines, each handed to its LineSession.
void LocalEndpoint::accept()
{
    while (QLocalSocket *peer = m_server->nextPendingConnection()) {
        connect(peer, &QLocalSocket::disconnected, peer, &QObject::deleteLater);
        const auto uid = peerUid(peer->socketDescriptor());
        if (!uid || *uid != ::getuid() || m_ungreeted >= kMaxUngreeted) {
            qCInfo(lcLocal) << "refused a local connection" << (uid ? *uid : -1) << m_ungreeted;
            peer->abort();
            continue;
        }
        ++m_ungreeted;
        // Counted until its hello is read (or it goes first).
        auto greeted = std::make_shared<bool>(false);
        connect(peer, &QObject::destroyed, this, [this, greeted] {
            if (!*greeted)
                --m_ungreeted;
        });
        auto *helloTimer = new QTimer(peer);
        helloTimer->setSingleShot(true);
        connect(helloTimer, &QTimer::timeout, peer, [peer] { peer->abort(); });
        helloTimer->start(kHelloTimeoutMs);
        auto bridge = std::make_shared<Bridge>();
        connect(peer, &QLocalSocket::readyRead, peer, [this, peer, helloTimer, bridge, greeted] {
            if (bridge->ended) {
                peer->readAll();
                return;
            }
            bridge->pending += peer->readAll();
            qsizetype end;
            while ((end = bridge->pending.indexOf('\n')) >= 0) {
                const QByteArray message = bridge->pending.left(end);
                bridge->pending.remove(0, end + 1);
                if (std::exchange(bridge->skipping, false))
                    continue;                // the end of a line refused as too long
                if (bridge->hookPrincipal) { // a hook shim's payload: one answer, then the end
                    if (std::exchange(bridge->hookAsked, true))
                        return peer->abort();
                    m_hooks(bridge->hookClient, *bridge->hookPrincipal, message,
                            [socket = QPointer<QLocalSocket>(peer)](const QByteArray &answer) {
                                if (!socket || socket->state() != QLocalSocket::ConnectedState)
                                    return;
                                socket->write(answer + '\n');
                                socket->disconnectFromServer();
                            });
                    continue;
                }
                if (!bridge->session) {
                    helloTimer->stop();
                    *greeted = true;
                    --m_ungreeted;
                    if (openHook(peer, message, *bridge)) {
                        if (bridge->ended) { // refused: said so, and ending
                            bridge->pending.clear();
                            return;
                        }
                        continue;
                    }
                    if (!(bridge->session = open(peer, message)))
                        return;
                    continue;
                }
                bridge->session->handleLine(message);
                if (bridge->session->isRefused())
                    return peer->disconnectFromServer();
            }
            if (bridge->hookPrincipal) {
                if (bridge->pending.size() > qsizetype(HookWire::kMaxConnectionBytes))
                    return peer->abort(); // the shim refuses larger payloads itself
                return;
            }
            if (!bridge->session && bridge->pending.size() > kMaxHelloBytes)
                return peer->abort(); // no hello is that long
            if (bridge->pending.size() > LineSession::kMaxLineBytes && !bridge->skipping) {
                // Refused whole, never cut: the rest of the line is dropped as it arrives.
                bridge->session->handleLine(bridge->pending);
                bridge->skipping = true;
            }
            if (bridge->skipping)
                bridge->pending.clear();
        });
    }
}

} // namespace Countersign
