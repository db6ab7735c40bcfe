#pragma once

#include "otlpspan.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrl>

#include <memory>

class QThread;

namespace Countersign {

// Posts finished spans to an OTLP/HTTP collector (JSON encoding) from a thread of its own, so that
// a collector that is down, slow or answering garbage never holds up a call: submit() only puts
// the span in a bounded queue (full: the oldest span is dropped, and counted). A batch goes every
// flushMs, or as soon as batchSize spans wait; one POST at a time, aborted after timeoutMs,
// redirects not followed (the headers go to the endpoint only). A batch the collector may take
// later (no answer, 429, 502, 503, 504) goes back to the queue and is tried again after a pause
// that grows with each failure (or the collector's Retry-After); one it refused (any other status)
// is dropped, counted. Whether export works is logged when that changes, never per span.
class OtlpExporter final
{
public:
    struct Settings final
    {
        QUrl endpoint;
        QList<QPair<QByteArray, QByteArray>> headers;
        QList<OtlpSpan::Attribute> resource; // service.name and the like
        QString scopeName = QStringLiteral("countersign");
        QString scopeVersion;
        int flushMs = 1000;
        int batchSize = 256;
        int queueLimit = 2048;
        int timeoutMs = 5000;
        int maxPauseMs = 30'000;
        // How long the destructor may spend posting what still waits.
        int shutdownMs = 2000;
    };
    struct Counters final
    {
        qint64 exported = 0; // taken by the collector
        qint64 dropped = 0;  // never delivered: out of a full queue, refused, or still queued at the end
    };

    explicit OtlpExporter(Settings settings);
    Q_DISABLE_COPY_MOVE(OtlpExporter)
    // Posts what still waits, for at most shutdownMs, counts the rest as dropped (logged when
    // any was), and ends the thread.
    ~OtlpExporter();

    // From any thread; never blocks on the network.
    void submit(OtlpSpan span);
    Counters counters() const;

private:
    class Worker;
    struct Queue;
    std::shared_ptr<Queue> m_queue;
    std::unique_ptr<QThread> m_thread;
    Worker *m_worker = nullptr; // lives in m_thread; deleted there as it ends
};

} // namespace Countersign
