#pragma once

#include "principal.h"
#include "result.h"

#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

#include <sys/types.h>

class QLocalServer;
class QLocalSocket;

namespace Countersign {

class Dispatcher;
class LineSession;

// The console's door for `countersign --stdio` bridges: a local socket only its user can open (and
// a peer of another user, by its credentials, is refused). A
// bridge's first line is its hello, {"countersign":"bridge/1","token":"..."}, answered with
// {"ok":true,"connection":NAME} (or {"ok":false,"error":...} and the end of the connection); every
// line after that is a JSON-RPC message of the bridged client, served by a LineSession as that
// connection. The token is checked again for every line: revoking it ends the bridge.
class LocalEndpoint final : public QObject
{
    Q_OBJECT
public:
    static constexpr char kHelloVersion[] = "bridge/1";
    // A `countersign hook CLIENT` shim's hello and payload: HookWire (shared/setup/hookwire.h).
    using HookHandler =
        std::function<void(const QString &client, const Principal &who, const QByteArray &payload,
                           std::function<void(const QByteArray &answerLine)> answer)>;
    void setHookHandler(HookHandler handler) { m_hooks = std::move(handler); }
    static constexpr int kHelloTimeoutMs = 10'000;
    static constexpr qsizetype kMaxHelloBytes = 4096;
    // Connections not yet past their hello; more are refused until those end.
    static constexpr int kMaxUngreeted = 32;
    // Answers a peer has not read yet; past this the connection is ended (it does not read).
    static constexpr qint64 kMaxUnreadBytes = 16 * 1024 * 1024;

    // The user id of the process at the other end of a local socket; none when it cannot be read.
    static std::optional<uid_t> peerUid(qintptr socketDescriptor);

    using Authenticator = std::function<std::optional<Principal>(const QByteArray &token)>;

    LocalEndpoint(const Dispatcher &dispatcher, Authenticator authenticate, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(LocalEndpoint)
    ~LocalEndpoint() override;

    // Listens at path (a socket file left there by a console that died is replaced).
    Status listen(const QString &path);
    // Accepts no new bridge; those connected stay.
    void stopListening();
    // Tells every bridged session that the tools changed (LineSession::notifyToolsChanged).
    void notifyToolsChanged();

private:
    void accept();
    LineSession *open(QLocalSocket *peer, const QByteArray &hello);
    struct Bridge;
    bool openHook(QLocalSocket *peer, const QByteArray &hello, Bridge &bridge);

    const Dispatcher &m_dispatcher;
    Authenticator m_authenticate;
    QLocalServer *m_server = nullptr;
    int m_ungreeted = 0;
    QList<QPointer<LineSession>> m_sessions; // the bridges' sessions (gone ones are null)
    HookHandler m_hooks;
};

} // namespace Countersign
