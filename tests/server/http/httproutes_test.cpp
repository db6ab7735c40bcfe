#include "approvalpage.h"
#include "callers.h"
#include "database.h"
#include "fakeclock.h"
#include "httprequest.h"
#include "httproutes.h"
#include "tokenstore.h"

#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>

using namespace Countersign;

// The http room's doors: which path opens which, and the caller each agent's door is handed
// (checked once, here, before any door runs).
class HttpRoutesTest : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<Database> m_db;
    FakeClock m_clock;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<Callers> m_callers;
    std::unique_ptr<HttpRoutes> m_routes;
    QByteArray m_token;
    // What each door saw: its name, and the refusal of the caller it was handed.
    QStringList m_opened;
    QList<LocalCaller::Checked> m_callersSeen;

    static HttpResponse refuse(int status, const QString &reason)
    {
        HttpResponse r;
        r.status = status;
        r.body = reason.toUtf8();
        return r;
    }
    HttpRoutes::AgentDoor door(const QString &name)
    {
        return [this, name](const HttpRequest &, const LocalCaller::Checked &caller,
                            HttpRoutes::Responder respond) {
            m_opened.append(name);
            m_callersSeen.append(caller);
            HttpResponse r;
            r.status = 200;
            r.body = name.toUtf8();
            respond(r);
        };
    }
    static HttpRequest request(const QByteArray &method, const QByteArray &target, const QByteArray &host,
                               const QByteArray &token = {})
    {
        HttpRequest r;
        r.method = method;
        r.target = target;
        r.headers.append(qMakePair(QByteArray("host"), host));
        if (!token.isEmpty())
            r.headers.append(qMakePair(QByteArray("authorization"), "Bearer " + token));
        return r;
    }
    HttpResponse routeNow(const HttpRequest &request)
    {
        std::optional<HttpResponse> answer;
        m_routes->route(request, [&answer](HttpResponse r) { answer = std::move(r); });
        if (!answer)
            return refuse(0, QStringLiteral("no answer"));
        return std::move(*answer);
    }

private Q_SLOTS:
    void init()
    {
        auto db = Database::open(QStringLiteral(":memory:"));
        QVERIFY(db.ok());
        m_db = std::move(db).value();
        m_tokens = std::make_unique<TokenStore>(*m_db, m_clock);
        auto token = m_tokens->add(QStringLiteral("cli"), QStringLiteral("alice"));
        QVERIFY(token.ok());
        m_token = token.value().toLatin1();
        m_callers = std::make_unique<Callers>(*m_tokens);
        m_routes = std::make_unique<HttpRoutes>(*m_callers, &HttpRoutesTest::refuse);
        m_routes->addAgentDoor("/mcp", door(QStringLiteral("mcp")));
        m_routes->addAgentDoor("/hooks/", door(QStringLiteral("hooks")));
        m_opened.clear();
        m_callersSeen.clear();
    }
    void cleanup()
    {
        m_routes.reset();
        m_callers.reset();
        m_tokens.reset();
        m_db.reset();
    }

    void wholePath_andPrefix_openTheirDoors_andNothingElseDoes()
    {
        QCOMPARE(routeNow(request("POST", "/mcp", "127.0.0.1:1", m_token)).body, QByteArray("mcp"));
        QCOMPARE(routeNow(request("POST", "/mcp?x=1", "127.0.0.1:1", m_token)).body, QByteArray("mcp"));
        QCOMPARE(routeNow(request("POST", "/hooks/claude-code", "localhost", m_token)).body,
                 QByteArray("hooks"));
        for (const QByteArray &target :
             {QByteArray("/mcp/"), QByteArray("/MCP"), QByteArray("/mcpx"), QByteArray("/hooks"),
              QByteArray("http://evil/mcp"), QByteArray("/")}) {
            const HttpResponse r = routeNow(request("POST", target, "127.0.0.1", m_token));
            QVERIFY2(r.status == 404, target.constData());
        }
        QCOMPARE(m_opened,
                 (QStringList{QStringLiteral("mcp"), QStringLiteral("mcp"), QStringLiteral("hooks")}));
    }

    // The door words the refusal, but the check is made before it runs, and the same for each door.
    void agentDoor_isHandedItsCallerChecked()
    {
        routeNow(request("POST", "/mcp", "127.0.0.1", m_token));
        routeNow(request("POST", "/mcp", "evil.example", m_token));
        routeNow(request("POST", "/hooks/codex", "localhost", "cs_unknown"));
        routeNow(request("POST", "/mcp", "localhost"));
        QCOMPARE(m_callersSeen.size(), 4);
        QCOMPARE(m_callersSeen[0].refusal, LocalCaller::Refusal::None);
        QCOMPARE(m_callersSeen[0].principal->name, QStringLiteral("cli"));
        QCOMPARE(m_callersSeen[1].refusal, LocalCaller::Refusal::Host);
        QVERIFY(!m_callersSeen[1].principal);
        QCOMPARE(m_callersSeen[2].refusal, LocalCaller::Refusal::UnknownToken);
        QCOMPARE(m_callersSeen[3].refusal, LocalCaller::Refusal::NoToken);
    }

    void aForeignOrigin_isRefused_aLoopbackOneIsNot()
    {
        HttpRequest fromPage = request("POST", "/mcp", "127.0.0.1", m_token);
        fromPage.headers.append(qMakePair(QByteArray("origin"), QByteArray("https://evil.example")));
        HttpRequest fromLocal = request("POST", "/mcp", "127.0.0.1", m_token);
        fromLocal.headers.append(qMakePair(QByteArray("origin"), QByteArray("http://localhost:5173")));
        routeNow(fromPage);
        routeNow(fromLocal);
        QCOMPARE(m_callersSeen[0].refusal, LocalCaller::Refusal::Origin);
        QVERIFY(!m_callersSeen[0].principal);
        QCOMPARE(m_callersSeen[1].refusal, LocalCaller::Refusal::None);
    }

    // A store that cannot be read refuses every token for that reason, which the door says (503
    // at /mcp, a deny at /hooks), not as an unknown token.
    void anUnreadableStore_isSaid_notTakenForAnUnknownToken()
    {
        QSqlQuery drop(QSqlDatabase::database(m_db->connectionName()));
        QVERIFY(drop.exec(QStringLiteral("ALTER TABLE connections RENAME TO connections_gone")));
        routeNow(request("POST", "/mcp", "127.0.0.1", m_token));
        QCOMPARE(m_callersSeen[0].refusal, LocalCaller::Refusal::StoreUnreadable);
        QVERIFY(!m_callersSeen[0].detail.isEmpty());
        QVERIFY(!m_callersSeen[0].principal);
    }

    // Only an agent's door looks the token up: a path with no door and a page never do, so the
    // window is not told of them.
    void noDoor_andPages_neverLookTheTokenUp()
    {
        ApprovalPage page;
        m_routes->addPage(ApprovalPage::kPath, std::bind_front(&ApprovalPage::serve, &page));
        QSignalSpy told(m_callers.get(), &Callers::requestFrom);
        QCOMPARE(routeNow(request("POST", "/nothing", "127.0.0.1", m_token)).status, 404);
        QCOMPARE(routeNow(request("GET", "/approvals/" + QByteArray(32, 'b'), "127.0.0.1", m_token)).status,
                 200);
        QCOMPARE(told.size(), 0);
        QVERIFY(m_callersSeen.isEmpty());
    }

    void aRevokedToken_isUnknown_fromTheNextRequestOn()
    {
        routeNow(request("POST", "/mcp", "127.0.0.1", m_token));
        QVERIFY(m_tokens->revoke(QStringLiteral("cli")).ok());
        routeNow(request("POST", "/mcp", "127.0.0.1", m_token));
        QCOMPARE(m_callersSeen[0].refusal, LocalCaller::Refusal::None);
        QCOMPARE(m_callersSeen[1].refusal, LocalCaller::Refusal::UnknownToken);
        QVERIFY(!m_callers->vouches("Bearer " + m_token));
    }

    // The window hears which connection called, at most once a second each.
    void requestFrom_isToldAtMostOnceASecond()
    {
        QSignalSpy told(m_callers.get(), &Callers::requestFrom);
        for (int i = 0; i < 5; ++i)
            routeNow(request("POST", "/mcp", "127.0.0.1", m_token));
        QCOMPARE(told.size(), 1);
        QCOMPARE(told.first().first().toString(), QStringLiteral("cli"));
        QVERIFY(m_callers->vouches("bearer " + m_token));
        QVERIFY(!m_callers->vouches("Basic " + m_token));
    }

    void approvalPage_onlyShows_toALoopbackHost_andOnlyANonce()
    {
        ApprovalPage page;
        m_routes->addPage(ApprovalPage::kPath, std::bind_front(&ApprovalPage::serve, &page));
        QSignalSpy revealed(&page, &ApprovalPage::revealRequested);
        const QByteArray nonce(32, 'a');
        const HttpResponse shown = routeNow(request("GET", "/approvals/" + nonce, "127.0.0.1:9"));
        QCOMPARE(shown.status, 200);
        QVERIFY(shown.body.contains("cannot do either"));
        QCOMPARE(routeNow(request("GET", "/approvals/" + nonce + "?from=agent", "[::1]:9")).status, 200);
        QCOMPARE(revealed.size(), 2);
        revealed.removeLast();
        QCOMPARE(revealed.first().first().toString(), QString::fromLatin1(nonce));
        for (const HttpRequest &r :
             {request("GET", "/approvals/" + nonce, "evil.example"),
              request("POST", "/approvals/" + nonce, "localhost"),
              request("GET", "/approvals/" + QByteArray(32, 'G'), "localhost"),
              request("GET", "/approvals/" + QByteArray(32, 'A'), "localhost"),
              request("GET", "/approvals/" + QByteArray(31, 'a'), "localhost"),
              request("GET", "/approvals/" + QByteArray(33, 'a'), "localhost"),
              request("GET", "/approvals/../mcp", "localhost"), request("GET", "/approvals/", "localhost")})
            QCOMPARE(routeNow(r).status, 404);
        QCOMPARE(revealed.size(), 1);
        QVERIFY(m_opened.isEmpty());
    }
};

QTEST_GUILESS_MAIN(HttpRoutesTest)
#include "httproutes_test.moc"
