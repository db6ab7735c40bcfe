// HookSetup: Countersign's hooks merged into each client's settings, and taken out again, with
// everything else in the file kept.
#include "hooksetup.h"
#include "jsoncompare.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class HookSetupTest : public QObject
{
    Q_OBJECT
private:
    static HookSetup::Target target(const QString &client)
    {
        HookSetup::Target t;
        t.client = client;
        t.hookUrl = QStringLiteral("http://127.0.0.1:7331/hooks/") + client;
        t.token = QStringLiteral("cs_token");
        t.shim = {QStringLiteral("/opt/countersign/bin/countersign-hook"), client, QStringLiteral("--socket"),
                  QStringLiteral("/run/user/1000/countersign 1-mcp.sock")};
        return t;
    }
    // The user's own settings: a hook of theirs on the same event, and other keys.
    static json theirs()
    {
        return {
            {"model", "opus"},
            {"hooks",
             {{"PreToolUse",
               json::array({{{"matcher", "Bash"},
                             {"hooks", json::array({{{"type", "command"}, {"command", "audit.sh"}}})}}})},
              {"Stop",
               json::array({{{"hooks", json::array({{{"type", "command"}, {"command", "notify"}}})}}})}}}};
    }

private Q_SLOTS:
    void install_isIdempotent_andKeepsTheUsersOwn_data()
    {
        QTest::addColumn<QString>("client");
        for (const QString &c : HookSetup::clients())
            QTest::newRow(qPrintable(c)) << c;
    }
    void install_isIdempotent_andKeepsTheUsersOwn()
    {
        QFETCH(QString, client);
        auto once = HookSetup::install(theirs(), target(client));
        QVERIFY(once);
        auto twice = HookSetup::install(once.value(), target(client));
        QVERIFY(twice);
        QCOMPARE_JSON(twice.value(), once.value());
        QVERIFY(HookSetup::installed(once.value(), client));
        QVERIFY(!HookSetup::installed(theirs(), client));
        QCOMPARE_JSON(once.value().at("model"), json("opus"));
        QCOMPARE_JSON(once.value().at("hooks").at("Stop"), theirs().at("hooks").at("Stop"));
        // Taken out again: the file as it was.
        QCOMPARE_JSON(HookSetup::remove(once.value(), client), theirs());
    }
    void claudeCode_httpHook_tokenInHeader_blocksOnFailure()
    {
        auto merged = HookSetup::install(json(), target(QStringLiteral("claude-code")));
        QVERIFY(merged);
        const json hook = merged.value().at("hooks").at("PreToolUse").at(0).at("hooks").at(0);
        QCOMPARE_JSON(hook.at("type"), json("http"));
        QCOMPARE_JSON(hook.at("headers").at("Authorization"), json("Bearer cs_token"));
        QCOMPARE_JSON(hook.at("onFailure"), json("block"));
        QCOMPARE_JSON(hook.at("timeout"), json(600));
        // Anchored: an unanchored "Bash|..." would also match BashOutput.
        QVERIFY(merged.value().at("hooks").at("PreToolUse").at(0).at("matcher").get<std::string>().front() ==
                '^');
    }
    void commandHooks_quoteTheShimsArguments_geminiInMilliseconds()
    {
        auto merged = HookSetup::install(json(), target(QStringLiteral("gemini")));
        QVERIFY(merged);
        const json hook = merged.value().at("hooks").at("BeforeTool").at(0).at("hooks").at(0);
        QCOMPARE_JSON(hook.at("command"), json("/opt/countersign/bin/countersign-hook gemini --socket "
                                               "'/run/user/1000/countersign 1-mcp.sock'"));
        QCOMPARE_JSON(hook.at("timeout"), json(600000));
        QVERIFY(!merged.value().at("hooks").contains("PreToolUse"));
    }
    void notAnObject_isRefused()
    {
        QVERIFY(!HookSetup::install(json::array(), target(QStringLiteral("codex"))));
        QVERIFY(!HookSetup::install(json{{"hooks", "none"}}, target(QStringLiteral("codex"))));
    }
};

QTEST_GUILESS_MAIN(HookSetupTest)
#include "hooksetup_test.moc"
