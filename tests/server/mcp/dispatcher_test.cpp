#include "dispatcher.h"
#include "helperfailure.h"
#include "jsonrpc.h"
#include "requestreader.h"
#include "statustool.h"
#include "tool.h"
#include "toolregistry.h"

#include "jsoncompare.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

json envelope(const char *version = "2026-07-28")
{
    return {{"io.modelcontextprotocol/protocolVersion", version},
            {"io.modelcontextprotocol/clientCapabilities", json::object()},
            {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}}};
}

json request(const json &id, const char *method, json params = json::object())
{
    params["_meta"] = envelope();
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

// Echoes its one required string argument back; proves arguments reach the tool validated.
class EchoTool final : public SyncTool
{
public:
    QString name() const override { return QStringLiteral("echo"); }
    json descriptor() const override
    {
        return {
            {"name", "echo"},
            {"description", "echo"},
            {"inputSchema",
             {{"type", "object"},
              {"properties", {{"text", {{"type", "string"}}}}},
              {"required", {"text"}},
              {"additionalProperties", false}}},
            {"annotations", {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}}}};
    }
    ToolReply run(const ToolCall &call) override
    {
        return textResult(QString::fromStdString(call.arguments.at("text").get<std::string>()));
    }
};

// A tool whose code trips over the agent's input: the nlohmann type_error that once ended the app.
class ThrowingTool final : public SyncTool
{
public:
    QString name() const override { return QStringLiteral("throws"); }
    json descriptor() const override
    {
        return {
            {"name", "throws"},
            {"description", "throws"},
            {"inputSchema", {{"type", "object"}}},
            {"annotations", {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}}}};
    }
    ToolReply run(const ToolCall &call) override
    {
        return textResult(QString::fromStdString(call.arguments.value("n", std::string()))); // n: 42 throws
    }
};

} // namespace

class DispatcherTest : public QObject
{
    Q_OBJECT
private:
    ToolRegistry m_tools;
    std::unique_ptr<Dispatcher> m_dispatcher;
    CallContext m_context{Principal{1, QStringLiteral("tester"), {}}, Transport::Http};

    // Every tool here answers at once, so the reply is there when dispatch() returns.
    Reply send(const json &message)
    {
        std::optional<Reply> reply;
        m_dispatcher->dispatch(message, m_context, [&reply](Reply r) { reply = std::move(r); });
        if (!reply) {
            helperFailed(QStringLiteral("dispatch did not answer synchronously"));
            return Reply{0, json::object()};
        }
        return std::move(*reply);
    }

    static void verifyError(const Reply &reply, int status, const json &id, int code)
    {
        QCOMPARE(reply.httpStatus, status);
        QVERIFY(reply.body.has_value());
        QVERIFY2(reply.body->contains("error"), reply.body->dump().c_str());
        QCOMPARE(reply.body->at("error").at("code").get<int>(), code);
        QVERIFY(!reply.body->at("error").at("message").get<std::string>().empty());
        QCOMPARE_JSON(reply.body->at("id"), id);
        QCOMPARE_JSON(reply.body->at("jsonrpc"), json("2.0"));
    }
    static json verifyResult(const Reply &reply, const json &id)
    {
        if (reply.httpStatus != 200 || !reply.body || !reply.body->contains("result")) {
            helperFailed(
                QStringLiteral("not a result: %1")
                    .arg(reply.body ? QString::fromStdString(reply.body->dump()) : QStringLiteral("(none)")));
            return json::object();
        }
        if (reply.body->at("id") != id)
            helperFailed(QStringLiteral("id not echoed"));
        return reply.body->at("result");
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_tools.add(std::make_unique<StatusTool>(QStringLiteral("9.9")));
        m_tools.add(std::make_unique<EchoTool>());
        m_tools.add(std::make_unique<ThrowingTool>());
        m_dispatcher = std::make_unique<Dispatcher>(
            m_tools, Dispatcher::ServerInfo{QStringLiteral("countersign"), QStringLiteral("9.9"),
                                            QStringLiteral("hi")});
    }

    void discover_listsVersionCapabilitiesAndCacheHints()
    {
        const json r = verifyResult(send(request("d", "server/discover")), "d");
        QCOMPARE_JSON(r.at("resultType"), json("complete"));
        QCOMPARE_JSON(r.at("supportedVersions"), json::array({"2026-07-28"}));
        QVERIFY(r.at("capabilities").contains("tools"));
        // The HTTP endpoint and the stdio sessions serve subscriptions/listen.
        QCOMPARE_JSON(r.at("capabilities").at("tools").at("listChanged"), json(true));
        QVERIFY(r.at("ttlMs").is_number_integer());
        QCOMPARE_JSON(r.at("cacheScope"), json("private"));
        QCOMPARE_JSON(r.at("_meta").at("io.modelcontextprotocol/serverInfo").at("name"), json("countersign"));
    }
    void toolsList_everyToolHasSchemaAndAnnotations()
    {
        const json r = verifyResult(send(request(0, "tools/list")), 0);
        QCOMPARE_JSON(r.at("resultType"), json("complete"));
        QVERIFY(r.contains("ttlMs") && r.contains("cacheScope"));
        QCOMPARE(r.at("tools").size(), size_t(3));
        QCOMPARE_JSON(r.at("tools")[0].at("name"), json("countersign_status")); // sorted by name
        for (const json &tool : r.at("tools")) {
            QCOMPARE_JSON(tool.at("inputSchema").at("type"), json("object"));
            for (const char *hint : {"readOnlyHint", "destructiveHint", "idempotentHint"})
                QVERIFY2(tool.at("annotations").at(hint).is_boolean(), hint);
        }
    }
    void toolsCall_validArguments_runTheTool()
    {
        const json r = verifyResult(
            send(request(7, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}})), 7);
        QCOMPARE_JSON(r.at("resultType"), json("complete"));
        QCOMPARE_JSON(r.at("content")[0].at("text"), json("hi"));
        QVERIFY(!r.value("isError", false));
        QVERIFY(r.at("_meta").contains("io.modelcontextprotocol/serverInfo"));
    }
    void toolsCall_statusTool_namesTheConnection()
    {
        const json r = verifyResult(send(request(8, "tools/call", {{"name", "countersign_status"}})), 8);
        QCOMPARE_JSON(r.at("structuredContent").at("connection"), json("tester"));
    }
    void toolsCall_invalidArguments_isErrorResultWithReason()
    {
        const json r =
            verifyResult(send(request(9, "tools/call", {{"name", "echo"}, {"arguments", {{"text", 5}}}})), 9);
        QCOMPARE_JSON(r.at("isError"), json(true));
        QVERIFY(r.at("content")[0].at("text").get<std::string>().find("data/text must be string") !=
                std::string::npos);
    }
    void toolsCall_unknownTool_isInvalidParamsInBand()
    {
        verifyError(send(request(10, "tools/call", {{"name", "nope"}})), 200, 10, JsonRpc::kInvalidParams);
    }
    void toolsCall_argumentsNotObject_isInvalidParams()
    {
        verifyError(send(request(11, "tools/call", {{"name", "echo"}, {"arguments", json::array()}})), 200,
                    11, JsonRpc::kInvalidParams);
    }
    void toolsCall_noName_isInvalidParams()
    {
        verifyError(send(request(12, "tools/call")), 200, 12, JsonRpc::kInvalidParams);
    }
    void idZero_andStringId_areEchoed()
    {
        verifyResult(send(request(0, "tools/list")), 0);
        verifyResult(send(request("server-discover-probe-1", "server/discover")), "server-discover-probe-1");
    }

    void errors_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("id"); // JSON text of the id expected in the error
        QTest::addColumn<int>("code");
        const QString env = QStringLiteral(
            R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})");
        QTest::newRow("unknown method")
            << QStringLiteral(R"({"jsonrpc":"2.0","id":1,"method":"nope","params":{%1}})").arg(env) << 404
            << "1" << JsonRpc::kMethodNotFound;
        QTest::newRow("ping removed")
            << QStringLiteral(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{%1}})").arg(env) << 404
            << "2" << JsonRpc::kMethodNotFound;
        QTest::newRow("initialize with envelope")
            << QStringLiteral(R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{%1}})").arg(env)
            << 404 << "3" << JsonRpc::kMethodNotFound;
        QTest::newRow("unsupported version")
            << R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}})"
            << 400 << "4" << JsonRpc::kUnsupportedProtocolVersion;
        QTest::newRow("no capabilities")
            << R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})"
            << 400 << "5" << JsonRpc::kInvalidParams;
        QTest::newRow("capabilities not object")
            << R"({"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}})"
            << 400 << "6" << JsonRpc::kInvalidParams;
        QTest::newRow("version not string")
            << R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":{}}}})"
            << 400 << "7" << JsonRpc::kInvalidParams;
        QTest::newRow("legacy request") << R"({"jsonrpc":"2.0","id":8,"method":"tools/list"})" << 400 << "8"
                                        << JsonRpc::kUnsupportedProtocolVersion;
        QTest::newRow("legacy initialize")
            << R"({"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})"
            << 400 << "9" << JsonRpc::kUnsupportedProtocolVersion;
        QTest::newRow("batch")
            << QStringLiteral(R"([{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{%1}}])").arg(env)
            << 400 << "null" << JsonRpc::kInvalidRequest;
        QTest::newRow("not an object") << "42" << 400 << "null" << JsonRpc::kInvalidRequest;
        QTest::newRow("wrong jsonrpc") << R"({"jsonrpc":"1.0","id":10,"method":"tools/list"})" << 400 << "10"
                                       << JsonRpc::kInvalidRequest;
        QTest::newRow("id null") << R"({"jsonrpc":"2.0","id":null,"method":"tools/list"})" << 400 << "null"
                                 << JsonRpc::kInvalidRequest;
        QTest::newRow("id object") << R"({"jsonrpc":"2.0","id":{},"method":"tools/list"})" << 400 << "null"
                                   << JsonRpc::kInvalidRequest;
        QTest::newRow("method not string")
            << R"({"jsonrpc":"2.0","id":11,"method":5})" << 400 << "11" << JsonRpc::kInvalidRequest;
        QTest::newRow("params array") << R"({"jsonrpc":"2.0","id":12,"method":"tools/list","params":[]})"
                                      << 400 << "12" << JsonRpc::kInvalidRequest;
        QTest::newRow("posted response")
            << R"({"jsonrpc":"2.0","id":13,"result":{}})" << 400 << "13" << JsonRpc::kInvalidRequest;
        QTest::newRow("huge id")
            << R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"})" << 400
            << "null" << JsonRpc::kInvalidRequest;
        // Mistyped client fields are refused where they come in, never read as something else.
        const auto withMeta = [](int id, const char *extraMeta, const char *method = "tools/list",
                                 const char *extraParams = "") {
            return QStringLiteral(
                       R"({"jsonrpc":"2.0","id":%1,"method":"%2","params":{%3"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",%4}}})")
                .arg(id)
                .arg(QLatin1String(method), QLatin1String(extraParams), QLatin1String(extraMeta));
        };
        QTest::newRow("clientInfo name a number")
            << withMeta(
                   20,
                   R"("io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":42,"version":"1"})")
            << 400 << "20" << JsonRpc::kInvalidParams;
        QTest::newRow("clientInfo version an object")
            << withMeta(
                   21,
                   R"("io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":{}})")
            << 400 << "21" << JsonRpc::kInvalidParams;
        QTest::newRow("clientInfo a string")
            << withMeta(
                   22,
                   R"("io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"x")")
            << 400 << "22" << JsonRpc::kInvalidParams;
        QTest::newRow("elicitation a string")
            << withMeta(23, R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":"yes"})") << 400
            << "23" << JsonRpc::kInvalidParams;
        QTest::newRow("elicitation url a bool")
            << withMeta(24, R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":true}})")
            << 400 << "24" << JsonRpc::kInvalidParams;
        QTest::newRow("requestState a number")
            << withMeta(25, R"("io.modelcontextprotocol/clientCapabilities":{})", "tools/call",
                        R"("name":"countersign_status","requestState":5,)")
            << 200 << "25" << JsonRpc::kInvalidParams;
        QTest::newRow("inputResponses an array")
            << withMeta(26, R"("io.modelcontextprotocol/clientCapabilities":{})", "tools/call",
                        R"("name":"countersign_status","inputResponses":[],)")
            << 200 << "26" << JsonRpc::kInvalidParams;
        QTest::newRow("inputResponses entry a number")
            << withMeta(27, R"("io.modelcontextprotocol/clientCapabilities":{})", "tools/call",
                        R"("name":"countersign_status","inputResponses":{"approval":1},)")
            << 200 << "27" << JsonRpc::kInvalidParams;
        QTest::newRow("progressToken an object")
            << withMeta(28, R"("io.modelcontextprotocol/clientCapabilities":{},"progressToken":{})") << 400
            << "28" << JsonRpc::kInvalidParams;
        QTest::newRow("progressToken a fraction")
            << withMeta(29, R"("io.modelcontextprotocol/clientCapabilities":{},"progressToken":1.5)") << 400
            << "29" << JsonRpc::kInvalidParams;
        QTest::newRow("progressToken null")
            << withMeta(30, R"("io.modelcontextprotocol/clientCapabilities":{},"progressToken":null)") << 400
            << "30" << JsonRpc::kInvalidParams;
    }
    void errors()
    {
        QFETCH(QString, message);
        QFETCH(int, status);
        QFETCH(QString, id);
        QFETCH(int, code);
        verifyError(send(json::parse(message.toStdString())), status, json::parse(id.toStdString()), code);
    }
    void throwingTool_isInternalError_andTheNextRequestIsServed()
    {
        const Reply r = send(request(30, "tools/call", {{"name", "throws"}, {"arguments", {{"n", 42}}}}));
        verifyError(r, 500, 30, JsonRpc::kInternalError);
        QVERIFY(QString::fromStdString(r.body->at("error").at("message").get<std::string>())
                    .contains(QLatin1String("nothing was run")));
        const json ok = verifyResult(
            send(request(31, "tools/call", {{"name", "throws"}, {"arguments", {{"n", "x"}}}})), 31);
        QCOMPARE_JSON(ok.at("content").at(0).at("text"), json("x"));
    }
    void unsupportedVersion_namesSupportedAndRequested()
    {
        json msg = request(1, "tools/list");
        msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01";
        const Reply r = send(msg);
        QCOMPARE_JSON(r.body->at("error").at("data").at("supported"), json::array({"2026-07-28"}));
        QCOMPARE_JSON(r.body->at("error").at("data").at("requested"), json("2099-01-01"));
    }
    void read_modernHeaderWithoutMeta_isEnvelopeError()
    {
        auto c = RequestReader::read(json{{"jsonrpc", "2.0"}, {"id", 14}, {"method", "tools/list"}},
                                     QStringLiteral("2026-07-28"));
        QVERIFY(std::holds_alternative<Reply>(c));
        verifyError(std::get<Reply>(c), 400, 14, JsonRpc::kInvalidParams);
        QCOMPARE_JSON(std::get<Reply>(c).body->at("error").at("data").at("envelope").at("missing"),
                      json::array({"_meta"}));
    }
    void notification_isAcceptedWithoutBody()
    {
        const Reply r = send(
            json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 1}}}});
        QCOMPARE(r.httpStatus, 202);
        QVERIFY(!r.body.has_value());
    }
    // Issue 26, B4: a client's account of itself is bounded, so that sessions cannot pin memory.
    void clientInfoOrCapabilities_overTheBound_areRefused()
    {
        json msg = request(16, "tools/list");
        msg["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = {
            {"name", std::string(Envelope::kMaxClientBytes, 'n')}, {"version", "1"}};
        Reply r = send(msg);
        verifyError(r, 400, 16, JsonRpc::kInvalidParams);
        QVERIFY(r.body->dump().find("clientInfo is larger than 16 KiB") != std::string::npos);
        msg = request(17, "tools/list");
        msg["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = {
            {"experimental", {{"x", std::string(Envelope::kMaxClientBytes, 'c')}}}};
        r = send(msg);
        verifyError(r, 400, 17, JsonRpc::kInvalidParams);
        msg = request(18, "tools/list");
        msg["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = {{"name", std::string(4000, 'n')},
                                                                        {"version", "1"}};
        verifyResult(send(msg), 18); // a long name under the bound is taken
    }
    void clientInfo_isOptional()
    {
        json msg = request(15, "tools/list");
        msg["params"]["_meta"].erase("io.modelcontextprotocol/clientInfo");
        verifyResult(send(msg), 15);
    }
};

QTEST_GUILESS_MAIN(DispatcherTest)
#include "dispatcher_test.moc"
