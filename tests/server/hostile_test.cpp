// The hostile input corpus: more than 200 malformed or malicious requests over real loopback HTTP
// to the real server (McpServer with its database, tools and gate, in its own thread). Each gets
// the right status (and JSON-RPC code where there is a body), and the server keeps serving.
#include "database.h"
#include "mcpserver.h"
#include "serverkeys.h"
#include "systemclock.h"
#include "ticketsealer.h"
#include "tokenstore.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <sodium.h>

using namespace Countersign;
using json = nlohmann::json;

namespace {

const char *kEnvelope =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

QByteArray rpc(const QByteArray &method, const QByteArray &params = "{}", const QByteArray &id = "1")
{
    QByteArray p = params;
    p.insert(p.size() - 1, QByteArray(p == "{}" ? "" : ",") + kEnvelope);
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + p + "}";
}

struct Case
{
    QByteArray raw;
    int status = 0; // expected HTTP status; 0: the server may close without answering
    int code = 0;   // expected JSON-RPC error code, 0: not checked
};

} // namespace

class HostileTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QThread m_thread;
    SystemClock m_clock;
    McpServer *m_server = nullptr;
    quint16 m_port = 0;
    QByteArray m_token;

    QByteArray request(const QByteArray &body, const QList<QByteArray> &headers = {},
                       const QByteArray &start = "POST /mcp HTTP/1.1", bool defaults = true,
                       const QByteArray &method = "tools/list")
    {
        QByteArray out = start + "\r\n";
        if (defaults) {
            out += "Host: 127.0.0.1:" + QByteArray::number(m_port) + "\r\nAuthorization: Bearer " + m_token +
                   "\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: " +
                   method + "\r\n";
        }
        for (const QByteArray &h : headers)
            out += h + "\r\n";
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        return out;
    }
    // Sends raw bytes on a fresh connection; returns the status line's code (0: closed without one) and the
    // body.
    std::pair<int, QByteArray> send(const QByteArray &raw)
    {
        QTcpSocket s;
        s.connectToHost(QStringLiteral("127.0.0.1"), m_port);
        if (!s.waitForConnected(2000))
            return {-1, {}};
        s.write(raw);
        s.flush();
        QByteArray in;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 5000) {
            const qsizetype headEnd = in.indexOf("\r\n\r\n");
            if (headEnd >= 0) {
                const qsizetype at = in.toLower().indexOf("content-length: ");
                const qsizetype len =
                    at < 0 ? 0 : in.mid(at + 16, in.indexOf("\r\n", at) - at - 16).toLongLong();
                if (in.size() >= headEnd + 4 + len)
                    return {in.mid(9, 3).toInt(), in.mid(headEnd + 4, len)};
            }
            if (s.state() != QAbstractSocket::ConnectedState && s.bytesAvailable() == 0)
                break;
            s.waitForReadyRead(100);
            in += s.readAll();
        }
        return {in.startsWith("HTTP/1.1 ") ? in.mid(9, 3).toInt() : 0, {}};
    }

    QList<std::pair<QByteArray, Case>> corpus()
    {
        QList<std::pair<QByteArray, Case>> c;
        const QByteArray ok = rpc("tools/list");
        const auto add = [&c](const QByteArray &name, QByteArray raw, int status, int code = 0) {
            c.append({name, Case{std::move(raw), status, code}});
        };
        // Content types.
        for (const QByteArray &ct :
             QByteArrayList{"text/plain", "application/xml", "application/jsonp", "application/json-seq",
                            "multipart/form-data", "application/x-www-form-urlencoded", "", "json",
                            "application/", "*/*", "text/json", "application/javascript",
                            "application/ld+json", "image/png", "application/octet-stream", "applicationjson",
                            "application/json\x01", "application/ json"}) {
            QByteArray raw = request(ok);
            raw.replace("Content-Type: application/json", "Content-Type: " + ct);
            add("content-type " + ct, raw,
                ct.contains('\x01') ? 400 : 415); // control bytes stop the parser first
        }
        // Host and Origin (DNS rebinding).
        for (const QByteArray &host :
             QByteArrayList{"evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "0.0.0.0",
                            "10.0.0.1", "[::ffff:10.0.0.1]", "127.0.0.1@evil.example", "evil.example:7331",
                            "", "127.0.0.1 evil", "LOCALHOST.evil", "2130706433", "127.1"}) {
            QByteArray raw = request(ok);
            raw.replace("Host: 127.0.0.1:" + QByteArray::number(m_port), "Host: " + host);
            add("host " + host, raw, host.isEmpty() ? 403 : 403);
        }
        for (const QByteArray &origin :
             QByteArrayList{"http://evil.example", "https://127.0.0.1.evil.example", "null", "file://",
                            "http://localhost.evil", "chrome-extension://abc", "http://10.0.0.1:7331",
                            "http://[::1].evil"})
            add("origin " + origin, request(ok, {"Origin: " + origin}), 403);
        // Bearer tokens.
        for (const QByteArray &auth : QByteArrayList{
                 "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer cs_wrong", "Bearer " + m_token + "x",
                 "Bearer " + m_token.left(m_token.size() - 1), "Token " + m_token,
                 "Bearer\t" + m_token + "\t\t", "Bearer " + QByteArray(5000, 'a')}) {
            QByteArray raw = request(ok);
            raw.replace("Authorization: Bearer " + m_token + "\r\n",
                        auth.isEmpty() ? QByteArray() : "Authorization: " + auth + "\r\n");
            add("auth " + auth.left(20), raw, 401);
        }
        // Bodies that are not JSON, or not UTF-8, or not one JSON-RPC request.
        for (const QByteArray &body : QByteArrayList{
                 QByteArray(""), QByteArray("{"), QByteArray("}"), QByteArray("nul"), QByteArray("{\"a\":}"),
                 QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\"}"),
                 QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\x28\"}"),
                 QByteArray("{\"a\":\"\xed\xa0\x80\"}"), QByteArray("\xef\xbb\xbf{}"), QByteArray("{}{}"),
                 QByteArray("{\"a\":1}garbage"), QByteArray("[1,2"), QByteArray("{\"a\":NaN}"),
                 QByteArray("{'a':1}"), QByteArray("\"\\ud800\""), QByteArray(1000, '['),
                 QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"tools/list\"}"),
                 QByteArray(
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"method\":\"tools/call\"}")})
            add("body " + body.left(16).toHex(), request(body), 400,
                body.startsWith("\xef\xbb\xbf")
                    ? -32600
                    : -32700); // a BOM may be ignored (RFC 8259); {} is then no request
        for (int depth : {65, 66, 100, 500, 5000, 50000}) {
            const QByteArray deep = QByteArray(depth, '[') + QByteArray(depth, ']');
            add("nesting array " + QByteArray::number(depth), request(deep), 400, -32700);
            QByteArray obj;
            for (int i = 0; i < depth; ++i)
                obj += "{\"a\":";
            obj += "1" + QByteArray(depth, '}');
            add("nesting object " + QByteArray::number(depth), request(obj), 400, -32700);
        }
        for (const QByteArray &body : QByteArrayList{
                 QByteArray("[]"), QByteArray("[" + ok + "]"), QByteArray("[" + ok + "," + ok + "]"),
                 QByteArray("null"), QByteArray("1"), QByteArray("\"s\""), QByteArray("true")})
            add("not a request " + body.left(12), request(body), 400, -32600);
        // JSON-RPC shape and ids.
        for (const QByteArray &id :
             QByteArrayList{"1.5", "1e308", "-1e400", "1180591620717411303424", "true", "null", "[]", "{}"})
            add("id " + id, request("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}"),
                id == "-1e400" ? 400 : 400, id == "-1e400" ? -32700 : -32600);
        add("huge string id", request(rpc("tools/list", "{}", "\"" + QByteArray(100000, 'i') + "\"")), 200);
        add("negative id", request(rpc("tools/list", "{}", "-9223372036854775808")), 200);
        for (const QByteArray &v : QByteArrayList{"\"1.0\"", "2", "null", "\"2.1\""})
            add("jsonrpc " + v, request("{\"jsonrpc\":" + v + ",\"id\":1,\"method\":\"tools/list\"}"), 400,
                -32600);
        for (const QByteArray &m :
             QByteArrayList{"1", "null", "\"\"", "[]", "\"" + QByteArray(300, 'm') + "\""})
            add("method " + m.left(10), request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":" + m + "}"), 400,
                -32600);
        add("params array", request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":[]}"),
            400, -32600);
        add("response posted", request("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"), 400, -32600);
        // Envelope and MCP headers.
        for (const QByteArray &meta : QByteArrayList{
                 "{}", "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}",
                 "{\"io.modelcontextprotocol/protocolVersion\":7,\"io.modelcontextprotocol/"
                 "clientCapabilities\":{}}",
                 "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"
                 "clientCapabilities\":[]}",
                 "[]", "\"x\""})
            add("envelope " + meta.left(30),
                request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":" +
                        meta + "}}"),
                400, meta == "{}" || meta == "[]" || meta == "\"x\"" ? -32602 : -32602);
        for (const QByteArray &v : QByteArrayList{"2025-11-25", "2026-07-29", "", "1"}) {
            QByteArray raw = request(ok);
            raw.replace("MCP-Protocol-Version: 2026-07-28", "MCP-Protocol-Version: " + v);
            add("header version " + v, raw, 400);
        }
        for (const QByteArray &m : QByteArrayList{"tools/call", "", "TOOLS/LIST", "tools/list "}) {
            QByteArray raw = request(ok);
            raw.replace("Mcp-Method: tools/list", "Mcp-Method: " + m);
            add("header method " + m, raw, m == "tools/list " ? 200 : 400,
                m == "tools/list " ? 0 : -32020); // HTTP trims OWS
        }
        const QByteArray call = rpc("tools/call", "{\"name\":\"countersign_status\",\"arguments\":{}}");
        for (const QByteArray &n :
             QByteArrayList{"other", "=?base64?b3RoZXI=?=", "=?base64?!!!?=", "", "=?base64?\?="})
            add("header name " + n,
                request(call, {"Mcp-Name: " + n}, "POST /mcp HTTP/1.1", true, "tools/call"), 400, -32020);
        add("header name missing", request(call, {}, "POST /mcp HTTP/1.1", true, "tools/call"), 400, -32020);
        for (const QByteArray &m :
             QByteArrayList{"resources/list", "prompts/get", "ping", "initialize ", "x/y", "tools/listx"})
            add("unknown method " + m, request(rpc(m), {}, "POST /mcp HTTP/1.1", true, m),
                m == "initialize " ? 400 : 404,
                m == "initialize " ? -32020
                                   : -32601); // the header's trailing space is trimmed, the body's is not
        add("unknown tool",
            request(rpc("tools/call", "{\"name\":\"rm_rf\"}"), {"Mcp-Name: rm_rf"}, "POST /mcp HTTP/1.1",
                    true, "tools/call"),
            200, -32602);
        add("tool args not object",
            request(rpc("tools/call", "{\"name\":\"countersign_status\",\"arguments\":[1]}"),
                    {"Mcp-Name: countersign_status"}, "POST /mcp HTTP/1.1", true, "tools/call"),
            200, -32602);
        // Framing and smuggling.
        const QByteArray host = "Host: 127.0.0.1\r\n";
        add("TE chunked",
            "POST /mcp HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            501);
        add("TE and CL",
            "POST /mcp HTTP/1.1\r\n" + host +
                "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
            501);
        add("TE obfuscated",
            "POST /mcp HTTP/1.1\r\n" + host + "Transfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n",
            400);
        for (const QByteArray &cl : QByteArrayList{
                 "Content-Length: 2\r\nContent-Length: 3", "Content-Length: -1", "Content-Length: +5",
                 "Content-Length: 0x10", "Content-Length: 1 2", "Content-Length: 99999999999999999999",
                 "Content-Length: ", "Content-Length: 5,5"})
            add("CL " + cl.left(24), "POST /mcp HTTP/1.1\r\n" + host + cl + "\r\n\r\n{}", 400);
        add("CL over limit", "POST /mcp HTTP/1.1\r\n" + host + "Content-Length: 2000000\r\n\r\n", 413);
        add("no CL with body", "POST /mcp HTTP/1.1\r\n" + host + "\r\n{}", 411);
        add("obs-fold", "POST /mcp HTTP/1.1\r\n" + host + "X-A: 1\r\n folded\r\nContent-Length: 0\r\n\r\n",
            400);
        add("bare LF", "POST /mcp HTTP/1.1\n" + host + "Content-Length: 0\n\n", 400);
        add("NUL in header",
            "POST /mcp HTTP/1.1\r\n" + host + QByteArray("X-A: a\0b\r\n", 10) + "Content-Length: 0\r\n\r\n",
            400);
        add("space before colon", "POST /mcp HTTP/1.1\r\n" + host + "Content-Length : 0\r\n\r\n", 400);
        add("duplicate Host", "POST /mcp HTTP/1.1\r\n" + host + host + "Content-Length: 0\r\n\r\n", 400);
        add("huge header", "POST /mcp HTTP/1.1\r\n" + host + "X-Big: " + QByteArray(20000, 'x') + "\r\n\r\n",
            431);
        QByteArray many = "POST /mcp HTTP/1.1\r\n" + host;
        for (int i = 0; i < 70; ++i)
            many += "X-H" + QByteArray::number(i) + ": v\r\n";
        add("too many headers", many + "\r\n", 431);
        add("HTTP/2.0", "POST /mcp HTTP/2.0\r\n" + host + "Content-Length: 0\r\n\r\n", 505);
        add("HTTP/0.9", "GET /mcp\r\n\r\n", 400);
        add("TLS hello", QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15), 400);
        for (const QByteArray &m : QByteArrayList{"PUT", "OPTIONS", "HEAD", "PATCH", "CONNECT", "TRACE"})
            add("method " + m, m + " /mcp HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n", 405);
        // GET opens a 2025-era session's event stream: the token first, then the session it names.
        add("GET without a token", "GET /mcp HTTP/1.1\r\n" + host + "Accept: text/event-stream\r\n\r\n", 401);
        // DELETE ends a 2025-era session: the token first, then the session it names.
        add("DELETE without a token", "DELETE /mcp HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n", 401);
        for (const QByteArray &target :
             QByteArrayList{"/", "/mcp/", "/MCP", "/approvals/xyz", "/approvals/../mcp", "http://evil/mcp",
                            "/mcp%00", "//mcp", "/mcp/..", "*", "/favicon.ico", "/.env"})
            add("target " + target, request(ok, {}, "POST " + target + " HTTP/1.1"), 404);
        // More invalid UTF-8 (overlong, surrogates, beyond U+10FFFF, truncated, stray continuation).
        for (const QByteArray &bad : QByteArrayList{
                 QByteArray("\xc0\xaf"), QByteArray("\xe0\x80\xaf"), QByteArray("\xf8\x88\x80\x80\x80"),
                 QByteArray("\xfe"), QByteArray("\x80"), QByteArray("\xe2\x82"), QByteArray("\xed\xbf\xbf"),
                 QByteArray("\xf4\x90\x80\x80"), QByteArray("\xc1\xbf"), QByteArray("\xf0\x80\x80\xaf")})
            add("utf-8 " + bad.toHex(),
                request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"" + bad +
                        "\"}}"),
                400, -32700);
        // Duplicate headers that must be unique.
        for (const QByteArray &h :
             QByteArrayList{"Content-Type: application/json", "Authorization: Bearer cs_other",
                            "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list", "Host: 127.0.0.1"})
            add("duplicate " + h.left(h.indexOf(':')), request(ok, {h}), 400);
        // Notifications: accepted, nothing answered.
        for (const QByteArray &n : QByteArrayList{"notifications/cancelled", "notifications/initialized",
                                                  "notifications/x", "tools/list", "y"})
            add("notification " + n,
                request("{\"jsonrpc\":\"2.0\",\"method\":\"" + n + "\",\"params\":{}}", {},
                        "POST /mcp HTTP/1.1", true, n),
                202);
        // Valid requests with hostile contents still get proper answers.
        const QByteArray statusCall = "POST /mcp HTTP/1.1";
        for (const QByteArray &args :
             QByteArrayList{"{\"x\":1}", "{\"x\":{\"y\":[1,2,{}]}}", "{\"\":null}", "{\"a\":\"\\u0000\"}"})
            add("status tool args " + args,
                request(rpc("tools/call", "{\"name\":\"countersign_status\",\"arguments\":" + args + "}"),
                        {"Mcp-Name: countersign_status"}, statusCall, true, "tools/call"),
                200);
        QByteArray wide = "{";
        for (int i = 0; i < 10000; ++i)
            wide += "\"k" + QByteArray::number(i) + "\":" + QByteArray::number(i) + (i < 9999 ? "," : "");
        wide += "}";
        add("10000 params", request(rpc("tools/list", wide)), 200);
        add("request state on a plain tool",
            request(rpc("tools/call", "{\"name\":\"countersign_status\",\"requestState\":\"cs1.x.y\"}"),
                    {"Mcp-Name: countersign_status"}, statusCall, true, "tools/call"),
            200);
        return c;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(sodium_init() >= 0);
        const QString dbPath = m_dir.filePath(QStringLiteral("hostile.db"));
        {
            auto db = Database::open(dbPath);
            QVERIFY(db.ok());
            SystemClock clock;
            TokenStore tokens(*db.value(), clock);
            m_token = tokens.add(QStringLiteral("hostile"), QStringLiteral("tester")).value().toLatin1();
        }
        ServerKeys keys;
        keys.ticketKey = TicketSealer::generateKey();
        keys.kid = QStringLiteral("hostile");
        keys.signingSeed = QByteArray(32, '\x09');
        Config config;
        config.overrideListen(QStringLiteral("127.0.0.1"), 0);
        m_server = new McpServer(McpServer::Setup{config, dbPath, keys, &m_clock, {}, {}, {}, {}, {}, {}});
        m_server->moveToThread(&m_thread);
        m_thread.start();
        Result<quint16> port = failure(QString());
        QMetaObject::invokeMethod(
            m_server, [&] { port = m_server->start(); }, Qt::BlockingQueuedConnection);
        QVERIFY2(port.ok(), port.ok() ? "" : qPrintable(port.error()));
        m_port = port.value();
    }
    void cleanupTestCase()
    {
        QMetaObject::invokeMethod(
            m_server, [this] { delete m_server; }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    void corpus_eachGetsTheRightError_andTheServerKeepsServing()
    {
        const auto cases = corpus();
        QVERIFY2(cases.size() >= 200, qPrintable(QString::number(cases.size())));
        int checked = 0;
        QStringList wrong;
        for (const auto &[name, c] : cases) {
            const auto [status, body] = send(c.raw);
            if (status != c.status) {
                wrong.append(QStringLiteral("%1: status %2, expected %3; body %4")
                                 .arg(QString::fromLatin1(name))
                                 .arg(status)
                                 .arg(c.status)
                                 .arg(QString::fromUtf8(body.left(200))));
            } else if (c.code != 0) {
                const json reply = json::parse(body.toStdString(), nullptr, false);
                if (!reply.is_object() || !reply.contains("error") ||
                    reply["error"].value("code", 0) != c.code)
                    wrong.append(QStringLiteral("%1: expected code %2, got %3")
                                     .arg(QString::fromLatin1(name))
                                     .arg(c.code)
                                     .arg(QString::fromUtf8(body.left(200))));
            }
            if (++checked % 20 == 0 && send(request(rpc("tools/list"))).first != 200)
                wrong.append(
                    QStringLiteral("after %1: the server stopped serving").arg(QString::fromLatin1(name)));
        }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
        qInfo("%d hostile requests answered as expected", checked);
        QCOMPARE(send(request(rpc("tools/list"))).first, 200);
    }
    void slowLorisConnections_doNotStopOthers()
    {
        std::vector<std::unique_ptr<QTcpSocket>> held;
        for (int i = 0; i < 50; ++i) {
            auto s = std::make_unique<QTcpSocket>();
            s->connectToHost(QStringLiteral("127.0.0.1"), m_port);
            QVERIFY(s->waitForConnected(2000));
            s->write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
            s->flush();
            held.push_back(std::move(s));
        }
        for (int i = 0; i < 5; ++i)
            QCOMPARE(send(request(rpc("tools/list"))).first, 200);
        // Truncated bodies whose clients go away: nothing to answer, nothing stuck.
        for (int i = 0; i < 20; ++i) {
            QTcpSocket s;
            s.connectToHost(QStringLiteral("127.0.0.1"), m_port);
            QVERIFY(s.waitForConnected(2000));
            QByteArray raw = request(rpc("tools/list"));
            s.write(raw.left(raw.size() - 5 - i));
            s.flush();
            s.abort();
        }
        QCOMPARE(send(request(rpc("tools/list"))).first, 200);
    }
};

QTEST_GUILESS_MAIN(HostileTest)
#include "hostile_test.moc"
