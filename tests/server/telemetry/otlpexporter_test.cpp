// The OTLP/HTTP exporter against a collector on a real loopback socket that answers as told: 200,
// a refusal, "try later", garbage, or nothing at all; and against no collector. Whatever it does,
// submit() returns at once, the queue stays bounded (drops counted) and the end is bounded.
#include "otlpexporter.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QThread>

using namespace Countersign;
using json = nlohmann::json;

namespace {

// A collector of one's own: reads each HTTP request (Content-Length bodies, keep-alive) and answers
// with the current `answer` (raw bytes; empty: never answers).
class FakeCollector final : public QObject
{
public:
    struct Request final
    {
        QByteArray head;
        json body;
    };
    QByteArray answer = ok();
    QList<Request> requests;

    static QByteArray ok()
    {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    }
    static QByteArray status(int code, const QByteArray &extra = {})
    {
        return "HTTP/1.1 " + QByteArray::number(code) + " X\r\nContent-Length: 0\r\n" + extra + "\r\n";
    }

    explicit FakeCollector(QObject *parent = nullptr) : QObject(parent)
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { read(socket); });
            }
        });
    }
    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(m_server.serverPort()));
    }
    int spanCount() const
    {
        int count = 0;
        for (const Request &r : requests)
            count += int(r.body["resourceSpans"][0]["scopeSpans"][0]["spans"].size());
        return count;
    }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = buffer.left(end);
            qsizetype length = 0;
            for (const QByteArray &line : head.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (buffer.size() < end + 4 + length)
                return;
            const QByteArray body = buffer.mid(end + 4, length);
            buffer.remove(0, end + 4 + length);
            requests.append({head, json::parse(body.toStdString(), nullptr, false)});
            if (!answer.isEmpty())
                socket->write(answer);
        }
    }

    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

OtlpSpan span(int i)
{
    OtlpSpan s;
    s.traceId = OtlpSpan::randomId(16);
    s.spanId = OtlpSpan::randomId(8);
    s.name = QStringLiteral("tools/call t%1").arg(i);
    s.startMs = 1000;
    s.endMs = 2000;
    return s;
}

OtlpExporter::Settings settings(const QUrl &endpoint)
{
    OtlpExporter::Settings s;
    s.endpoint = endpoint;
    s.headers = {{"Authorization", "Bearer t0ken"}};
    s.resource = {{QStringLiteral("service.name"), QStringLiteral("countersign-test")}};
    s.flushMs = 50;
    s.batchSize = 4;
    s.queueLimit = 16;
    s.timeoutMs = 300;
    s.maxPauseMs = 200;
    s.shutdownMs = 500;
    return s;
}

} // namespace

class OtlpExporterTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void delivers_inBatches_withItsHeaders()
    {
        FakeCollector collector;
        OtlpExporter exporter(settings(collector.url()));
        for (int i = 0; i < 10; ++i)
            exporter.submit(span(i));
        QTRY_COMPARE_WITH_TIMEOUT(collector.spanCount(), 10, 5000);
        QTRY_COMPARE(exporter.counters().exported, 10);
        QCOMPARE(exporter.counters().dropped, 0);
        QVERIFY(collector.requests.size() >= 3); // at most 4 a batch
        const QByteArray head = collector.requests.first().head.toLower();
        QVERIFY2(head.startsWith("post /v1/traces http/1.1"), head.constData());
        QVERIFY(head.contains("content-type: application/json"));
        QVERIFY(head.contains("authorization: bearer t0ken"));
        const json &first = collector.requests.first().body;
        QVERIFY(first["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"] ==
                "countersign-test");
    }
    void collectorDown_submitNeverWaits_theQueueDropsTheOldest_andTheEndIsBounded()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/v1/traces").arg(closed.serverPort()));
        closed.close();
        QElapsedTimer took;
        {
            auto exporter = std::make_unique<OtlpExporter>(settings(url));
            took.start();
            for (int i = 0; i < 100; ++i)
                exporter->submit(span(i));
            QVERIFY2(took.elapsed() < 100, "submit waited");
            // Beyond the queue of 16, less a batch or two the worker took meanwhile.
            QVERIFY(exporter->counters().dropped >= 70);
            QTest::qWait(300); // failing: tried again, never delivered
            QCOMPARE(exporter->counters().exported, 0);
            took.restart();
        }
        QVERIFY2(took.elapsed() < 2000, "the end waited on a collector that is not there");
    }
    void refusedBatch_isDropped_notTriedAgain()
    {
        FakeCollector collector;
        collector.answer = FakeCollector::status(400);
        OtlpExporter exporter(settings(collector.url()));
        for (int i = 0; i < 4; ++i)
            exporter.submit(span(i));
        QTRY_COMPARE_WITH_TIMEOUT(exporter.counters().dropped, 4, 5000);
        QTest::qWait(300);
        QCOMPARE(collector.requests.size(), 1);
        QCOMPARE(exporter.counters().exported, 0);
    }
    void tryLater_isTriedAgain_andDelivered()
    {
        FakeCollector collector;
        collector.answer = FakeCollector::status(503);
        OtlpExporter exporter(settings(collector.url()));
        for (int i = 0; i < 4; ++i)
            exporter.submit(span(i));
        QTRY_VERIFY_WITH_TIMEOUT(collector.requests.size() >= 2, 5000);
        collector.answer = FakeCollector::ok();
        QTRY_COMPARE_WITH_TIMEOUT(exporter.counters().exported, 4, 5000);
        QCOMPARE(exporter.counters().dropped, 0);
    }
    void garbageWith200_isDelivered_garbageWithoutAStatus_isTriedAgain()
    {
        FakeCollector collector;
        collector.answer = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n\x01{{{{\xff\xfe";
        OtlpExporter exporter(settings(collector.url()));
        exporter.submit(span(1));
        QTRY_COMPARE_WITH_TIMEOUT(exporter.counters().exported, 1, 5000);
        collector.answer = "NOT HTTP AT ALL\r\n\r\n";
        exporter.submit(span(2));
        QTRY_VERIFY_WITH_TIMEOUT(collector.requests.size() >= 3, 5000); // tried again
        QCOMPARE(exporter.counters().exported, 1);
    }
    void silentCollector_timesOut_andTheEndIsBounded()
    {
        FakeCollector collector;
        collector.answer.clear(); // reads, never answers
        QElapsedTimer took;
        {
            OtlpExporter exporter(settings(collector.url()));
            exporter.submit(span(1));
            QTRY_VERIFY_WITH_TIMEOUT(collector.requests.size() >= 2, 5000); // timed out, tried again
            QCOMPARE(exporter.counters().exported, 0);
            took.start();
        }
        QVERIFY2(took.elapsed() < 2000, "the end waited past its bound");
    }
    void atTheEnd_whatWaitsIsPosted()
    {
        FakeCollector collector;
        auto s = settings(collector.url());
        s.flushMs = 60'000; // no flush before the end
        s.batchSize = 100;
        // The collector answers from this thread's event loop, which the destructor's wait does
        // not run: the exporter is ended from another thread.
        auto exporter = std::make_shared<OtlpExporter>(s);
        for (int i = 0; i < 3; ++i)
            exporter->submit(span(i));
        QThread *ender = QThread::create([&exporter] { exporter.reset(); });
        ender->start();
        QTRY_VERIFY_WITH_TIMEOUT(ender->isFinished(), 5000);
        delete ender;
        QCOMPARE(collector.spanCount(), 3);
    }
};

QTEST_GUILESS_MAIN(OtlpExporterTest)
#include "otlpexporter_test.moc"
