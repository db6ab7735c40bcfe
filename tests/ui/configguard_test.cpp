// ConfigGuard with the real window (offscreen) and a real McpServer behind it, wired as the console
// wires them: a configuration that widens what runs without a human reaches the server only when
// Accept is clicked in the window, Keep current leaves the old one in force, a narrowing one
// applies at once, and each leaves its event in the audit log. Without a window, a widening
// configuration is held. At a restart the file is judged against the configuration accepted last:
// a widening waits as a live edit does, and one refused in the window stays refused.
#include "approvalqueue.h"
#include "auditexport.h"
#include "auditstore.h"
#include "config.h"
#include "configguard.h"
#include "consolestack.h"
#include "database.h"
#include "dispatcher.h"
#include "fakeclock.h"
#include "helperfailure.h"
#include "mainwindow.h"
#include "mcpserver.h"
#include "policychangebanner.h"
#include "receipt.h"
#include "serverkeys.h"
#include "ticketsealer.h"
#include "tokenstore.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

json action(const char *name)
{
    return {{"name", name},
            {"inputSchema",
             {{"type", "object"},
              {"properties", {{"service", {{"type", "string"}}}}},
              {"required", json::array({"service"})}}},
            {"plan", json::array({"true"})},
            {"apply", json::array({"true"})},
            {"risk", "high"}};
}

const json kDenyProd = {
    {"tool", "delete_service"}, {"arguments", {{"service", "prod-*"}}}, {"decision", "deny"}};
const json kDenyStaging = {
    {"tool", "delete_service"}, {"arguments", {{"service", "staging-*"}}}, {"decision", "deny"}};

// What the server starts with: two actions, and production denied.
json baseDocument()
{
    return {{"actions", json::array({action("delete_service"), action("restart_service")})},
            {"rules", json::array({kDenyProd})}};
}

} // namespace

class ConfigGuardTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    std::unique_ptr<ConsoleStack> m_console;
    std::unique_ptr<ConfigGuard> m_guard;
    int m_applied = 0;
    int m_stillRefused = 0;
    int m_test = 0;

    Config configOf(const json &document)
    {
        auto config =
            Config::parse(QByteArray::fromStdString(document.dump()), QStringLiteral("config.json"));
        if (!config) {
            helperFailed(QStringLiteral("bad test configuration: %1").arg(config.error()));
            return {};
        }
        return std::move(config).value();
    }
    // Builds the console's side (store, queue, guard, window unless headless) and a server started
    // with the base configuration, connected to the guard as Console connects them.
    bool build(ConfigGuard::Widening widening)
    {
        if (m_console)
            m_console->closeWindow();
        m_guard.reset();
        m_console = std::make_unique<ConsoleStack>(m_clock);
        if (auto opened = m_console->open(m_dir.filePath(QStringLiteral("test%1.db").arg(++m_test))); !opened)
            return helperFailed(opened.error());
        Config base = configOf(baseDocument());
        base.overrideListen(QStringLiteral("127.0.0.1"), 0); // as the server runs it
        if (auto started = m_console->startServer(base, QStringLiteral("guard")); !started)
            return helperFailed(started.error());

        m_guard = std::make_unique<ConfigGuard>(base, *m_console->store(), widening);
        connect(m_guard.get(), &ConfigGuard::applied, m_console->server(), &McpServer::reconfigure);
        connect(m_guard.get(), &ConfigGuard::applied, this, [this] { ++m_applied; });
        if (widening == ConfigGuard::Widening::AskInWindow)
            return showWindow();
        return true;
    }
    bool showWindow()
    {
        if (auto shown = m_console->showWindow(); !shown)
            return helperFailed(shown.error());
        m_console->window()->followConfigChanges(*m_guard);
        return true;
    }
    // A restart on the same store, the file now holding document, as Console does it: a new guard
    // judges the file at start, the server runs what the guard keeps in force, a new window follows.
    bool restartWith(const json &document, const QString &baselineFile = QString())
    {
        m_console->closeWindow();
        m_guard = std::make_unique<ConfigGuard>(configOf(document), *m_console->store(),
                                                ConfigGuard::Widening::AskInWindow);
        m_guard->setBaselineFile(baselineFile);
        connect(m_guard.get(), &ConfigGuard::applied, m_console->server(), &McpServer::reconfigure);
        connect(m_guard.get(), &ConfigGuard::applied, this, [this] { ++m_applied; });
        connect(m_guard.get(), &ConfigGuard::refusedStillInFile, this, [this] { ++m_stillRefused; });
        m_guard->recordStart();
        m_console->server()->reconfigure(m_guard->inForce());
        return showWindow();
    }
    template <typename T> T *find(const char *name)
    {
        T *w = m_console->window() ? m_console->window()->findChild<T *>(QLatin1String(name)) : nullptr;
        if (!w)
            helperFailed(QStringLiteral("no widget %1").arg(QLatin1String(name)));
        return w;
    }
    bool bannerShown()
    {
        const auto *banner = find<PolicyChangeBanner>("policyChangeBanner");
        return banner && banner->isVisible();
    }
    bool click(const char *button)
    {
        auto *b = find<QPushButton>(button);
        if (!b)
            return false;
        // Accept is enabled a moment after the banner's text last changed.
        if (!QTest::qWaitFor([b] { return b->isEnabled(); }, 5000))
            return helperFailed(QStringLiteral("%1 stayed disabled").arg(QLatin1String(button)));
        QTest::mouseClick(b, Qt::LeftButton);
        return true;
    }

    json send(const char *method, json params = json::object())
    {
        params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                           {"io.modelcontextprotocol/clientCapabilities", json::object()},
                           {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}}};
        const json message = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}};
        std::optional<Reply> reply;
        m_console->server()->dispatcher().dispatch(message, CallContext{m_console->tester(), Transport::Http},
                                                   [&reply](Reply r) { reply = std::move(r); });
        if (!reply || !reply->body) {
            helperFailed(QStringLiteral("%1 was not answered at once").arg(QLatin1String(method)));
            return json::object();
        }
        return *reply->body;
    }
    // The tools the server lists now.
    QStringList toolNames()
    {
        QStringList names;
        for (const json &tool :
             send("tools/list").value("result", json::object()).value("tools", json::array()))
            names.append(QString::fromStdString(tool.value("name", std::string())));
        return names;
    }
    // Only for calls the policy denies: those are answered at once, and nothing runs.
    QString deniedText(const char *service)
    {
        const json reply =
            send("tools/call", {{"name", "delete_service"}, {"arguments", {{"service", service}}}});
        return QString::fromStdString(
            reply.value(json::json_pointer("/result/content/0/text"), std::string()));
    }
    // The policy events in the audit log, oldest first.
    QStringList policyEvents(json *lastDetail = nullptr)
    {
        QSqlQuery query(QSqlDatabase::database(m_console->database()->connectionName()));
        if (!query.exec(QStringLiteral("SELECT event, detail FROM audit_log WHERE event LIKE 'policy-%' AND "
                                       "event <> 'policy-in-force' "
                                       "ORDER BY seq"))) {
            helperFailed(QStringLiteral("audit_log: %1").arg(query.lastError().text()));
            return {};
        }
        QStringList events;
        while (query.next()) {
            events.append(query.value(0).toString());
            if (lastDetail)
                *lastDetail = json::parse(query.value(1).toString().toStdString(), nullptr, false);
        }
        return events;
    }
    static bool mentions(const json &items, const char *subject)
    {
        return std::any_of(items.cbegin(), items.cend(), [subject](const json &item) {
            return item.value("subject", std::string()) == subject;
        });
    }

private Q_SLOTS:
    void cleanup()
    {
        if (m_console)
            m_console->closeWindow();
        m_guard.reset();
        m_console.reset();
        m_applied = 0;
        m_stillRefused = 0;
    }

    void widening_reachesTheServerOnlyWhenAccepted()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        QVERIFY(!bannerShown());
        json widened = baseDocument();
        widened["rules"] = json::array();
        widened["actions"].push_back(action("scale_service"));
        m_guard->offer(configOf(widened));

        QTRY_VERIFY(bannerShown());
        // Not at once: a click meant for what was on screen before cannot accept this unread.
        QVERIFY(!find<QPushButton>("acceptPolicyChange")->isEnabled());
        QVERIFY(find<QLabel>("policyChangeTitle")
                    ->text()
                    .contains(QLatin1String("widens what runs without you")));
        const QString shown = find<QPlainTextEdit>("policyChangeText")->toPlainText();
        QVERIFY2(shown.contains(QStringLiteral("action scale_service: none → plan")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("rule tool delete_service, service=prod-*: deny → none")),
                 qPrintable(shown));
        // Not in force: the server lists no new tool and still denies production.
        QVERIFY(!toolNames().contains(QLatin1String("scale_service")));
        QVERIFY(deniedText("prod-1").startsWith(QLatin1String("Denied by Countersign policy")));
        QCOMPARE(m_applied, 0);
        QCOMPARE(m_guard->inForce().policy().rules().size(), 1);
        QCOMPARE(policyEvents(), QStringList());

        QVERIFY(click("acceptPolicyChange"));
        QTRY_VERIFY(!bannerShown());
        QCOMPARE(m_applied, 1);
        QVERIFY(toolNames().contains(QLatin1String("scale_service")));
        QCOMPARE(m_guard->inForce().policy().rules().size(), 0);
        json detail;
        QCOMPARE(policyEvents(&detail), QStringList{QStringLiteral("policy-widened-accepted")});
        QVERIFY2(mentions(detail["widening"], "action scale_service"), detail.dump().c_str());
        QVERIFY(detail.contains("by"));
        QCOMPARE(QString::fromStdString(detail.value("file", std::string())), QStringLiteral("config.json"));
        // The audit export shows the change among the calls: what happened, who, and what changed.
        auto report = m_console->store()->report(false);
        QVERIFY2(report.ok(), report.ok() ? "" : qPrintable(report.error()));
        const auto row = std::find_if(report.value().cbegin(), report.value().cend(), [](const json &r) {
            return r.value("tool", std::string()) == "(configuration)";
        });
        QVERIFY(row != report.value().cend());
        QCOMPARE(QString::fromStdString(row->value("decision", std::string())),
                 QStringLiteral("policy-widened-accepted"));
        QVERIFY(!row->value("decidedBy", std::string()).empty());
        QVERIFY2(QString::fromStdString(row->value("reason", std::string()))
                     .contains(QLatin1String("action scale_service")),
                 row->dump().c_str());
        QVERIFY(QString::fromUtf8(AuditExport::csv(report.value()))
                    .contains(QLatin1String("policy-widened-accepted")));
    }

    void keepCurrent_recordsTheRefusal_andTheOldConfigurationStays()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        json widened = baseDocument();
        widened["rules"] = json::array({json{{"tool", "*"}, {"decision", "allow"}}, kDenyProd});
        m_guard->offer(configOf(widened));
        QTRY_VERIFY(bannerShown());
        QVERIFY(find<QPlainTextEdit>("policyChangeText")
                    ->toPlainText()
                    .contains(QStringLiteral("rule tool *: none → allow")));

        QVERIFY(click("keepCurrentPolicy"));
        QTRY_VERIFY(!bannerShown());
        QCOMPARE(m_applied, 0);
        QVERIFY(deniedText("prod-1").startsWith(QLatin1String("Denied by Countersign policy")));
        QCOMPARE(m_guard->inForce().policy().rules().size(), 1);
        QCOMPARE(policyEvents(), QStringList{QStringLiteral("policy-widened-rejected")});

        // The file changed again: asked again.
        m_guard->offer(configOf(widened));
        QTRY_VERIFY(bannerShown());
    }

    void narrowing_appliesAtOnce()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        json narrowed = baseDocument();
        narrowed["rules"].push_back(kDenyStaging);
        narrowed["actions"].erase(1); // restart_service
        m_guard->offer(configOf(narrowed));

        QCOMPARE(m_applied, 1);
        QVERIFY(!bannerShown());
        QVERIFY(!toolNames().contains(QLatin1String("restart_service")));
        QVERIFY(deniedText("staging-1").startsWith(QLatin1String("Denied by Countersign policy")));
        json detail;
        QCOMPARE(policyEvents(&detail), QStringList{QStringLiteral("policy-narrowed")});
        QVERIFY2(mentions(detail["narrowing"], "action restart_service"), detail.dump().c_str());
        QVERIFY2(mentions(detail["narrowing"], "rule tool delete_service, service=staging-*"),
                 detail.dump().c_str());
        QVERIFY(detail["widening"].empty());
    }

    void wideningAndNarrowingTogether_waitWhole_untilAccepted()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        json mixed = baseDocument();
        mixed["rules"].push_back(kDenyStaging);
        mixed["actions"].push_back(action("scale_service"));
        m_guard->offer(configOf(mixed));

        QTRY_VERIFY(bannerShown());
        QVERIFY(find<QPlainTextEdit>("policyChangeText")
                    ->toPlainText()
                    .contains(QLatin1String("Narrows, applied with it")));
        // The narrowing half waits too.
        QCOMPARE(m_applied, 0);
        QCOMPARE(m_guard->inForce().policy().rules().size(), 1);
        QVERIFY(!toolNames().contains(QLatin1String("scale_service")));

        QVERIFY(click("acceptPolicyChange"));
        QTRY_COMPARE(m_applied, 1);
        QVERIFY(toolNames().contains(QLatin1String("scale_service")));
        QVERIFY(deniedText("staging-1").startsWith(QLatin1String("Denied by Countersign policy")));
        json detail;
        QCOMPARE(policyEvents(&detail), QStringList{QStringLiteral("policy-widened-accepted")});
        QVERIFY(mentions(detail["narrowing"], "rule tool delete_service, service=staging-*"));
    }

    void aNarrowingEdit_replacesTheWideningOneWaiting()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        json widened = baseDocument();
        widened["ttlSeconds"] = 3600;
        m_guard->offer(configOf(widened));
        QTRY_VERIFY(bannerShown());
        json narrowed = baseDocument();
        narrowed["ttlSeconds"] = 60;
        m_guard->offer(configOf(narrowed));
        QTRY_VERIFY(!bannerShown());
        QCOMPARE(m_applied, 1);
        QCOMPARE(m_guard->inForce().ttlSeconds(), 60);
        QVERIFY(click("acceptPolicyChange")); // nothing waits: nothing happens
        QCOMPARE(m_guard->inForce().ttlSeconds(), 60);
        QCOMPARE(policyEvents(), QStringList{QStringLiteral("policy-narrowed")});
    }

    void aChangeOutsideThePolicy_appliesAtOnce_unrecorded()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        json changed = baseDocument();
        changed["pollWindowSeconds"] = 60;
        m_guard->offer(configOf(changed));
        QCOMPARE(m_applied, 1);
        QCOMPARE(m_guard->inForce().pollWindowSeconds(), 60);
        QVERIFY(!bannerShown());
        QCOMPARE(policyEvents(), QStringList());
    }

    void aWideningMadeWhileStopped_waitsAtTheNextStart_theOneAcceptedLastRuns()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        m_guard->recordStart(); // the first start: the configuration in force is recorded
        QCOMPARE(policyEvents(), QStringList());
        // Stopped, the file loses its deny rule; the next start reads it.
        json widened = baseDocument();
        widened["rules"] = json::array();
        QVERIFY(restartWith(widened));
        QTRY_VERIFY(bannerShown());
        QVERIFY(find<QLabel>("policyChangeTitle")
                    ->text()
                    .contains(QLatin1String("widens what runs without you")));
        QVERIFY2(find<QPlainTextEdit>("policyChangeText")
                     ->toPlainText()
                     .contains(QStringLiteral("rule tool delete_service, service=prod-*: deny → none")),
                 qPrintable(find<QPlainTextEdit>("policyChangeText")->toPlainText()));
        // The configuration accepted last is what the server runs.
        QCOMPARE(m_guard->inForce().policy().rules().size(), 1);
        QVERIFY(deniedText("prod-1").startsWith(QLatin1String("Denied by Countersign policy")));
        QCOMPARE(m_applied, 0);
        QCOMPARE(policyEvents(), QStringList{QStringLiteral("policy-widening-waiting")});

        QVERIFY(click("acceptPolicyChange"));
        QTRY_VERIFY(!bannerShown());
        QCOMPARE(m_guard->inForce().policy().rules().size(), 0);
        QCOMPARE(policyEvents(), (QStringList{QStringLiteral("policy-widening-waiting"),
                                              QStringLiteral("policy-widened-accepted")}));
        // Started again on the same file: accepted, so nothing to ask.
        QVERIFY(restartWith(widened));
        QVERIFY(!bannerShown());
        QCOMPARE(m_guard->inForce().policy().rules().size(), 0);
        QCOMPARE(policyEvents().size(), 2);
    }

    void aRefusedWidening_staysRefusedAcrossARestart_untilTheFileChanges()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        m_guard->recordStart();
        json widened = baseDocument();
        widened["ttlSeconds"] = 600;
        m_guard->offer(configOf(widened));
        QTRY_VERIFY(bannerShown());
        QVERIFY(click("keepCurrentPolicy"));
        QTRY_VERIFY(!bannerShown());

        // The restart the attacker waited for: the old TTL runs, and nobody is asked again.
        QVERIFY(restartWith(widened));
        QCOMPARE(m_guard->inForce().ttlSeconds(), 300);
        QVERIFY(!m_guard->hasPending());
        QVERIFY(!bannerShown());
        QCOMPARE(m_stillRefused, 1);
        QCOMPARE(m_applied, 0);
        QCOMPARE(policyEvents(), QStringList{QStringLiteral("policy-widened-rejected")});
        // The policy in force is the one accepted before: production is still denied.
        QVERIFY(deniedText("prod-1").startsWith(QLatin1String("Denied by Countersign policy")));

        // The file changed again (while stopped): asked again, with the one accepted last in force.
        widened["ttlSeconds"] = 900;
        QVERIFY(restartWith(widened));
        QTRY_VERIFY(bannerShown());
        QCOMPARE(m_guard->inForce().ttlSeconds(), 300);
        QVERIFY(
            find<QPlainTextEdit>("policyChangeText")->toPlainText().contains(QStringLiteral("300 → 900")));
    }

    // No file at the first start (the defaults, an empty text on record); a wide file written while
    // stopped: held, not run as if the record could not be read.
    void aFileWrittenWhileStopped_overTheDefaults_waits()
    {
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        {
            ConfigGuard first(Config(), *m_console->store(), ConfigGuard::Widening::AskInWindow);
            first.recordStart();
        }
        QVERIFY(restartWith(baseDocument()));
        QTRY_VERIFY(bannerShown());
        QVERIFY(m_guard->inForce().actions().isEmpty());
        QCOMPARE(policyEvents(), QStringList{QStringLiteral("policy-widening-waiting")});
    }

    // The file switched to a fresh store while stopped (no record there): this folder's own copy of
    // what was accepted is the baseline, so the widening still waits.
    void aFileThatSwitchesStores_isJudgedAgainstThisFoldersCopy()
    {
        const QString copy = m_dir.filePath(QStringLiteral("accepted-%1.json").arg(m_test + 1));
        QVERIFY(build(ConfigGuard::Widening::AskInWindow));
        m_guard->setBaselineFile(copy);
        m_guard->recordStart();
        QVERIFY(QFile::exists(copy));
        QCOMPARE(QFile(copy).permissions() & (QFileDevice::ReadOther | QFileDevice::ReadGroup),
                 QFileDevice::Permissions());
        cleanup();
        QVERIFY(build(ConfigGuard::Widening::AskInWindow)); // a new database: nothing on record
        json widened = baseDocument();
        widened["rules"] = json::array();
        QVERIFY(restartWith(widened, copy));
        QTRY_VERIFY(bannerShown());
        QCOMPARE(m_guard->inForce().policy().rules().size(), 1);
        QVERIFY(deniedText("prod-1").startsWith(QLatin1String("Denied by Countersign policy")));
        // Without the copy, the fresh store's start would have taken the file as it is.
        QVERIFY(restartWith(widened));
        QVERIFY(!bannerShown());
    }

    void headless_aWideningMadeWhileStopped_isHeld_theOneAcceptedLastRuns()
    {
        QVERIFY(build(ConfigGuard::Widening::HeldForWindow));
        m_guard->recordStart();
        json widened = baseDocument();
        widened["approval"] = {{"low", "client"}};
        ConfigGuard next(configOf(widened), *m_console->store(), ConfigGuard::Widening::HeldForWindow);
        int held = 0;
        connect(&next, &ConfigGuard::heldForWindow, this,
                [&held](const PolicyChange &change, const QString &) {
                    ++held;
                    QVERIFY(change.widens());
                });
        next.recordStart();
        QCOMPARE(held, 1);
        QVERIFY(!next.hasPending());
        QCOMPARE(next.inForce().policy().approvalFor(Risk::Low), ApprovalMode::Console);
        json detail;
        QCOMPARE(policyEvents(&detail), QStringList{QStringLiteral("policy-widening-waiting")});
        QVERIFY(mentions(detail["widening"], "approval for low risk"));
    }

    void headless_wideningIsHeld_andIsRecorded()
    {
        QVERIFY(build(ConfigGuard::Widening::HeldForWindow));
        int waiting = 0;
        connect(m_guard.get(), &ConfigGuard::heldForWindow, this,
                [&waiting](const PolicyChange &change, const QString &source) {
                    ++waiting;
                    QVERIFY(change.widens());
                    QCOMPARE(source, QStringLiteral("config.json"));
                });
        json widened = baseDocument();
        widened["approval"] = {{"low", "client"}};
        m_guard->offer(configOf(widened));
        QCOMPARE(waiting, 1);
        QCOMPARE(m_applied, 0);
        QVERIFY(!m_guard->hasPending());
        QCOMPARE(m_guard->inForce().policy().approvalFor(Risk::Low), ApprovalMode::Console);
        json detail;
        QCOMPARE(policyEvents(&detail), QStringList{QStringLiteral("policy-widening-waiting")});
        QVERIFY(mentions(detail["widening"], "approval for low risk"));

        // A narrowing edit still applies at once.
        json narrowed = baseDocument();
        narrowed["rules"].push_back(kDenyStaging);
        m_guard->offer(configOf(narrowed));
        QCOMPARE(m_applied, 1);
        QVERIFY(deniedText("staging-1").startsWith(QLatin1String("Denied by Countersign policy")));
        QCOMPARE(policyEvents(),
                 (QStringList{QStringLiteral("policy-widening-waiting"), QStringLiteral("policy-narrowed")}));
    }
};

QTEST_MAIN(ConfigGuardTest)
#include "configguard_test.moc"
