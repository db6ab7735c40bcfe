#pragma once

#include "principal.h"

#include <QObject>

#include <functional>
#include <memory>

class QThread;

namespace Countersign {

class Dispatcher;

// MCP over stdio: one JSON-RPC message per line on stdin, one per line on stdout, logs on stderr.
// Lines are read on a helper thread and dispatched on the thread that owns this object; EOF emits
// finished().
class StdioTransport final : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype kMaxLineBytes = 1024 * 1024;

    StdioTransport(const Dispatcher &dispatcher, Principal principal, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(StdioTransport)
    ~StdioTransport() override;

    void start();
    // Handles one line; write receives the reply line (with its newline), now or later, and is not
    // called when nothing is to be written. Replies to held calls may come out of order (by id).
    void handleLine(const QByteArray &line, std::function<void(QByteArray)> write) const;

Q_SIGNALS:
    void finished();

private:
    const Dispatcher &m_dispatcher;
    Principal m_principal;
    QThread *m_reader = nullptr;
};

} // namespace Countersign
