#pragma once

#include "principal.h"

#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class QThread;

namespace Countersign {

class Dispatcher;

// MCP over stdio: one JSON-RPC message per line on stdin, one per line on stdout, logs on stderr.
// Lines are read on a helper thread and dispatched on the thread that owns this object; EOF emits
// finished().
//
// Every line is served as the principal the authenticator names when it is handled. When it names
// none (the connection's token was revoked), that line is answered with -32000, nothing more is
// dispatched, refused() is emitted and finished() never is.
class StdioTransport final : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype kMaxLineBytes = 1024 * 1024;

    // Who the peer is now; asked again for every line. Nothing when its token is unknown or revoked.
    using Authenticator = std::function<std::optional<Principal>()>;

    StdioTransport(const Dispatcher &dispatcher, Authenticator authenticate, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(StdioTransport)
    // Stops the reader, even one waiting on a stdin that is still open.
    ~StdioTransport() override;

    void start();
    // Handles one line; write receives the reply line (with its newline), now or later, and is not
    // called when nothing is to be written. Replies to held calls may come out of order (by id).
    void handleLine(const QByteArray &line, std::function<void(QByteArray)> write);

Q_SIGNALS:
    void finished();
    // The authenticator named no principal; reason is what the peer was answered.
    void refused(const QString &reason);

private:
    const Dispatcher &m_dispatcher;
    Authenticator m_authenticate;
    bool m_refused = false;
    QThread *m_reader = nullptr;
    int m_wakeRead = -1; // the reader polls it beside stdin; the destructor writes to wake it
    int m_wakeWrite = -1;
};

} // namespace Countersign
