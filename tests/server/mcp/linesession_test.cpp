#include "dispatcher.h"
#include "jsonrpc.h"
#include "linesession.h"
#include "statustool.h"
#include "toolregistry.h"

#include <nlohmann/json.hpp>

#include "jsoncompare.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

const json kMeta = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                    {"io.modelcontextprotocol/clientCapabilities", json::object()}};

QByteArray line(const json &message)
{
    return QByteArray::fromStdString(message.dump());
}

QByteArray listen(const json &id, const json &filter)
{
    return line({{"jsonrpc", "2.0"},
                 {"id", id},
                 {"method", "subscriptions/listen"},
                 {"params", {{"_meta", kMeta}, {"notifications", filter}}}});
}

} // namespace

// The stdio side of subscriptions/listen (2026-07-28) and of the 2025-era list_changed: every
// subscription shares the one line channel, so each message names its subscription.
class LineSessionTest : public QObject
{
    Q_OBJECT
private:
    ToolRegistry m_tools;
    std::unique_ptr<Dispatcher> m_dispatcher;
    QList<json> m_written;
    std::unique_ptr<LineSession> m_session;

    json takeOne()
    {
        if (m_written.size() != 1) {
            QTest::qFail(qPrintable(QStringLiteral("%1 messages written").arg(m_written.size())), __FILE__,
                         __LINE__);
            return {};
        }
        return m_written.takeFirst();
    }
    static json tag(const json &id) { return {{"io.modelcontextprotocol/subscriptionId", id}}; }

private Q_SLOTS:
    void initTestCase()
    {
        m_tools.add(std::make_unique<StatusTool>(QStringLiteral("1")));
        m_dispatcher = std::make_unique<Dispatcher>(
            m_tools, Dispatcher::ServerInfo{QStringLiteral("cs"), QStringLiteral("1"), {}});
    }
    void init()
    {
        m_written.clear();
        m_session = std::make_unique<LineSession>(
            *m_dispatcher,
            [] {
                return std::optional<Principal>(Principal{1, QStringLiteral("agent"), {}});
            },
            [this](const QByteArray &bytes) {
                QVERIFY(bytes.endsWith('\n'));
                m_written.append(json::parse(bytes.toStdString()));
            });
    }

    void listen_isAcknowledged_thenHearsToolChanges_taggedWithItsId()
    {
        m_session->handleLine(
            listen("sub-1", {{"toolsListChanged", true}, {"resourceSubscriptions", {"file:///x"}}}));
        QCOMPARE_JSON(
            takeOne(),
            json({{"jsonrpc", "2.0"},
                  {"method", "notifications/subscriptions/acknowledged"},
                  {"params", {{"_meta", tag("sub-1")}, {"notifications", {{"toolsListChanged", true}}}}}}));
        m_session->handleLine(listen(7, {{"promptsListChanged", true}}));
        QCOMPARE_JSON(takeOne().at("params").at("notifications"), json::object()); // nothing it honours
        m_session->notifyToolsChanged();
        QCOMPARE_JSON(takeOne(), json({{"jsonrpc", "2.0"},
                                       {"method", "notifications/tools/list_changed"},
                                       {"params", {{"_meta", tag("sub-1")}}}}));
    }
    void cancelled_endsTheSubscription()
    {
        m_session->handleLine(listen(3, {{"toolsListChanged", true}}));
        m_written.clear();
        m_session->handleLine(line(
            {{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 3}}}}));
        m_session->notifyToolsChanged();
        QVERIFY(m_written.isEmpty());
    }
    void mistypedFilter_isInvalidParams()
    {
        for (const json &filter : {json("tools"), json({{"toolsListChanged", 1}}),
                                   json({{"resourceSubscriptions", {{{"uri", 1}}}}})}) {
            m_session->handleLine(listen(9, filter));
            const json answer = takeOne();
            QCOMPARE_JSON(answer.at("id"), json(9));
            QCOMPARE(answer.at("error").at("code").get<int>(), JsonRpc::kInvalidParams);
        }
        m_session->notifyToolsChanged();
        QVERIFY(m_written.isEmpty());
    }
    void atMostSixteen_moreAreRefused_andTheFirstStay()
    {
        for (int id = 1; id <= LineSession::kMaxSubscriptions + 1; ++id)
            m_session->handleLine(listen(id, {{"toolsListChanged", true}}));
        QCOMPARE(m_written.size(), LineSession::kMaxSubscriptions + 1); // 16 acks, 1 refusal
        const json refusal = m_written.last();
        QCOMPARE_JSON(refusal.at("id"), json(LineSession::kMaxSubscriptions + 1));
        QCOMPARE(refusal.at("error").at("code").get<int>(), JsonRpc::kServerError);
        m_written.clear();
        m_session->notifyToolsChanged();
        QCOMPARE(m_written.size(), LineSession::kMaxSubscriptions);
        QCOMPARE_JSON(m_written.first().at("params").at("_meta"), tag(1));
    }
    void aReusedId_endsTheEarlierSubscriptionFirst()
    {
        m_session->handleLine(listen(5, {{"toolsListChanged", true}}));
        m_session->handleLine(listen(5, {{"toolsListChanged", true}}));
        QCOMPARE(m_written.size(), 3);
        QCOMPARE_JSON(m_written[1], json({{"jsonrpc", "2.0"},
                                          {"id", 5},
                                          {"result", {{"resultType", "complete"}, {"_meta", tag(5)}}}}));
        m_written.clear();
        m_session->notifyToolsChanged();
        QCOMPARE(m_written.size(), 1);
    }
    void aLongId_isRefused()
    {
        m_session->handleLine(listen(std::string(300, 'x'), {{"toolsListChanged", true}}));
        QCOMPARE(takeOne().at("error").at("code").get<int>(), JsonRpc::kInvalidParams);
    }
    void aRevokedToken_hearsNothing()
    {
        bool active = true;
        LineSession session(
            *m_dispatcher,
            [&active] {
                return active ? std::optional<Principal>(Principal{1, {}, {}}) : std::nullopt;
            },
            [this](const QByteArray &bytes) { m_written.append(json::parse(bytes.toStdString())); });
        session.handleLine(listen(1, {{"toolsListChanged", true}}));
        m_written.clear();
        active = false;
        session.notifyToolsChanged();
        QVERIFY(m_written.isEmpty());
    }
    void legacySession_hearsThePlainNotification()
    {
        m_session->notifyToolsChanged();
        QVERIFY(m_written.isEmpty()); // not initialized: no session to tell
        m_session->handleLine(line({{"jsonrpc", "2.0"},
                                    {"id", 1},
                                    {"method", "initialize"},
                                    {"params",
                                     {{"protocolVersion", "2025-11-25"},
                                      {"capabilities", json::object()},
                                      {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}));
        QCOMPARE_JSON(takeOne().at("result").at("capabilities").at("tools").at("listChanged"), json(true));
        m_session->notifyToolsChanged();
        QCOMPARE_JSON(takeOne(), json({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}));
    }
};

QTEST_GUILESS_MAIN(LineSessionTest)
#include "linesession_test.moc"
