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

    // A 2025-era session; its id.
    QByteArray initialize() const
    {
        HttpRequest init =
            post("initialize",
                 QByteArray::fromStdString(json{{"jsonrpc", "2.0"},
                                                {"id", 1},
                                                {"method", "initialize"},
                                                {"params",
                                                 {{"protocolVersion", "2025-11-25"},
                                                  {"capabilities", json::object()},
                                                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}
                                               .dump()));
        setHeader(init, "mcp-protocol-version", std::nullopt);
        setHeader(init, "mcp-method", std::nullopt);
        const HttpResponse r = serveNow(init);
        for (const auto &[name, value] : r.headers) {
            if (name == "Mcp-Session-Id")
                return value;
        }
        helperFailed(QStringLiteral("initialize gave no session"));
        return {};
    }
    static HttpRequest sessionGet(const QByteArray &session, QObject *connection)
    {
        HttpRequest get = post("tools/list", {});
        get.method = "GET";
        get.body.clear();
        setHeader(get, "content-type", std::nullopt);
        setHeader(get, "mcp-protocol-version", QByteArray("2025-11-25"));
        setHeader(get, "mcp-method", std::nullopt);
        setHeader(get, "accept", QByteArray("text/event-stream"));
        setHeader(get, "mcp-session-id", session);
        get.connection = connection;
        return get;
    }
    // The one JSON-RPC message of a part of an event stream.
    static json eventMessage(const HttpResponse &part)
    {
        const QByteArray prefix = "event: message\ndata: ";
        if (!part.body.startsWith(prefix) || !part.body.endsWith("\n\n")) {
            helperFailed(QStringLiteral("not one event: %1").arg(QString::fromUtf8(part.body)));
            return {};
        }
        return json::parse(part.body.mid(prefix.size()).chopped(2).toStdString());
    }

    // The request with its caller checked as the http room checks it (HttpRoutes, Callers).
    void serve(const HttpRequest &request, McpHttpEndpoint::Responder respond) const
    {
        const auto authenticate = [](const QByteArray &token) -> std::optional<Principal> {
            if (token == kToken)
                return Principal{1, QStringLiteral("good"), {}};
            return std::nullopt;
        };
        m_endpoint->serve(request, LocalCaller::check(request, authenticate, {}), std::move(respond));
    }

    HttpResponse serveNow(const HttpRequest &request) const
    {
        std::optional<HttpResponse> response;
        serve(request, [&response](HttpResponse r) { response = std::move(r); });
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
        m_endpoint = std::make_unique<McpHttpEndpoint>(*m_dispatcher);
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
    void otherMethods_are405WithAllow()
    {
        for (const QByteArray method : {"PUT", "PATCH", "OPTIONS", "HEAD"}) {
            HttpRequest request = post("tools/list", {});
            request.method = method;
            const HttpResponse response = serveNow(request);
            QCOMPARE(response.status, 405);
            QVERIFY(
                response.headers.contains(qMakePair(QByteArray("Allow"), QByteArray("GET, POST, DELETE"))));
        }
    }
    void get_needsTheTokenAnEventStreamAndALiveSession()
    {
        HttpRequest get = post("tools/list", {});
        get.method = "GET";
        get.body.clear();
        setHeader(get, "content-type", std::nullopt);
        setHeader(get, "authorization", QByteArray("Bearer cs_other"));
        QCOMPARE(serveNow(get).status, 401);
        setHeader(get, "authorization", "Bearer " + kToken);
        setHeader(get, "accept", QByteArray("application/json"));
        QCOMPARE(serveNow(get).status, 406);
        setHeader(get, "accept", QByteArray("text/event-stream"));
        const HttpResponse noSession = serveNow(get);
        QCOMPARE(noSession.status, 400);
        QVERIFY2(noSession.body.contains("subscriptions/listen"), noSession.body.constData());
        setHeader(get, "mcp-session-id", QByteArray("0123456789abcdef0123456789abcdef"));
        QCOMPARE(serveNow(get).status, 404);
        QCOMPARE(m_endpoint->openStreams(), 0);
    }
    // A 2025-era session's GET stream hears the tool list change; a second GET replaces the first
    // (one message, one stream); DELETE ends it.
    void get_sessionStream_hearsListChanged_andEndsWithTheSession()
    {
        const QByteArray session = initialize();
        QObject connection1, connection2;
        QList<HttpResponse> first, second;
        serve(sessionGet(session, &connection1), [&](HttpResponse r) { first.append(r); });
        QCOMPARE(first.size(), 1);
        QCOMPARE(first[0].stream, HttpResponse::Stream::Open);
        QCOMPARE(first[0].status, 200);
        QVERIFY(first[0].headers.contains(
            qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream"))));
        m_endpoint->notifyToolsChanged();
        QCOMPARE(first.size(), 2);
        QCOMPARE(first[1].stream, HttpResponse::Stream::More);
        QCOMPARE_JSON(eventMessage(first[1]),
                      json({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}));

        serve(sessionGet(session, &connection2), [&](HttpResponse r) { second.append(r); });
        QCOMPARE(first.last().stream, HttpResponse::Stream::End); // replaced
        QCOMPARE(m_endpoint->openStreams(), 1);
        m_endpoint->notifyToolsChanged();
        QCOMPARE(first.size(), 3);
        QCOMPARE(second.size(), 2);

        HttpRequest end = post("tools/list", {});
        end.method = "DELETE";
        end.body.clear();
        setHeader(end, "mcp-session-id", session);
        QCOMPARE(serveNow(end).status, 204);
        QCOMPARE(second.last().stream, HttpResponse::Stream::End);
        QCOMPARE(m_endpoint->openStreams(), 0);
    }
    void listen_acknowledgesWhatItHonours_tagsEachNotification_andEndsGracefully()
    {
        QObject connection;
        QList<HttpResponse> parts;
        HttpRequest listen =
            post("subscriptions/listen",
                 body("subscriptions/listen",
                      {{"notifications", {{"toolsListChanged", true}, {"promptsListChanged", true}}}}));
        listen.connection = &connection;
        serve(listen, [&](HttpResponse r) { parts.append(r); });
        QCOMPARE(parts.size(), 1);
        QCOMPARE(parts[0].stream, HttpResponse::Stream::Open);
        const json tag = {{"io.modelcontextprotocol/subscriptionId", 41}};
        QCOMPARE_JSON(eventMessage(parts[0]),
                      json({{"jsonrpc", "2.0"},
                            {"method", "notifications/subscriptions/acknowledged"},
                            {"params", {{"_meta", tag}, {"notifications", {{"toolsListChanged", true}}}}}}));
        m_endpoint->notifyToolsChanged();
        QCOMPARE_JSON(eventMessage(parts[1]), json({{"jsonrpc", "2.0"},
                                                    {"method", "notifications/tools/list_changed"},
                                                    {"params", {{"_meta", tag}}}}));
        m_endpoint->endStreams();
        QCOMPARE(parts[2].stream, HttpResponse::Stream::End);
        QCOMPARE_JSON(
            eventMessage(parts[2]),
            json({{"jsonrpc", "2.0"}, {"id", 41}, {"result", {{"resultType", "complete"}, {"_meta", tag}}}}));
        QCOMPARE(m_endpoint->openStreams(), 0);
    }
    void listen_forPromptsOnly_hearsNoToolChange_andAClosedConnectionIsDropped()
    {
        QList<HttpResponse> parts;
        {
            QObject connection;
            HttpRequest listen =
                post("subscriptions/listen",
                     body("subscriptions/listen", {{"notifications", {{"promptsListChanged", true}}}}));
            listen.connection = &connection;
            serve(listen, [&](HttpResponse r) { parts.append(r); });
            QCOMPARE_JSON(eventMessage(parts[0]).at("params").at("notifications"), json::object());
            m_endpoint->notifyToolsChanged();
            QCOMPARE(parts.size(), 1);
            QCOMPARE(m_endpoint->openStreams(), 1);
        }
        QCOMPARE(m_endpoint->openStreams(), 0); // its connection is gone
    }
    void listen_mistypedFilter_isInvalidParams_andNoStream()
    {
        for (const json &filter :
             {json(nullptr), json("tools"), json({{"toolsListChanged", "yes"}}),
              json({{"resourceSubscriptions", {1, 2}}}), json({{"resourceSubscriptions", "x"}})}) {
            json extra = json::object();
            if (!filter.is_null())
                extra["notifications"] = filter;
            const HttpResponse response =
                serveNow(post("subscriptions/listen", body("subscriptions/listen", extra)));
            QCOMPARE(response.stream, HttpResponse::Stream::None);
            QCOMPARE(json::parse(response.body.toStdString()).at("error").at("code").get<int>(),
                     JsonRpc::kInvalidParams);
        }
        QCOMPARE(m_endpoint->openStreams(), 0);
    }
    void streams_perConnection_atMostSixteen_moreAreRefused()
    {
        // Half session GET streams, half listens, and one more of each: those two are refused
        // (ending the oldest instead would have two clients take turns ending each other).
        QObject connection;
        QList<QList<HttpResponse>> streams(ListenStreams::kMaxPerPrincipal + 2);
        for (qsizetype i = 0; i < streams.size(); ++i) {
            auto &parts = streams[i];
            HttpRequest open =
                i % 2 ? sessionGet(initialize(), &connection)
                      : post("subscriptions/listen",
                             body("subscriptions/listen", {{"notifications", {{"toolsListChanged", true}}}}));
            open.connection = &connection;
            serve(open, [&parts](HttpResponse r) { parts.append(r); });
        }
        QCOMPARE(m_endpoint->openStreams(), ListenStreams::kMaxPerPrincipal);
        for (qsizetype i = 0; i < ListenStreams::kMaxPerPrincipal; ++i)
            QCOMPARE(streams[i].last().stream, HttpResponse::Stream::Open);
        for (qsizetype i = ListenStreams::kMaxPerPrincipal; i < streams.size(); ++i) {
            QCOMPARE(streams[i].size(), 1);
            QCOMPARE(streams[i].last().status, 429);
            QCOMPARE(streams[i].last().stream, HttpResponse::Stream::None);
        }
        QCOMPARE_JSON(json::parse(streams.last().last().body.toStdString()).at("id"),
                      json(nullptr)); // the GET
        QCOMPARE_JSON(
            json::parse(streams[ListenStreams::kMaxPerPrincipal].last().body.toStdString()).at("id"),
            json(41)); // the listen
        m_endpoint->endStreams();
    }
    void keepAlive_commentsToLiveStreams_andEndsThoseWhoseSessionWentOrTokenWasRevoked()
    {
        ListenStreams streams;
        bool active = true, sessionLives = true;
        streams.setChecks([&active](qint64) { return active; },
                          [&sessionLives](const QByteArray &, qint64) { return sessionLives; });
        QObject connection;
        QList<HttpResponse> session, listen;
        QVERIFY(streams.openSession("s1", 1, &connection, [&](HttpResponse r) { session.append(r); }));
        QVERIFY(
            streams.listen(Subscription::fromRequest(
                               McpRequest{7, "subscriptions/listen", {{"notifications", json::object()}}, {}})
                               .value(),
                           1, &connection, [&](HttpResponse r) { listen.append(r); }));
        streams.keepAlive();
        QCOMPARE(session.last().body, QByteArray(": keepalive\n\n"));
        QCOMPARE(listen.last().body, QByteArray(": keepalive\n\n"));
        sessionLives = false; // dropped (idle, or the 65th of its connection): its stream ends at the tick
        streams.keepAlive();
        QCOMPARE(session.last().stream, HttpResponse::Stream::End);
        QCOMPARE(listen.last().body, QByteArray(": keepalive\n\n"));
        active = false; // revoked: ended at the tick, with no tool change needed
        streams.keepAlive();
        QCOMPARE(listen.last().stream, HttpResponse::Stream::End);
        QCOMPARE(streams.count(), 0);
    }
    void sessionStream_keepsItsSessionAlive()
    {
        // The endpoint's session check asks LegacySessions, which counts the asking as use.
        QObject connection;
        QList<HttpResponse> parts;
        const QByteArray id = initialize();
        serve(sessionGet(id, &connection), [&](HttpResponse r) { parts.append(r); });
        m_endpoint->keepAlive();
        QCOMPARE(parts.last().body, QByteArray(": keepalive\n\n"));
        HttpRequest end = post("tools/list", {});
        end.method = "DELETE";
        end.body.clear();
        setHeader(end, "mcp-session-id", id);
        QCOMPARE(serveNow(end).status, 204);
        QCOMPARE(parts.last().stream, HttpResponse::Stream::End);
    }
    void streams_ofARevokedToken_endAtTheNextNotification()
    {
        bool active = true;
        m_endpoint->setConnectionCheck([&active](qint64) { return active; });
        QObject connection;
        QList<HttpResponse> parts;
        serve(sessionGet(initialize(), &connection), [&](HttpResponse r) { parts.append(r); });
        m_endpoint->notifyToolsChanged();
        QCOMPARE(parts.size(), 2);
        active = false;
        m_endpoint->notifyToolsChanged();
        QCOMPARE(parts.size(), 3);
        QCOMPARE(parts.last().stream, HttpResponse::Stream::End);
        QVERIFY(!parts.last().body.contains("list_changed"));
        QCOMPARE(m_endpoint->openStreams(), 0);
        m_endpoint->setConnectionCheck({});
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
