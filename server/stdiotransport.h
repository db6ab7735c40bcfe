#pragma once

#include "principal.h"

#include <QObject>

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
    // Handles one line and returns what to write (empty when nothing is to be written).
    QByteArray handleLine(const QByteArray &line) const;

Q_SIGNALS:
    void finished();

private:
    const Dispatcher &m_dispatcher;
    Principal m_principal;
    QThread *m_reader = nullptr;
};

} // namespace Countersign
