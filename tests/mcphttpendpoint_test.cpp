#include "dispatcher.h"
#include "helperfailure.h"
#include "jsonrpc.h"
#include "mcphttpendpoint.h"
#include "statustool.h"
#include "toolregistry.h"

#include <nlohmann/json.hpp>

#include "jsoncompare.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

const QByteArray kToken = "cs_good";

QByteArray body(const QByteArray &method, const json &extra = json::object())
{
    json params = extra;
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return QByteArray::fromStdString(
        json{{"jsonrpc", "2.0"}, {"id", 41}, {"method", method.toStdString()}, {"params", params}}.dump());
}

HttpRequest post(const QByteArray &method, const QByteArray &payload)
{
    HttpRequest r;
    r.method = "POST";
    r.target = "/mcp";
    r.headers = {{"host", "127.0.0.1:7331"},
                 {"authorization", "Bearer " + kToken},
                 {"content-type", "application/json"},
                 {"accept", "application/json, text/event-stream"},
                 {"mcp-protocol-version", "2026-07-28"},
                 {"mcp-method", method}};
    r.body = payload;
    return r;
}

void setHeader(HttpRequest &r, const QByteArray &name, const std::optional<QByteArray> &value)
{
    r.headers.removeIf([&](const auto &h) { return h.first == name; });
    if (value)
        r.headers.append({name, *value});
}

} // namespace

class McpHttpEndpointTest : public QObject
{
    Q_OBJECT
private:
    ToolRegistry m_tools;
    std::unique_ptr<Dispatcher> m_dispatcher;
    std::unique_ptr<McpHttpEndpoint> m_endpoint;

    HttpResponse serveNow(const HttpRequest &request) const
    {
        std::optional<HttpResponse> response;
        m_endpoint->serve(request, [&response](HttpResponse r) { response = std::move(r); });
        if (!response) {
            helperFailed(QStringLiteral("the endpoint did not answer synchronously"));
            return HttpResponse{0, {}, {}, true};
        }
        return std::move(*response);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_tools.add(std::make_unique<StatusTool>(QStringLiteral("1")));
        m_dispatcher = std::make_unique<Dispatcher>(
            m_tools, Dispatcher::ServerInfo{QStringLiteral("cs"), QStringLiteral("1"), {}});
        m_endpoint = std::make_unique<McpHttpEndpoint>(
            *m_dispatcher, [](const QByteArray &token) -> std::optional<Principal> {
                if (token == kToken)
                    return Principal{1, QStringLiteral("good")};
                return std::nullopt;
            });
    }

    void cases_data()
    {
        QTest::addColumn<QByteArray>("header");  // header to change ("" for none)
        QTest::addColumn<QByteArray>("value");   // new value ("<absent>" removes it)
        QTest::addColumn<QByteArray>("method");  // JSON-RPC method of the body
        QTest::addColumn<QByteArray>("payload"); // body; empty means body(method)
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("code"); // 0: a result is expected
        const QByteArray call = body("tools/call", {{"name", "countersign_status"}});
        QTest::newRow("ok list") << QByteArray() << QByteArray() << QByteArray("tools/list") << QByteArray()
                                 << 200 << 0;
        QTest::newRow("ok call") << QByteArray("mcp-name") << QByteArray("countersign_status")
                                 << QByteArray("tools/call") << call << 200 << 0;
        QTest::newRow("base64 Mcp-Name")
            << QByteArray("mcp-name") << QByteArray("=?base64?Y291bnRlcnNpZ25fc3RhdHVz?=")
            << QByteArray("tools/call") << call << 200 << 0;
        QTest::newRow("Mcp-Name missing") << QByteArray() << QByteArray() << QByteArray("tools/call") << call
                                          << 400 << JsonRpc::kHeaderMismatch;
        QTest::newRow("Mcp-Name mismatch")
            << QByteArray("mcp-name") << QByteArray("other") << QByteArray("tools/call") << call << 400
            << JsonRpc::kHeaderMismatch;
        QTest::newRow("Mcp-Name bad base64")
            << QByteArray("mcp-name") << QByteArray("=?base64?***?=") << QByteArray("tools/call") << call
            << 400 << JsonRpc::kHeaderMismatch;
        QTest::newRow("version header missing")
            << QByteArray("mcp-protocol-version") << QByteArray("<absent>") << QByteArray("tools/list")
            << QByteArray() << 400 << JsonRpc::kHeaderMismatch;
        QTest::newRow("version header differs")
            << QByteArray("mcp-protocol-version") << QByteArray("2025-11-25") << QByteArray("tools/list")
            << QByteArray() << 400 << JsonRpc::kHeaderMismatch;
        QTest::newRow("Mcp-Method missing")
            << QByteArray("mcp-method") << QByteArray("<absent>") << QByteArray("tools/list") << QByteArray()
            << 400 << JsonRpc::kHeaderMismatch;
        QTest::newRow("Mcp-Method differs")
            << QByteArray("mcp-method") << QByteArray("tools/call") << QByteArray("tools/list")
            << QByteArray() << 400 << JsonRpc::kHeaderMismatch;
        QTest::newRow("no token") << QByteArray("authorization") << QByteArray("<absent>")
                                  << QByteArray("tools/list") << QByteArray() << 401 << JsonRpc::kServerError;
        QTest::newRow("bad token") << QByteArray("authorization") << QByteArray("Bearer cs_bad")
                                   << QByteArray("tools/list") << QByteArray() << 401
                                   << JsonRpc::kServerError;
        QTest::newRow("basic auth") << QByteArray("authorization") << QByteArray("Basic Y3NfZ29vZA==")
                                    << QByteArray("tools/list") << QByteArray() << 401
                                    << JsonRpc::kServerError;
        QTest::newRow("foreign Host")
            << QByteArray("host") << QByteArray("evil.example") << QByteArray("tools/list") << QByteArray()
            << 403 << JsonRpc::kServerError;
        QTest::newRow("rebinding Host with port")
            << QByteArray("host") << QByteArray("evil.example:7331") << QByteArray("tools/list")
            << QByteArray() << 403 << JsonRpc::kServerError;
        QTest::newRow("no Host") << QByteArray("host") << QByteArray("<absent>") << QByteArray("tools/list")
                                 << QByteArray() << 403 << JsonRpc::kServerError;
        QTest::newRow("localhost Host") << QByteArray("host") << QByteArray("localhost:7331")
                                        << QByteArray("tools/list") << QByteArray() << 200 << 0;
        QTest::newRow("foreign Origin")
            << QByteArray("origin") << QByteArray("http://evil.example") << QByteArray("tools/list")
            << QByteArray() << 403 << JsonRpc::kServerError;
        QTest::newRow("null Origin") << QByteArray("origin") << QByteArray("null") << QByteArray("tools/list")
                                     << QByteArray() << 403 << JsonRpc::kServerError;
        QTest::newRow("lookalike Origin")
            << QByteArray("origin") << QByteArray("http://localhost.evil.example") << QByteArray("tools/list")
            << QByteArray() << 403 << JsonRpc::kServerError;
        QTest::newRow("localhost Origin") << QByteArray("origin") << QByteArray("http://localhost:5173")
                                          << QByteArray("tools/list") << QByteArray() << 200 << 0;
        QTest::newRow("text/plain") << QByteArray("content-type") << QByteArray("text/plain")
                                    << QByteArray("tools/list") << QByteArray() << 415
                                    << JsonRpc::kServerError;
        QTest::newRow("json with charset")
            << QByteArray("content-type") << QByteArray("application/json; charset=utf-8")
            << QByteArray("tools/list") << QByteArray() << 200 << 0;
        QTest::newRow("malformed JSON") << QByteArray() << QByteArray() << QByteArray("tools/list")
                                        << QByteArray("{\"jsonrpc\":") << 400 << JsonRpc::kParseError;
        QTest::newRow("invalid UTF-8") << QByteArray() << QByteArray() << QByteArray("tools/list")
                                       << QByteArray("{\"a\":\"\xff\"}") << 400 << JsonRpc::kParseError;
        QTest::newRow("duplicate keys")
            << QByteArray() << QByteArray() << QByteArray("tools/list")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"})") << 400
            << JsonRpc::kParseError;
        QTest::newRow("deep nesting")
            << QByteArray() << QByteArray() << QByteArray("tools/list")
            << (QByteArray(100, '[') + QByteArray(100, ']')) << 400 << JsonRpc::kParseError;
    }
    void cases()
    {
        QFETCH(QByteArray, header);
        QFETCH(QByteArray, value);
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, payload);
        QFETCH(int, status);
        QFETCH(int, code);
        HttpRequest request = post(method, payload.isEmpty() ? body(method) : payload);
        if (!header.isEmpty())
            setHeader(request, header, value == "<absent>" ? std::nullopt : std::optional<QByteArray>(value));
        const HttpResponse response = serveNow(request);
        QCOMPARE(response.status, status);
        const json reply = json::parse(response.body.toStdString());
        if (code == 0) {
            QVERIFY2(reply.contains("result"), response.body.constData());
            QCOMPARE_JSON(reply.at("id"), json(41));
        } else {
            QCOMPARE(reply.at("error").at("code").get<int>(), code);
            if (status == 400 && code != JsonRpc::kParseError)
                QCOMPARE_JSON(reply.at("id"), json(41)); // the id is echoed whenever it could be read
        }
        if (status == 401) {
            const bool challenged = std::any_of(response.headers.cbegin(), response.headers.cend(),
                                                [](const auto &h) { return h.first == "WWW-Authenticate"; });
            QVERIFY(challenged);
        }
    }
    void get_is405WithAllow()
    {
        HttpRequest request = post("tools/list", {});
        request.method = "GET";
        const HttpResponse response = serveNow(request);
        QCOMPARE(response.status, 405);
        QVERIFY(response.headers.contains(qMakePair(QByteArray("Allow"), QByteArray("POST, DELETE"))));
    }
    void notification_is202WithoutBody()
    {
        const HttpResponse response = serveNow(
            post("notifications/cancelled",
                 R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})"));
        QCOMPARE(response.status, 202);
        QVERIFY(response.body.isEmpty());
    }
};

QTEST_GUILESS_MAIN(McpHttpEndpointTest)
#include "mcphttpendpoint_test.moc"
