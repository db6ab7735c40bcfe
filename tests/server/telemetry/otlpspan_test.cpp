// A span's OTLP/HTTP JSON encoding (ExportTraceServiceRequest under OTLP's JSON mapping) and the
// traceparent a client sends, read strictly.
#include "otlpspan.h"
#include "traceparent.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class OtlpSpanTest : public QObject
{
    Q_OBJECT
private:
    static OtlpSpan sample()
    {
        OtlpSpan span;
        span.traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        span.spanId = "00f067aa0ba902b7";
        span.parentSpanId = "a3ce929d0e0e4736";
        span.name = QStringLiteral("tools/call delete_dir");
        span.kind = OtlpSpan::Kind::Server;
        span.startMs = 1'800'000'000'123;
        span.endMs = 1'800'000'004'567;
        span.set(QStringLiteral("mcp.method.name"), QStringLiteral("tools/call"));
        span.set(QStringLiteral("countersign.rank"), qint64(42));
        span.attributes.append({QStringLiteral("countersign.unsettled"), true});
        span.events.append({QStringLiteral("countersign.decided"),
                            1'800'000'001'000,
                            {{QStringLiteral("countersign.decided_by"), QStringLiteral("console:bea")}}});
        span.status = OtlpSpan::StatusCode::Error;
        span.statusMessage = QStringLiteral("declined by console:bea");
        return span;
    }

private Q_SLOTS:
    void exportRequest_hasTheOtlpShape()
    {
        const json body = OtlpSpan::exportRequest(
            {sample()}, {{QStringLiteral("service.name"), QStringLiteral("countersign")}},
            QStringLiteral("countersign"), QStringLiteral("1.2.3"));
        QCOMPARE(body["resourceSpans"].size(), size_t(1));
        const json &resource = body["resourceSpans"][0];
        QVERIFY(resource["resource"]["attributes"] ==
                json::parse(R"([{"key": "service.name", "value": {"stringValue": "countersign"}}])"));
        QCOMPARE(resource["scopeSpans"].size(), size_t(1));
        QVERIFY(resource["scopeSpans"][0]["scope"] ==
                json::parse(R"({"name": "countersign", "version": "1.2.3"})"));
        QCOMPARE(resource["scopeSpans"][0]["spans"].size(), size_t(1));
    }
    void toJson_idsAreHex_timesAreNanosecondStrings_enumsAreNumbers()
    {
        const json span = sample().toJson();
        QVERIFY(span["traceId"] == "4bf92f3577b34da6a3ce929d0e0e4736");
        QVERIFY(span["spanId"] == "00f067aa0ba902b7");
        QVERIFY(span["parentSpanId"] == "a3ce929d0e0e4736");
        QVERIFY(span["name"] == "tools/call delete_dir");
        QVERIFY(span["kind"] == 2); // SPAN_KIND_SERVER
        // 64-bit integers are decimal strings in OTLP's JSON.
        QVERIFY(span["startTimeUnixNano"] == "1800000000123000000");
        QVERIFY(span["endTimeUnixNano"] == "1800000004567000000");
        QVERIFY(span["status"] == json::parse(R"({"code": 2, "message": "declined by console:bea"})"));
        QVERIFY(span["events"] == json::parse(R"([{"timeUnixNano": "1800000001000000000",
            "name": "countersign.decided",
            "attributes": [{"key": "countersign.decided_by", "value": {"stringValue": "console:bea"}}]}])"));
    }
    void toJson_attributesAreKeyValuePairs()
    {
        const json attributes = sample().toJson()["attributes"];
        QVERIFY2(attributes == json::parse(R"([
            {"key": "mcp.method.name", "value": {"stringValue": "tools/call"}},
            {"key": "countersign.rank", "value": {"intValue": "42"}},
            {"key": "countersign.unsettled", "value": {"boolValue": true}}])"),
                 attributes.dump().c_str());
    }
    void toJson_rootSpan_hasNoParent_andUnsetStatusHasNoMessage()
    {
        OtlpSpan span = sample();
        span.parentSpanId.clear();
        span.status = OtlpSpan::StatusCode::Unset;
        span.statusMessage.clear();
        span.events.clear();
        const json encoded = span.toJson();
        QVERIFY(!encoded.contains("parentSpanId"));
        QVERIFY(!encoded.contains("events"));
        QVERIFY(encoded["status"] == json::parse(R"({"code": 0})"));
    }
    void toJson_textStaysValidJson()
    {
        OtlpSpan span = sample();
        span.set(QStringLiteral("countersign.client.name"), QStringLiteral("a\"b\\c\u00e9\U0001F600"));
        const std::string text =
            OtlpSpan::exportRequest({span}, {}, QStringLiteral("s"), QStringLiteral("v")).dump();
        const json back = json::parse(text);
        QVERIFY(
            back["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"][3]["value"]["stringValue"] ==
            "a\"b\\c\u00e9\U0001F600");
    }
    void randomId_isHexOfTheLength_andDiffers()
    {
        const QByteArray a = OtlpSpan::randomId(16), b = OtlpSpan::randomId(16), s = OtlpSpan::randomId(8);
        QCOMPARE(a.size(), 32);
        QCOMPARE(s.size(), 16);
        QVERIFY(a != b);
        QVERIFY(QByteArray::fromHex(a).toHex() == a);
    }

    void traceParent_parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("sampled");
        QTest::newRow("sampled") << "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" << true << true;
        QTest::newRow("not sampled") << "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00" << true
                                     << false;
        QTest::newRow("a later version")
            << "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" << true << true;
        QTest::newRow("version ff") << "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" << false
                                    << false;
        QTest::newRow("upper case") << "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01" << false
                                    << false;
        QTest::newRow("trace id zero")
            << "00-00000000000000000000000000000000-00f067aa0ba902b7-01" << false << false;
        QTest::newRow("parent id zero")
            << "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01" << false << false;
        QTest::newRow("short") << "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01" << false << false;
        QTest::newRow("wrong separators")
            << "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01" << false << false;
        QTest::newRow("not hex") << "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01" << false
                                 << false;
        QTest::newRow("non-Latin-1") << QStringLiteral(
                                            "00-4bf92f3577b34da6a3ce929d0e0e473\u00e9-00f067aa0ba902b7-01")
                                     << false << false;
        QTest::newRow("empty") << "" << false << false;
    }
    void traceParent_parse()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(bool, sampled);
        const auto parsed = TraceParent::parse(text);
        QCOMPARE(parsed.has_value(), ok);
        if (ok) {
            QCOMPARE(parsed->traceId, QByteArray("4bf92f3577b34da6a3ce929d0e0e4736"));
            QCOMPARE(parsed->parentId, QByteArray("00f067aa0ba902b7"));
            QCOMPARE(parsed->sampled, sampled);
        }
    }
};

QTEST_GUILESS_MAIN(OtlpSpanTest)
#include "otlpspan_test.moc"
