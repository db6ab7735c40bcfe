#pragma once

#include "principal.h"
#include "result.h"

#include <QObject>

#include <functional>
#include <optional>

class QLocalServer;
class QLocalSocket;

namespace Countersign {

class Dispatcher;
class LineSession;

// The console's door for `countersign --stdio` bridges: a local socket only its user can open. A
// bridge's first line is its hello, {"countersign":"bridge/1","token":"..."}, answered with
// {"ok":true,"connection":NAME} (or {"ok":false,"error":...} and the end of the connection); every
// line after that is a JSON-RPC message of the bridged client, served by a LineSession as that
// connection. The token is checked again for every line: revoking it ends the bridge.
class LocalEndpoint final : public QObject
{
    Q_OBJECT
public:
    static constexpr char kHelloVersion[] = "bridge/1";
    static constexpr int kHelloTimeoutMs = 10'000;

    using Authenticator = std::function<std::optional<Principal>(const QByteArray &token)>;

    LocalEndpoint(const Dispatcher &dispatcher, Authenticator authenticate, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(LocalEndpoint)
    ~LocalEndpoint() override;

    // Listens at path (a socket file left there by a console that died is replaced).
    Status listen(const QString &path);
    // Accepts no new bridge; those connected stay.
    void stopListening();

private:
    void accept();
    LineSession *open(QLocalSocket *peer, const QByteArray &hello);

    const Dispatcher &m_dispatcher;
    Authenticator m_authenticate;
    QLocalServer *m_server = nullptr;
};

} // namespace Countersign
