#include "httpparser.h"
#include "httpresponse.h"

#include <QTest>

using namespace Countersign;

namespace {
QByteArray post(const QByteArray &body, const QByteArray &extra = {})
{
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extra +
           "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}
} // namespace

class HttpParserTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void feed_wholeRequest_isComplete()
    {
        HttpParser p;
        QCOMPARE(p.feed(post("{}", "Mcp-Method: tools/list\r\n")), HttpParser::State::Complete);
        const HttpRequest r = p.takeRequest();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.target, QByteArray("/mcp"));
        QCOMPARE(r.body, QByteArray("{}"));
        QCOMPARE(r.header("mcp-method").value_or(""), QByteArray("tools/list"));
        QVERIFY(r.keepAlive);
    }
    void feed_byteByByte_isComplete()
    {
        HttpParser p;
        const QByteArray all = post(R"({"a":1})");
        for (qsizetype i = 0; i + 1 < all.size(); ++i)
            QCOMPARE(p.feed(all.mid(i, 1)), HttpParser::State::NeedMore);
        QCOMPARE(p.feed(all.right(1)), HttpParser::State::Complete);
        QCOMPARE(p.takeRequest().body, QByteArray(R"({"a":1})"));
    }
    void feed_pipelined_givesBothInOrder()
    {
        HttpParser p;
        QCOMPARE(p.feed(post("1") + post("22")), HttpParser::State::Complete);
        QCOMPARE(p.takeRequest().body, QByteArray("1"));
        QCOMPARE(p.feed({}), HttpParser::State::Complete);
        QCOMPARE(p.takeRequest().body, QByteArray("22"));
        QCOMPARE(p.feed({}), HttpParser::State::NeedMore);
        QVERIFY(!p.hasBufferedBytes());
    }
    void feed_connectionClose_isNotKeptAlive()
    {
        HttpParser p;
        QCOMPARE(p.feed(post("{}", "Connection: close\r\n")), HttpParser::State::Complete);
        QVERIFY(!p.takeRequest().keepAlive);
    }
    void feed_get_needsNoBody()
    {
        HttpParser p;
        QCOMPARE(p.feed("GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n"), HttpParser::State::Complete);
        QCOMPARE(p.takeRequest().method, QByteArray("GET"));
    }
    void feed_hostile_isRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::newRow("body over 1 MiB, refused from the header")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n") << 413;
        QTest::newRow("chunked") << QByteArray(
                                        "POST /mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                                 << 501;
        QTest::newRow("CL and TE")
            << QByteArray(
                   "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n")
            << 501;
        QTest::newRow("two Content-Length")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n")
            << 400;
        QTest::newRow("two Host")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\nContent-Length: 0\r\n\r\n") << 400;
        QTest::newRow("two Mcp-Method")
            << QByteArray("POST /mcp HTTP/1.1\r\nMcp-Method: a\r\nMcp-Method: b\r\nContent-Length: 0\r\n\r\n")
            << 400;
        QTest::newRow("signed length")
            << QByteArray("POST /mcp HTTP/1.1\r\nContent-Length: +2\r\n\r\n") << 400;
        QTest::newRow("hex length") << QByteArray("POST /mcp HTTP/1.1\r\nContent-Length: 0x2\r\n\r\n") << 400;
        QTest::newRow("no length on POST") << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n") << 411;
        QTest::newRow("folded header")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\n b\r\nContent-Length: 0\r\n\r\n") << 400;
        QTest::newRow("space before colon")
            << QByteArray("POST /mcp HTTP/1.1\r\nContent-Length : 0\r\n\r\n") << 400;
        QTest::newRow("bare LF") << QByteArray("POST /mcp HTTP/1.1\nHost: a\r\nContent-Length: 0\r\n\r\n")
                                 << 400;
        QTest::newRow("NUL in value") << (QByteArray("POST /mcp HTTP/1.1\r\nHost: a") + QByteArray(1, '\0') +
                                          "b\r\nContent-Length: 0\r\n\r\n")
                                      << 400;
        QTest::newRow("HTTP/2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << 505;
        QTest::newRow("garbage line") << QByteArray("hello\r\n\r\n") << 400;
        QTest::newRow("head too big")
            << (QByteArray("GET / HTTP/1.1\r\nX: ") + QByteArray(20000, 'a')) << 431;
        QByteArray many = "GET / HTTP/1.1\r\n";
        for (int i = 0; i < 70; ++i)
            many += "X-" + QByteArray::number(i) + ": 1\r\n";
        QTest::newRow("too many headers") << many + "\r\n" << 431;
    }
    void feed_hostile_isRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        HttpParser p;
        QCOMPARE(p.feed(bytes), HttpParser::State::Failed);
        QCOMPARE(p.errorStatus(), status);
        QVERIFY(!p.errorText().isEmpty());
    }
    // Each status the server sends goes out with its own reason phrase (a 406 once went out as
    // "Status"); one it has no phrase for gets its class's.
    void response_statusLine_namesTheStatus()
    {
        for (const auto &[status, line] :
             {std::pair{406, "HTTP/1.1 406 Not Acceptable\r\n"},
              std::pair{413, "HTTP/1.1 413 Content Too Large\r\n"},
              std::pair{429, "HTTP/1.1 429 Too Many Requests\r\n"},
              std::pair{502, "HTTP/1.1 502 Bad Gateway\r\n"}, std::pair{418, "HTTP/1.1 418 Client Error\r\n"},
              std::pair{599, "HTTP/1.1 599 Server Error\r\n"}}) {
            const QByteArray out = HttpResponse::json(status, "{}").serialize(false);
            QVERIFY2(out.startsWith(line), out.left(40).constData());
        }
    }
};

QTEST_GUILESS_MAIN(HttpParserTest)
#include "httpparser_test.moc"
