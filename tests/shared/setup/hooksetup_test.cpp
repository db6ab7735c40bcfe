// HookSetup: Countersign's hooks merged into each client's settings, and taken out again, with
// everything else in the file kept; HookInstaller: the real files, backups and tokens.
#include "database.h"
#include "fakeclock.h"
#include "hookclients.h"
#include "hookinstaller.h"
#include "hooksetup.h"
#include "jsoncompare.h"
#include "tokenstore.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::ordered_json;

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
    // One list names the clients: each kind once, by a name that reads back as itself, with the
    // settings file, events and matcher the installer writes.
    void theOneList_namesEachClientOnce_andTheInstallerFollowsIt()
    {
        QSet<int> kinds;
        QStringList names;
        for (const HookClientSpec &spec : kHookClients) {
            QVERIFY(!kinds.contains(int(spec.client)));
            kinds.insert(int(spec.client));
            const QString name = QString::fromUtf8(spec.name.data(), qsizetype(spec.name.size()));
            names.append(name);
            QCOMPARE(hookClientNamed(spec.name), std::optional<HookClient>(spec.client));
            QVERIFY(!spec.title.empty() && !spec.preEvent.empty() && !spec.postEvent.empty());
            QVERIFY(spec.matcher.front() == '^' && spec.matcher.back() == '$');
            QCOMPARE(HookSetup::matcher(name),
                     QString::fromUtf8(spec.matcher.data(), qsizetype(spec.matcher.size())));
            QVERIFY(HookSetup::settingsPath(name, QStringLiteral("/h"))
                        .endsWith(QString::fromUtf8(spec.settingsFile.data(),
                                                    qsizetype(spec.settingsFile.size()))));
            HookSetup::Target target;
            target.client = name;
            target.hookUrl = QStringLiteral("http://127.0.0.1:7331/hooks/") + name;
            target.token = QStringLiteral("cs_t");
            target.shim = {QStringLiteral("countersign-hook"), name};
            auto merged = HookSetup::install(json::object(), target);
            QVERIFY(merged.ok());
            QVERIFY(merged.value().at("hooks").contains(std::string(spec.preEvent)));
            QVERIFY(merged.value().at("hooks").contains(std::string(spec.postEvent)));
            QCOMPARE(merged.value().at("hooks").contains("PermissionRequest"),
                     spec.permissionEvent == "PermissionRequest");
            QVERIFY(HookSetup::installed(merged.value(), name));
        }
        QCOMPARE(HookSetup::clients(), names);
        QCOMPARE(hookClientNamed("claude"), std::optional<HookClient>(HookClient::ClaudeCode));
        QVERIFY(!hookClientNamed("claude-code ").has_value());
        QVERIFY(HookSetup::settingsPath(QStringLiteral("cursor"), QStringLiteral("/h")).isEmpty());
        QCOMPARE(HookSetup::settingsPath(QStringLiteral("codex"), QStringLiteral("/h"), QStringLiteral("/c")),
                 QStringLiteral("/c/hooks.json"));
    }
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
    // The user's keys keep their order (and the file its layout apart from Countersign's entries).
    void install_keepsTheUsersKeysInTheirOrder()
    {
        const json mine = json::parse(R"({"zeta": 1, "model": "opus", "alpha": {"b": 2, "a": 1},
                                          "hooks": {"Stop": [], "PreToolUse": []}})");
        auto once = HookSetup::install(mine, target(QStringLiteral("gemini")));
        QVERIFY(once);
        QStringList keys;
        for (const auto &[key, value] : once.value().items())
            keys << QString::fromStdString(key);
        QCOMPARE(keys, (QStringList{"zeta", "model", "alpha", "hooks"}));
        QCOMPARE(once.value().at("alpha").begin().key(), std::string("b"));
        QCOMPARE(once.value().at("hooks").begin().key(), std::string("Stop"));
        QCOMPARE(HookSetup::remove(once.value(), QStringLiteral("gemini")).dump(), mine.dump());
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

    // The installer on real files: each install backs the file up beside itself and never over an
    // earlier backup; a refused file keeps the connection's token working; remove with no file
    // makes none.
    void installer_backsUp_neverOverwrites_refusalKeepsTheToken()
    {
        QTemporaryDir home;
        auto db = Database::open(QStringLiteral(":memory:"));
        QVERIFY(db);
        FakeClock clock;
        TokenStore tokens(*db.value(), clock);
        HookInstaller::Place place;
        place.home = home.path();
        place.dataDir = home.filePath(QStringLiteral("data"));
        place.consoleBase = QStringLiteral("http://127.0.0.1:7331");
        place.shim = {QStringLiteral("/usr/bin/countersign-hook")};
        place.socket = home.filePath(QStringLiteral("s.sock"));
        HookInstaller installer(tokens, place);
        const QString path = home.filePath(QStringLiteral(".codex/hooks.json"));
        QVERIFY(!installer.remove(QStringLiteral("codex")).value().isEmpty());
        QVERIFY(!QFile::exists(path)); // nothing to take out: no file made
        QVERIFY(QDir().mkpath(home.filePath(QStringLiteral(".codex"))));
        const auto write = [&path](const QByteArray &bytes) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bytes);
        };
        write(R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}})");
        QVERIFY(installer.install(QStringLiteral("codex"), QStringLiteral("me")));
        QVERIFY(installer.install(QStringLiteral("codex"), QStringLiteral("me")));
        const QStringList backups = QDir(home.filePath(QStringLiteral(".codex")))
                                        .entryList({QStringLiteral("hooks.json.countersign-backup-*")});
        QCOMPARE(backups.size(), 2); // the second install backed up the first one's file apart
        QVERIFY(installer.state(QStringLiteral("codex")).installed);
        QFile tokenFile(place.dataDir + QStringLiteral("/hooks/codex.token"));
        QVERIFY(tokenFile.open(QIODevice::ReadOnly));
        const QByteArray token = tokenFile.readAll().trimmed();
        tokenFile.close();
        QVERIFY(tokens.authenticate(token).has_value());
        // A file the merge refuses: the error names the file; the working token is not revoked.
        write(R"({"hooks": "none"})");
        auto refused = installer.install(QStringLiteral("codex"), QStringLiteral("me"));
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(path), qPrintable(refused.error()));
        QVERIFY(tokens.authenticate(token).has_value());
        QVERIFY(!installer.install(QStringLiteral("cursor"), QStringLiteral("me"))); // an unknown client
    }
};

QTEST_GUILESS_MAIN(HookSetupTest)
#include "hooksetup_test.moc"
