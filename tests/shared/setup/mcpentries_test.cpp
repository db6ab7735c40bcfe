// McpEntries: Countersign's MCP server in each agent's own configuration, merged with what is
// there (in its order) and taken out again; files that cannot be parsed are refused.
#include "mcpentries.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Countersign;

class McpEntriesTest : public QObject
{
    Q_OBJECT
private:
    static McpEntries::Entry entry()
    {
        return {QStringLiteral("http://127.0.0.1:7331/mcp"), QStringLiteral("cs_t")};
    }

private Q_SLOTS:
    void json_keepsTheUsersKeysInOrder_andRemovesBackToThem_data()
    {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("section");
        for (const char *c : {"claude-code", "gemini", "qwen", "copilot"})
            QTest::newRow(c) << QString::fromLatin1(c) << QStringLiteral("mcpServers");
        QTest::newRow("opencode") << QStringLiteral("opencode") << QStringLiteral("mcp");
        QTest::newRow("cline") << QStringLiteral("cline") << QStringLiteral("mcpServers");
    }
    void json_keepsTheUsersKeysInOrder_andRemovesBackToThem()
    {
        QFETCH(QString, client);
        QFETCH(QString, section);
        const QByteArray mine = "{\n  \"zeta\": 1,\n  \"alpha\": {\"b\": 2, \"a\": 1}\n}\n";
        auto added = McpEntries::install(client, mine, entry());
        QVERIFY2(added.ok(), added.ok() ? "" : qPrintable(added.error()));
        const auto doc = nlohmann::ordered_json::parse(added.value().toStdString());
        QCOMPARE(doc.begin().key(), std::string("zeta"));
        QCOMPARE(doc.at("alpha").begin().key(), std::string("b"));
        const auto &server = doc.at(section.toStdString()).at("countersign");
        const auto &headers = server.contains("transport") ? server.at("transport").at("headers") // Cline
                                                           : server.at("headers");
        QCOMPARE(headers.at("Authorization").get<std::string>(), std::string("Bearer cs_t"));
        QCOMPARE(McpEntries::installed(client, added.value()).value(), true);
        auto twice = McpEntries::install(client, added.value(), entry());
        QCOMPARE(twice.value(), added.value()); // installing again gives the same file
        auto removed = McpEntries::remove(client, added.value());
        QVERIFY(removed.ok());
        QVERIFY(nlohmann::ordered_json::parse(removed.value().toStdString()) ==
                nlohmann::ordered_json::parse(mine.toStdString()));
        QCOMPARE(McpEntries::installed(client, removed.value()).value(), false);
    }
    void json_unparseable_isRefused()
    {
        QVERIFY(!McpEntries::install(QStringLiteral("claude-code"), "{\"a\": 1,, }", entry()));
        const auto commented = McpEntries::install(QStringLiteral("gemini"), "{\n// c\n\"a\": 1}", entry());
        QVERIFY(!commented);
        QVERIFY(commented.error().contains(QLatin1String("comments")));
        QVERIFY(!McpEntries::install(QStringLiteral("copilot"), "[1, 2]", entry()));
        QVERIFY(!McpEntries::install(QStringLiteral("claude-code"), "{\"mcpServers\": 3}", entry()));
    }
    void codex_blockAppended_replaced_andTakenOutExactly()
    {
        const QByteArray mine = "model = \"gpt-5.5\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        auto added = McpEntries::install(QStringLiteral("codex"), mine, entry());
        QVERIFY(added.ok());
        QVERIFY(added.value().startsWith(mine + "\n# countersign: begin"));
        QVERIFY(added.value().contains("[mcp_servers.countersign]\nurl = \"http://127.0.0.1:7331/mcp\"\n"
                                       "http_headers = { \"Authorization\" = \"Bearer cs_t\" }\n"));
        auto again = McpEntries::install(QStringLiteral("codex"), added.value(),
                                         {QStringLiteral("http://127.0.0.1:9/mcp"), QStringLiteral("cs_u")});
        QVERIFY(again.ok());
        QCOMPARE(again.value().count("countersign: begin"), 1);
        QVERIFY(again.value().contains("Bearer cs_u"));
        QCOMPARE(McpEntries::remove(QStringLiteral("codex"), again.value()).value(), mine);
        QCOMPARE(McpEntries::remove(QStringLiteral("codex"), QByteArray()).value(), QByteArray());
        QCOMPARE(McpEntries::remove(QStringLiteral("codex"),
                                    McpEntries::install(QStringLiteral("codex"), {}, entry()).value())
                     .value(),
                 QByteArray());
    }
    void codex_theUsersOwnServerOfThatName_isLeftAlone()
    {
        const QByteArray mine = "[mcp_servers.countersign]\ncommand = \"countersign\"\n";
        const auto refused = McpEntries::install(QStringLiteral("codex"), mine, entry());
        QVERIFY(!refused);
        QVERIFY(refused.error().contains(QLatin1String("not written by setup")));
        QCOMPARE(McpEntries::remove(QStringLiteral("codex"), mine).value(), mine);
    }
    // Codex's own config writers put their tables where they please, inside the markers too, and
    // rewrite a table without its comments: only Countersign's table ever comes out.
    void codex_theUsersTablesInsideTheMarkers_stay_andAnUnmarkedTableGoesWhenOurs()
    {
        const QByteArray mine = "model = \"o3\"\n";
        QByteArray added = McpEntries::install(QStringLiteral("codex"), mine, entry()).value();
        added.replace("# countersign: end", "[features]\nmemories = true\n# countersign: end");
        const QByteArray without = McpEntries::remove(QStringLiteral("codex"), added).value();
        QVERIFY2(without.contains("[features]\nmemories = true\n"), without.constData());
        QVERIFY(!without.contains("mcp_servers") && !without.contains("countersign:"));
        const QByteArray again = McpEntries::install(QStringLiteral("codex"), added, entry()).value();
        QVERIFY2(again.contains("[features]\nmemories = true\n"), again.constData());
        QCOMPARE(again.count("[mcp_servers.countersign]"), 1);
        // Rewritten by Codex: no markers, the headers as a sub-table.
        const QByteArray rewritten =
            "model = \"o3\"\n\n[mcp_servers.countersign]\nurl = \"http://x/mcp\"\n\n"
            "[mcp_servers.countersign.http_headers]\nAuthorization = \"Bearer cs_t\"\n\n"
            "[projects.\"/src\"]\ntrust_level = \"trusted\"\n";
        QCOMPARE(McpEntries::remove(QStringLiteral("codex"), rewritten).value(),
                 rewritten); // not known as ours
        const QByteArray taken = McpEntries::remove(QStringLiteral("codex"), rewritten, true).value();
        QCOMPARE(taken, QByteArray("model = \"o3\"\n\n[projects.\"/src\"]\ntrust_level = \"trusted\"\n"));
        QVERIFY(McpEntries::installed(QStringLiteral("codex"), rewritten).value());
        QVERIFY(McpEntries::install(QStringLiteral("codex"), rewritten, entry(), true).ok());
    }
    // Every TOML spelling of a server named countersign that setup did not write is refused: a
    // second one would make a file Codex cannot load.
    void codex_anyOtherSpellingOfTheServer_isRefused_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("dotted key under [mcp_servers]")
            << QByteArray("[mcp_servers]\ncountersign.url = \"x\"\n");
        QTest::newRow("a key under [mcp_servers]")
            << QByteArray("[mcp_servers]\ncountersign = { url = \"x\" }\n");
        QTest::newRow("inline mcp_servers") << QByteArray("mcp_servers = { foo = { command = \"f\" } }\n");
        QTest::newRow("dotted at the top") << QByteArray("mcp_servers.countersign.url = \"x\"\n");
        QTest::newRow("single quotes") << QByteArray("[mcp_servers.'countersign']\nurl = \"x\"\n");
        QTest::newRow("a sub-table") << QByteArray("[mcp_servers.countersign.http_headers]\na = \"b\"\n");
    }
    void codex_anyOtherSpellingOfTheServer_isRefused()
    {
        QFETCH(QByteArray, text);
        QVERIFY(!McpEntries::install(QStringLiteral("codex"), text, entry()));
        QVERIFY(
            McpEntries::install(QStringLiteral("codex"), "[mcp_servers.other]\ncommand = \"c\"\n", entry())
                .ok());
    }
    void pi_hasNoMcp()
    {
        QVERIFY(McpEntries::configPath(QStringLiteral("pi"), QStringLiteral("/home/u")).isEmpty());
        QCOMPARE(McpEntries::configPath(QStringLiteral("claude-code"), QStringLiteral("/home/u")),
                 QStringLiteral("/home/u/.claude.json"));
        QCOMPARE(
            McpEntries::configPath(QStringLiteral("codex"), QStringLiteral("/home/u"), QStringLiteral("/ch")),
            QStringLiteral("/ch/config.toml"));
    }
};

QTEST_GUILESS_MAIN(McpEntriesTest)
#include "mcpentries_test.moc"
