#include "otlpexporter.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <deque>

Q_LOGGING_CATEGORY(lcExport, "countersign.otlp")

namespace Countersign {

// The spans waiting, shared by submit() (any thread) and the worker (its thread).
struct OtlpExporter::Queue final
{
    Queue(int maxSpans, int batchSpans) : limit(std::max(1, maxSpans)), batchSize(std::max(1, batchSpans)) {}

    const int limit;
    const int batchSize;
    mutable QMutex mutex;
    std::deque<OtlpSpan> spans;
    Counters counters;
    bool poked = false;    // a send is already on its way to the worker
    bool dropSaid = false; // a full queue was logged since export last worked

    // Takes up to batchSize spans, oldest first.
    QList<OtlpSpan> take()
    {
        QMutexLocker lock(&mutex);
        QList<OtlpSpan> batch;
        while (!spans.empty() && batch.size() < batchSize) {
            batch.append(std::move(spans.front()));
            spans.pop_front();
        }
        poked = false;
        return batch;
    }
    // A batch to try again goes back in front, as far as the limit lets it.
    void putBack(QList<OtlpSpan> batch)
    {
        QMutexLocker lock(&mutex);
        for (auto it = batch.rbegin(); it != batch.rend(); ++it)
            spans.push_front(std::move(*it));
        while (int(spans.size()) > limit) {
            spans.pop_front();
            ++counters.dropped;
        }
    }
    void delivered(qint64 count)
    {
        QMutexLocker lock(&mutex);
        counters.exported += count;
        dropSaid = false;
    }
    void lost(qint64 count)
    {
        QMutexLocker lock(&mutex);
        counters.dropped += count;
    }
    qsizetype waiting() const
    {
        QMutexLocker lock(&mutex);
        return qsizetype(spans.size());
    }
};

// The network side, in the exporter's thread.
class OtlpExporter::Worker final : public QObject
{
public:
    Worker(Settings settings, std::shared_ptr<Queue> queue)
        : m_settings(std::move(settings)), m_queue(std::move(queue)),
          m_where(m_settings.endpoint.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery))
    {
        m_since.start();
    }

    // In the thread: the network access manager and the flush timer are made there.
    void start()
    {
        m_network = new QNetworkAccessManager(this);
        m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        m_tick = new QTimer(this);
        m_tick->setInterval(std::max(1, m_settings.flushMs));
        connect(m_tick, &QTimer::timeout, this, &Worker::send);
        m_tick->start();
    }

    // Posts the next batch unless one is in flight or the collector is being left alone a while.
    void send()
    {
        if (m_inFlight || !m_network)
            return;
        if (!m_finishing && m_since.elapsed() < m_pausedUntilMs)
            return;
        QList<OtlpSpan> batch = m_queue->take();
        if (batch.isEmpty()) {
            if (m_finishing)
                end();
            return;
        }
        QNetworkRequest request(m_settings.endpoint);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        for (const auto &[name, value] : m_settings.headers)
            request.setRawHeader(name, value);
        const QByteArray body = QByteArray::fromStdString(
            OtlpSpan::exportRequest(batch, m_settings.resource, m_settings.scopeName, m_settings.scopeVersion)
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        QNetworkReply *reply = m_network->post(request, body);
        m_inFlight = qsizetype(batch.size());
        // The answer's body says nothing the exporter needs: it is read and forgotten as it comes,
        // so a collector streaming garbage costs no memory, and the timeout bounds the time.
        connect(reply, &QNetworkReply::readyRead, reply, [reply] { reply->skip(reply->bytesAvailable()); });
        int timeoutMs = m_settings.timeoutMs;
        if (m_finishing)
            timeoutMs = int(std::clamp<qint64>(m_deadline.remainingTime(), 1, timeoutMs));
        QTimer::singleShot(timeoutMs, reply, [reply] {
            reply->setProperty("countersign.timedOut", true);
            reply->abort();
        });
        connect(reply, &QNetworkReply::finished, this,
                [this, reply, batch = std::move(batch)]() mutable { answered(reply, std::move(batch)); });
    }

    // Quitting: what waits is posted back to back (no pause) until the queue is empty, the
    // collector fails, or the deadline passes; then the thread ends.
    void finish()
    {
        m_finishing = true;
        m_deadline = QDeadlineTimer(std::max(0, m_settings.shutdownMs));
        if (m_tick)
            m_tick->stop();
        QTimer::singleShot(std::max(0, m_settings.shutdownMs), this, &Worker::end);
        send();
    }

private:
    void answered(QNetworkReply *reply, QList<OtlpSpan> batch)
    {
        reply->deleteLater();
        m_inFlight = 0;
        if (m_ended)
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status >= 200 && status < 300) {
            m_queue->delivered(batch.size());
            m_failures = 0;
            m_pausedUntilMs = 0;
            report(true, QString());
            return next();
        }
        const bool timedOut = reply->property("countersign.timedOut").toBool();
        const bool retry = status == 0 || status == 429 || status == 502 || status == 503 || status == 504;
        QString problem;
        if (timedOut)
            problem = QStringLiteral("no answer within %1 ms").arg(m_settings.timeoutMs);
        else if (status != 0)
            problem = QStringLiteral("HTTP %1").arg(status);
        else
            problem = reply->errorString().replace(m_settings.endpoint.toString(), m_where);
        if (retry && !m_finishing) {
            m_queue->putBack(std::move(batch));
            ++m_failures;
            qint64 pause = qint64(std::max(1, m_settings.flushMs)) << std::min(m_failures, 5);
            bool given = false;
            const int retryAfter = reply->rawHeader("Retry-After").toInt(&given);
            if (given && retryAfter > 0)
                pause = qint64(retryAfter) * 1000;
            m_pausedUntilMs = m_since.elapsed() + std::min<qint64>(pause, m_settings.maxPauseMs);
        } else {
            m_queue->lost(batch.size());
        }
        report(false, retry ? problem : problem + QStringLiteral(", those spans are dropped"));
        if (m_finishing && retry)
            return end(); // the collector is not taking anything now: no point in trying until the deadline
        next();
    }

    void next()
    {
        if (m_finishing)
            return send();
        if (m_queue->waiting() >= m_queue->batchSize)
            QTimer::singleShot(0, this, &Worker::send);
    }

    // Logged when delivery starts working, stops working, or fails differently.
    void report(bool working, const QString &problem)
    {
        if (m_said && working == m_working && problem == m_problem)
            return;
        const bool first = !m_said;
        m_said = true;
        m_working = working;
        m_problem = problem;
        const Counters counters = currentCounters();
        if (working && !first)
            qCInfo(lcExport, "%s",
                   qPrintable(QStringLiteral("OTLP export to %1 delivers again; %2 spans dropped so far")
                                  .arg(m_where)
                                  .arg(counters.dropped)));
        else if (!working)
            qCWarning(
                lcExport, "%s",
                qPrintable(QStringLiteral("OTLP export to %1 fails: %2 (calls are not affected; up to %3 "
                                          "spans wait and are tried again, the oldest dropped beyond "
                                          "that; %4 dropped so far)")
                               .arg(m_where, problem)
                               .arg(m_queue->limit)
                               .arg(counters.dropped)));
    }

    Counters currentCounters() const
    {
        QMutexLocker lock(&m_queue->mutex);
        return m_queue->counters;
    }

    void end()
    {
        if (m_ended)
            return;
        m_ended = true;
        qint64 left = m_inFlight;
        {
            QMutexLocker lock(&m_queue->mutex);
            left += qint64(m_queue->spans.size());
            m_queue->spans.clear();
            m_queue->counters.dropped += left;
        }
        const Counters counters = currentCounters();
        if (counters.dropped > 0)
            qCWarning(
                lcExport, "%s",
                qPrintable(QStringLiteral("OTLP export to %1 ends: spans delivered %2, dropped %3 (%4 of "
                                          "them still waiting at the end)")
                               .arg(m_where)
                               .arg(counters.exported)
                               .arg(counters.dropped)
                               .arg(left)));
        thread()->quit();
    }

    const Settings m_settings;
    const std::shared_ptr<Queue> m_queue;
    const QString m_where; // the endpoint as logs show it: no query, no user name
    QNetworkAccessManager *m_network = nullptr;
    QTimer *m_tick = nullptr;
    QElapsedTimer m_since;
    qint64 m_pausedUntilMs = 0;
    qsizetype m_inFlight = 0; // spans in the POST under way
    int m_failures = 0;
    bool m_said = false;
    bool m_working = false;
    QString m_problem;
    bool m_finishing = false;
    bool m_ended = false;
    QDeadlineTimer m_deadline;
};

OtlpExporter::OtlpExporter(Settings settings)
    : m_queue(std::make_shared<Queue>(settings.queueLimit, settings.batchSize)),
      m_thread(std::make_unique<QThread>())
{
    m_thread->setObjectName(QStringLiteral("countersign-otlp"));
    m_worker = new Worker(std::move(settings), m_queue);
    m_worker->moveToThread(m_thread.get());
    QObject::connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread->start();
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker] { worker->start(); }, Qt::QueuedConnection);
}

OtlpExporter::~OtlpExporter()
{
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker] { worker->finish(); }, Qt::QueuedConnection);
    // The worker ends the thread by its deadline; the margin covers a thread slow to be scheduled.
    if (!m_thread->wait(QDeadlineTimer(10'000))) {
        m_thread->quit();
        m_thread->wait();
    }
}

void OtlpExporter::submit(OtlpSpan span)
{
    bool poke = false;
    bool full = false;
    {
        QMutexLocker lock(&m_queue->mutex);
        m_queue->spans.push_back(std::move(span));
        if (int(m_queue->spans.size()) > m_queue->limit) {
            m_queue->spans.pop_front();
            ++m_queue->counters.dropped;
            full = !m_queue->dropSaid;
            m_queue->dropSaid = true;
        }
        if (int(m_queue->spans.size()) >= m_queue->batchSize && !m_queue->poked) {
            m_queue->poked = true;
            poke = true;
        }
    }
    if (full)
        qCWarning(lcExport,
                  "OTLP export: the queue of %d spans is full; the oldest are dropped (and counted) "
                  "until the collector takes them",
                  m_queue->limit);
    if (poke)
        QMetaObject::invokeMethod(
            m_worker, [worker = m_worker] { worker->send(); }, Qt::QueuedConnection);
}

OtlpExporter::Counters OtlpExporter::counters() const
{
    QMutexLocker lock(&m_queue->mutex);
    return m_queue->counters;
}

} // namespace Countersign
