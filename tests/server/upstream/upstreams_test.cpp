// How the gateway routes a resources/read to an upstream by its URI templates: linear matching
// of the literal parts (each {expression} any non-empty text), also for templates built to make a
// regular expression backtrack; and the Mcp-Name header it sends.
#include "headerchecks.h"
#include "upstreams.h"

#include <QElapsedTimer>
#include <QTest>

using namespace Countersign;

class UpstreamsTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matchesTemplate_data()
    {
        QTest::addColumn<QString>("uriTemplate");
        QTest::addColumn<QString>("uri");
        QTest::addColumn<bool>("matches");
        QTest::newRow("no expression, same") << "test://static"
                                             << "test://static" << true;
        QTest::newRow("no expression, other") << "test://static"
                                              << "test://static2" << false;
        QTest::newRow("one expression") << "test://template/{id}/data"
                                        << "test://template/42/data" << true;
        QTest::newRow("an expression is not empty") << "test://template/{id}/data"
                                                    << "test://template//data" << false;
        QTest::newRow("the tail must match") << "test://template/{id}/data"
                                             << "test://template/42/dat" << false;
        QTest::newRow("the head must match") << "test://template/{id}"
                                             << "file://template/42" << false;
        QTest::newRow("two expressions in a row") << "a://{x}{y}"
                                                  << "a://pq" << true;
        QTest::newRow("two in a row need two characters") << "a://{x}{y}"
                                                          << "a://p" << false;
        QTest::newRow("literals in order") << "a://{x}/b/{y}/c"
                                           << "a://1/b/2/c" << true;
        QTest::newRow("literals out of order") << "a://{x}/b/{y}/c"
                                               << "a://1/c/2/b" << false;
        QTest::newRow("query form") << "file:///{path}{?rev}"
                                    << "file:///etc/hosts?rev=2" << true;
    }
    void matchesTemplate()
    {
        QFETCH(QString, uriTemplate);
        QFETCH(QString, uri);
        QFETCH(bool, matches);
        QCOMPARE(Upstreams::matchesTemplate(uriTemplate, uri), matches);
    }
    // The review's template (30 expressions between two letters) against a 100-character URI took
    // 25 ms per template as a regular expression; a thousand such templates froze the server 25 s.
    // Timed here only to print it; the assertion is the answer.
    void matchesTemplate_backtrackingShapes_areAnsweredAtOnce()
    {
        const QString tmpl = QStringLiteral("x") + QStringLiteral("{a}").repeated(30) + QStringLiteral("y");
        const QString uri = QStringLiteral("x") + QString(100, QLatin1Char('a')) + QStringLiteral("yb");
        QElapsedTimer clock;
        clock.start();
        bool any = false;
        for (int i = 0; i < 1000; ++i)
            any = any || Upstreams::matchesTemplate(tmpl, uri);
        qInfo("1000 hostile templates matched in %.2f ms", clock.nsecsElapsed() / 1e6);
        QVERIFY(!any);
        QVERIFY(Upstreams::matchesTemplate(tmpl, QStringLiteral("x") + QString(100, QLatin1Char('a')) +
                                                     QStringLiteral("y")));
    }
    // The Mcp-Name the gateway sends an upstream: plain names as they are, the rest encoded so
    // that nothing in an agent's URI can end the header, and the server's decoding gives it back.
    void mcpName_isEncoded_whenNotPlain_andDecodesBack_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("plain");
        QTest::newRow("a tool name") << QStringLiteral("read_text_file") << true;
        QTest::newRow("a URI") << QStringLiteral("file:///srv/a b.txt") << true;
        QTest::newRow("CR LF") << QStringLiteral("x\r\nX-Injected: 1") << false;
        QTest::newRow("non-ASCII") << QStringLiteral("résumé") << false;
        QTest::newRow("edge space") << QStringLiteral(" x") << false;
        QTest::newRow("looks encoded") << QStringLiteral("=?base64?eA==?=") << false;
        QTest::newRow("empty") << QString() << false;
    }
    void mcpName_isEncoded_whenNotPlain_andDecodesBack()
    {
        QFETCH(QString, value);
        QFETCH(bool, plain);
        const QByteArray header = HeaderChecks::encodeValue(value);
        QCOMPARE(header == value.toUtf8(), plain);
        QVERIFY(!header.contains('\r') && !header.contains('\n'));
        const auto decoded = HeaderChecks::decodeValue(header);
        QVERIFY(decoded);
        QCOMPARE(QString::fromUtf8(*decoded), value);
    }
};

QTEST_GUILESS_MAIN(UpstreamsTest)
#include "upstreams_test.moc"
