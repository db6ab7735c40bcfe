// The Declines tab of the real window (offscreen) over a real SQLite file, wired as the console wires
// it: a ConfigWatcher on a real configuration file, the ConfigGuard and a real McpServer behind it.
// The figures as shown, the period, "Deny this from now on" (the exact rule shown, written first in
// the file only once confirmed, read back and applied as a narrowing, recorded in the audit log, and
// the server then denying the declined call and not another), cancelling, a missing file made, a
// file that cannot be written refused with the reason, and hostile text shown as plain text.
#include "approvalqueue.h"
#include "auditstore.h"
#include "canonicaljson.h"
#include "config.h"
#include "configguard.h"
#include "configwatcher.h"
#include "consolestack.h"
#include "database.h"
#include "declinesview.h"
#include "denyruledialog.h"
#include "dispatcher.h"
#include "helperfailure.h"
#include "jsoncompare.h"
#include "mainwindow.h"
#include "mcpserver.h"
#include "receipt.h"
#include "serverkeys.h"
#include "systemclock.h"
#include "ticketsealer.h"
#include "tokenstore.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Countersign;
using json = nlohmann::json;

namespace {

constexpr qint64 kHour = 3'600'000;

// The team's configuration file: comments, an action the server serves, and one rule.
const QByteArray kConfigText = R"(// the team's configuration
{
  "actions": [{
    "name": "delete_service",
    "inputSchema": {"type": "object", "properties": {"service": {"type": "string"}, "force": {"type": "boolean"}},
                    "required": ["service"]},
    "plan": ["true"], "apply": ["true"], "risk": "high"
  }],
  /* first match wins */
  "rules": [
    {"tool": "delete_service", "arguments": {"service": "tmp-*"}, "decision": "ask"}
  ],
  "cardMinimumSeconds": 1 // the reading time's floor
}
)";

QByteArray read(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

} // namespace

class DeclinesViewTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    SystemClock m_clock; // the view's periods count back from now
    QString m_configPath;
    std::unique_ptr<ConsoleStack> m_console;
    std::unique_ptr<ConfigGuard> m_guard;
    std::unique_ptr<ConfigWatcher> m_watcher;
    int m_nonce = 0;

    // One declined (or approved) call, created ago ms before now and decided after ms later.
    void decided(const QString &tool, const json &arguments, const QString &digest,
                 const QStringList &targets, qint64 ago, Operation::Status outcome, const QString &by,
                 const QString &reason, qint64 after)
    {
        Operation op;
        op.nonce = QStringLiteral("n%1").arg(++m_nonce);
        op.tool = tool;
        op.principal = QStringLiteral("agent");
        op.arguments = arguments;
        Q_UNUSED(digest) // the test's label for these arguments; the store holds their real digest
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(arguments));
        op.plan.title = QStringLiteral("%1 %2").arg(tool, targets.value(0));
        op.plan.targets = targets;
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = m_clock.nowMs() - ago;
        op.expiresMs = op.createdMs + 300'000;
        QVERIFY(m_console->store()->recordOperation(op).ok());
        QVERIFY(m_console->store()->decide(op.nonce, {outcome, by, reason, op.createdMs + after}).ok());
    }
    void denied(const QString &tool, const json &arguments, qint64 ago)
    {
        Operation op;
        op.nonce = QStringLiteral("n%1").arg(++m_nonce);
        op.tool = tool;
        op.principal = QStringLiteral("agent");
        op.arguments = arguments;
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(arguments));
        op.plan = Plan::settledByRule(tool);
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("rules[0]: tool delete_service, service=prod-* \u2192 deny");
        op.createdMs = m_clock.nowMs() - ago;
        op.expiresMs = op.createdMs;
        op.status = Operation::Status::Denied;
        QVERIFY(m_console->store()->recordOperation(op).ok());
    }
    void seed()
    {
        const auto declined = Operation::Status::Declined;
        const auto approved = Operation::Status::Approved;
        const QStringList web1{QStringLiteral("web-1")};
        decided("delete_service", {{"service", "web-1"}}, "dA", web1, 3 * kHour, declined, "console:alice",
                "prod-like", 4000);
        decided("delete_service", {{"service", "web-1"}}, "dA", web1, 2 * kHour, declined, "console:alice",
                "still no", 8000);
        decided("delete_service", {{"force", true}, {"service", "web-1"}}, "dB", web1, kHour, declined,
                "console:bob", "prod-like", 6000);
        denied("delete_service", {{"service", "prod-db"}}, kHour / 2);
        decided("delete_service", {{"service", "tmp-1"}}, "dC", {QStringLiteral("tmp-1")}, kHour / 3,
                approved, "console:alice", {}, 200);
        decided("delete_service", {{"service", "tmp-2"}}, "dD", {QStringLiteral("tmp-2")}, kHour / 4,
                approved, "console:alice", {}, 60'000);
        decided("restart_service", {{"service", "api"}}, "dE", {QStringLiteral("api")}, 10 * 24 * kHour,
                declined, "console:bob", "old news", 1000);
    }

    // The console's side, wired as Console wires it, over configPath (written first when text is set).
    bool build(const QString &configPath, const QByteArray &text)
    {
        m_configPath = configPath;
        if (!text.isEmpty() && !write(configPath, text))
            return helperFailed(QStringLiteral("cannot write %1").arg(configPath));
        m_console = std::make_unique<ConsoleStack>(m_clock);
        if (auto opened =
                m_console->open(m_dir.filePath(QStringLiteral("%1.db").arg(QTest::currentTestFunction())));
            !opened)
            return helperFailed(opened.error());
        seed();

        auto loaded = Config::load(configPath);
        if (!loaded)
            return helperFailed(loaded.error());
        Config base = loaded.value();
        base.overrideListen(QStringLiteral("127.0.0.1"), 0); // as the server runs it
        if (auto started = m_console->startServer(base, QStringLiteral("declines")); !started)
            return helperFailed(started.error());
        m_guard =
            std::make_unique<ConfigGuard>(base, *m_console->store(), ConfigGuard::Widening::AskInWindow);
        m_watcher = std::make_unique<ConfigWatcher>(configPath, base);
        if (auto shown = m_console->showWindow(); !shown)
            return helperFailed(shown.error());
        MainWindow *w = m_console->window();
        connect(m_watcher.get(), &ConfigWatcher::reloaded, m_guard.get(), &ConfigGuard::offer);
        connect(m_guard.get(), &ConfigGuard::applied, m_console->server(), &McpServer::reconfigure);
        connect(m_guard.get(), &ConfigGuard::applied, w,
                [w, configPath](const Config &c) { w->setConfig(c, configPath, {}); });
        connect(w->declinesView(), &DeclinesView::ruleWritten, m_watcher.get(), &ConfigWatcher::checkNow);
        w->followConfigChanges(*m_guard);
        w->setConfig(base, configPath, {});
        w->showTab(QStringLiteral("declines"));
        return shown();
    }
    // The view has read its report and filled its tables.
    bool shown()
    {
        auto *view = m_console->window()->declinesView();
        if (!QTest::qWaitFor([view] { return !view->isLoading() && view->report().declined > 0; }, 10'000))
            return helperFailed(QStringLiteral("the declines were not shown"));
        return true;
    }
    template <typename T> T *find(const char *name)
    {
        T *w = m_console->window() ? m_console->window()->findChild<T *>(QLatin1String(name)) : nullptr;
        if (!w)
            helperFailed(QStringLiteral("no widget %1").arg(QLatin1String(name)));
        return w;
    }
    static QString cell(QTableWidget *table, int row, int column)
    {
        const QTableWidgetItem *item = table->item(row, column);
        return item ? item->text() : QString();
    }
    // The row of the repeated declines for this tool and kind ("call" or "target"); -1 when none.
    int repeatRow(const QString &tool, const QString &same)
    {
        auto *table = find<QTableWidget>("repeatedDeclines");
        for (int row = 0; table && row < table->rowCount(); ++row) {
            if (cell(table, row, 0) == tool && cell(table, row, 1) == same)
                return row;
        }
        return -1;
    }
    QPushButton *denyButton(int row)
    {
        auto *table = find<QTableWidget>("repeatedDeclines");
        return table ? qobject_cast<QPushButton *>(table->cellWidget(row, table->columnCount() - 1))
                     : nullptr;
    }
    DenyRuleDialog *openDialog(int row)
    {
        QPushButton *button = denyButton(row);
        if (!button || !button->isEnabled()) {
            helperFailed(QStringLiteral("no enabled deny button in row %1").arg(row));
            return nullptr;
        }
        QTest::mouseClick(button, Qt::LeftButton);
        DenyRuleDialog *dialog = nullptr;
        if (!QTest::qWaitFor(
                [&] {
                    dialog =
                        m_console->window()->findChild<DenyRuleDialog *>(QStringLiteral("denyRuleDialog"));
                    return dialog && dialog->isVisible();
                },
                5000))
            helperFailed(QStringLiteral("the confirmation was not shown"));
        return dialog;
    }
    static void click(QWidget *in, const char *button)
    {
        auto *b = in->findChild<QPushButton *>(QLatin1String(button));
        QVERIFY(b);
        QTest::mouseClick(b, Qt::LeftButton);
    }
    QString message() { return find<QLabel>("declinesMessage")->text(); }
    int auditEvents(const char *event)
    {
        QSqlQuery query(QSqlDatabase::database(m_console->database()->connectionName()));
        query.prepare(QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE event = ?"));
        query.addBindValue(QLatin1String(event));
        return query.exec() && query.next() ? query.value(0).toInt() : -1;
    }
    QString serverAnswer(const json &arguments)
    {
        const json params = {
            {"name", "delete_service"},
            {"arguments", arguments},
            {"_meta",
             {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
              {"io.modelcontextprotocol/clientCapabilities", json::object()},
              {"io.modelcontextprotocol/clientInfo", {{"name", "test"}, {"version", "1"}}}}}};
        std::optional<Reply> reply;
        m_console->server()->dispatcher().dispatch(
            {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", params}},
            CallContext{m_console->tester(), Transport::Http}, [&reply](Reply r) { reply = std::move(r); });
        if (!reply || !reply->body)
            return {}; // not answered at once: planned, a card on its way
        return QString::fromStdString(
            reply->body->value(json::json_pointer("/result/content/0/text"), std::string()));
    }

private Q_SLOTS:
    void cleanup()
    {
        if (m_console)
            m_console->closeWindow();
        m_watcher.reset();
        m_guard.reset();
        m_console.reset();
    }

    void figures_asShown_andThePeriod()
    {
        QVERIFY(build(m_dir.filePath(QStringLiteral("figures/config.json")), kConfigText));
        // Read off the window's thread.
        auto *thread =
            m_console->window()->declinesView()->findChild<QThread *>(QStringLiteral("countersign-declines"));
        QVERIFY(thread && thread->isRunning());
        QVERIFY(find<QLabel>("declinesStatus")
                    ->text()
                    .contains(
                        QLatin1String("3 declined by a decision and 1 denied by a rule in the last 7 days")));
        auto *tools = find<QTableWidget>("declinedTools");
        QCOMPARE(tools->rowCount(), 1); // restart_service was declined 10 days ago
        QCOMPARE(cell(tools, 0, 0), QStringLiteral("delete_service"));
        QCOMPARE(cell(tools, 0, 1), QStringLiteral("3"));
        QCOMPARE(cell(tools, 0, 2), QStringLiteral("1"));
        auto *targets = find<QTableWidget>("declinedTargets");
        QCOMPARE(cell(targets, 0, 0), QStringLiteral("web-1"));
        QCOMPARE(cell(targets, 0, 1), QStringLiteral("3"));
        auto *reasons = find<QTableWidget>("declinedReasons");
        QCOMPARE(cell(reasons, 0, 0), QStringLiteral("prod-like"));
        QCOMPARE(cell(reasons, 0, 1), QStringLiteral("a person"));
        QCOMPARE(cell(reasons, 0, 2), QStringLiteral("2"));
        QCOMPARE(cell(reasons, 1, 0), QStringLiteral("still no"));
        QCOMPARE(cell(reasons, 2, 1), QStringLiteral("a rule"));
        QVERIFY(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")) >= 0);
        QVERIFY(repeatRow(QStringLiteral("delete_service"), QStringLiteral("target")) >= 0);
        auto *times = find<QTableWidget>("decisionTimes");
        QCOMPARE(cell(times, 0, 0), QStringLiteral("delete_service"));
        QCOMPARE(cell(times, 0, 1), QStringLiteral("5"));
        QCOMPARE(cell(times, 0, 2), QStringLiteral("6.0 s")); // 0.2, 4, 6, 8, 60 s
        QCOMPARE(cell(times, 0, 3), QStringLiteral("60 s"));
        QCOMPARE(cell(times, 0, 4), QStringLiteral("40 % (2 of 5)"));
        auto *fast = find<QTableWidget>("fastApprovals");
        QCOMPARE(fast->rowCount(), 1);
        QCOMPARE(cell(fast, 0, 0), QStringLiteral("alice"));
        QCOMPARE(cell(fast, 0, 2), QStringLiteral("1 of 2"));
        QCOMPARE(cell(fast, 0, 3), QStringLiteral("0.2 s"));
        QCOMPARE(cell(fast, 0, 4), QStringLiteral("1.8 s")); // 1 s + 3 words at 4 a second
        auto *warning = find<QLabel>("declinesFastWarning");
        QVERIFY(warning->isVisible());
        QVERIFY2(warning->text().contains(QLatin1String("1 of 2 approvals")), qPrintable(warning->text()));

        auto *period = find<QComboBox>("declinesPeriod");
        period->setCurrentIndex(period->findText(QStringLiteral("All time")));
        QTRY_COMPARE(tools->rowCount(), 2);
        QCOMPARE(cell(tools, 1, 0), QStringLiteral("restart_service"));
        period->setCurrentIndex(period->findText(QStringLiteral("Last 24 hours")));
        QTRY_COMPARE(tools->rowCount(), 1);
    }

    void denyFromNowOn_showsTheRule_writesItFirst_andTheGuardAppliesIt()
    {
        QVERIFY(build(m_dir.filePath(QStringLiteral("deny/config.json")), kConfigText));
        const json declined = {{"service", "web-1"}};
        QCOMPARE(m_guard->inForce()
                     .policy()
                     .evaluate(QStringLiteral("delete_service"), declined, Verdict::Ask)
                     .verdict,
                 Verdict::Ask);
        const int row = repeatRow(QStringLiteral("delete_service"), QStringLiteral("call"));
        QVERIFY(row >= 0);
        DenyRuleDialog *dialog = openDialog(row);
        QVERIFY(dialog);
        const QString ruleText =
            dialog->findChild<QPlainTextEdit *>(QStringLiteral("denyRuleText"))->toPlainText();
        QCOMPARE_JSON(json::parse(ruleText.toStdString()),
                      json({{"tool", "delete_service"},
                            {"arguments", {{"service", "web-1"}}},
                            {"decision", "deny"},
                            {"reason", "declined 2 times in the Countersign window"}}));
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("denyRuleNotes"))
                    ->text()
                    .contains(QLatin1String("matches this call exactly")));
        QCOMPARE(read(m_configPath), kConfigText); // nothing written while it asks

        QSignalSpy written(m_console->window()->declinesView(), &DeclinesView::ruleWritten);
        click(dialog, "confirmDenyRule");
        QCOMPARE(written.count(), 1);
        QVERIFY2(message().contains(QLatin1String("Added first in the rules")), qPrintable(message()));
        QVERIFY2(message().contains(QLatin1String("It is in force")), qPrintable(message()));
        // The file: the rule first, the comments kept.
        const QByteArray text = read(m_configPath);
        for (const char *kept :
             {"// the team's configuration", "/* first match wins */", "// the reading time's floor"})
            QVERIFY2(text.contains(kept), text.constData());
        auto config = Config::load(m_configPath);
        QVERIFY2(config.ok(), qPrintable(config.ok() ? QString() : config.error()));
        const Policy &policy = config.value().policy();
        QCOMPARE(policy.rules().size(), 2);
        QCOMPARE(policy.evaluate(QStringLiteral("delete_service"), declined, Verdict::Ask).ruleIndex, 0);
        QCOMPARE(policy.evaluate(QStringLiteral("delete_service"), declined, Verdict::Ask).verdict,
                 Verdict::Deny);
        for (const json &other :
             {json{{"service", "web-2"}}, json{{"service", "web-10"}}, json{{"force", true}}})
            QVERIFY(policy.evaluate(QStringLiteral("delete_service"), other, Verdict::Ask).verdict !=
                    Verdict::Deny);
        // Rules look only at the arguments they name: the call with another argument added is denied too
        // (the dialog says so).
        QCOMPARE(policy
                     .evaluate(QStringLiteral("delete_service"), {{"service", "web-1"}, {"force", true}},
                               Verdict::Ask)
                     .verdict,
                 Verdict::Deny);
        // Read again, judged a narrowing, applied and recorded; the server denies the call now.
        QTRY_COMPARE(m_guard->inForce().policy().rules().size(), 2);
        QVERIFY(!m_guard->hasPending());
        QCOMPARE(auditEvents("policy-narrowed"), 1);
        QVERIFY(serverAnswer(declined).startsWith(QLatin1String("Denied by Countersign policy")));
        QCOMPARE(m_guard->inForce()
                     .policy()
                     .evaluate(QStringLiteral("delete_service"), {{"service", "web-2"}}, Verdict::Ask)
                     .verdict,
                 Verdict::Ask);
        // The row says so.
        QTRY_COMPARE(denyButton(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")))->text(),
                     QStringLiteral("Denied now"));
        QVERIFY(
            !denyButton(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")))->isEnabled());
    }

    void denyTheTarget_pinsTheArgumentThatIsTheTarget()
    {
        QVERIFY(build(m_dir.filePath(QStringLiteral("target/config.json")), kConfigText));
        DenyRuleDialog *dialog =
            openDialog(repeatRow(QStringLiteral("delete_service"), QStringLiteral("target")));
        QVERIFY(dialog);
        click(dialog, "confirmDenyRule");
        QTRY_COMPARE(m_guard->inForce().policy().rules().size(), 2);
        const Policy &policy = m_guard->inForce().policy();
        QCOMPARE(policy
                     .evaluate(QStringLiteral("delete_service"), {{"service", "web-1"}, {"force", false}},
                               Verdict::Ask)
                     .verdict,
                 Verdict::Deny);
        QCOMPARE(
            policy.evaluate(QStringLiteral("delete_service"), {{"service", "web-2"}}, Verdict::Ask).verdict,
            Verdict::Ask);
    }

    void cancel_writesNothing()
    {
        QVERIFY(build(m_dir.filePath(QStringLiteral("cancel/config.json")), kConfigText));
        DenyRuleDialog *dialog =
            openDialog(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")));
        QVERIFY(dialog);
        click(dialog, "cancelDenyRule");
        QTRY_VERIFY(message().contains(QLatin1String("Nothing was changed")));
        QCOMPARE(read(m_configPath), kConfigText);
        QCOMPARE(m_guard->inForce().policy().rules().size(), 1);
        QCOMPARE(auditEvents("policy-narrowed"), 0);
    }

    void noConfigurationFile_isMade_andApplied()
    {
        // The defaults: no file, not even its folder (so nothing watches it).
        QVERIFY(build(m_dir.filePath(QStringLiteral("missing/countersign/config.json")), {}));
        QVERIFY(!QFile::exists(m_configPath));
        DenyRuleDialog *dialog =
            openDialog(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")));
        QVERIFY(dialog);
        click(dialog, "confirmDenyRule");
        QVERIFY(QFile::exists(m_configPath));
        QTRY_COMPARE(m_guard->inForce().policy().rules().size(), 1);
        QCOMPARE(m_guard->inForce()
                     .policy()
                     .evaluate(QStringLiteral("delete_service"), {{"service", "web-1"}}, Verdict::Ask)
                     .verdict,
                 Verdict::Deny);
        QCOMPARE(auditEvents("policy-narrowed"), 1);
    }

    void aFileThatCannotBeWritten_isRefused_withTheReason()
    {
        // Where the folder should be there is a file.
        QVERIFY(write(m_dir.filePath(QStringLiteral("blocked")), "x"));
        QVERIFY(build(m_dir.filePath(QStringLiteral("blocked/config.json")), {}));
        DenyRuleDialog *dialog =
            openDialog(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")));
        QVERIFY(dialog);
        QSignalSpy written(m_console->window()->declinesView(), &DeclinesView::ruleWritten);
        click(dialog, "confirmDenyRule");
        QVERIFY2(message().startsWith(QLatin1String("No rule was written")), qPrintable(message()));
        QVERIFY2(message().contains(QLatin1String("cannot make the folder")), qPrintable(message()));
        QCOMPARE(written.count(), 0);
        QCOMPARE(m_guard->inForce().policy().rules().size(), 0);
    }

    void aFileThatDoesNotRead_isRefused_andLeftAsItWas()
    {
        QVERIFY(build(m_dir.filePath(QStringLiteral("bad/config.json")), kConfigText));
        const QByteArray bad = "{ \"rules\": [ {\"tool\": \"x\"} ] }\n";
        QVERIFY(write(m_configPath, bad));
        DenyRuleDialog *dialog =
            openDialog(repeatRow(QStringLiteral("delete_service"), QStringLiteral("call")));
        QVERIFY(dialog);
        click(dialog, "confirmDenyRule");
        QVERIFY2(message().contains(QLatin1String("does not read")), qPrintable(message()));
        QCOMPARE(read(m_configPath), bad);
    }

    void hostileText_isPlainText_everywhere()
    {
        QVERIFY(build(m_dir.filePath(QStringLiteral("hostile/config.json")), kConfigText));
        const QString markup = QStringLiteral("<b>bold</b><img src=x>");
        const QString bidi = QStringLiteral("a\u202eb<i>x</i>");
        const QString control = QStringLiteral("line1\nline2\x01\x1b[31m");
        const QString longText = QString(20'000, QLatin1Char('y'));
        for (int i = 0; i < 2; ++i) {
            decided(markup, {{"path", bidi.toStdString()}}, "dH", {control, longText}, kHour + i,
                    Operation::Status::Declined, "console:<i>eve</i>",
                    longText + QStringLiteral("<a href=x>"), 100);
            // The same control-character target through other calls.
            decided(markup, {{"path", control.toStdString()}, {"n", i}}, QStringLiteral("dT%1").arg(i),
                    {control}, 2 * kHour + i, Operation::Status::Declined, "console:eve", {}, 100);
        }
        m_console->window()->declinesView()->refresh();
        QTRY_VERIFY(repeatRow(QStringLiteral("<b>bold</b><img src=x>"), QStringLiteral("call")) >= 0);
        for (const char *name : {"declinedTools", "declinedTargets", "declinedReasons", "repeatedDeclines",
                                 "decisionTimes", "fastApprovals"}) {
            auto *table = find<QTableWidget>(name);
            for (int row = 0; row < table->rowCount(); ++row) {
                for (int column = 0; column < table->columnCount(); ++column) {
                    const QString text = cell(table, row, column);
                    QVERIFY2(
                        !text.contains(QLatin1Char('\n')) && !text.contains(QChar(0x202e)) &&
                            !text.contains(QChar(0x01)),
                        qPrintable(QStringLiteral("%1 %2,%3").arg(QLatin1String(name)).arg(row).arg(column)));
                    QVERIFY(text.size() <= 201);
                }
            }
        }
        auto *targets = find<QTableWidget>("declinedTargets");
        QCOMPARE(cell(targets, 0, 0),
                 QStringLiteral("line1\u21b5line2\u27e6U+0001\u27e7\u27e6U+001B\u27e7[31m"));
        QCOMPARE(cell(targets, 0, 1), QStringLiteral("4"));
        QCOMPARE(cell(find<QTableWidget>("declinedTools"), 0, 0), markup); // as typed, not rendered
        auto *reasons = find<QTableWidget>("declinedReasons");
        bool cut = false;
        for (int row = 0; row < reasons->rowCount(); ++row)
            cut = cut || (cell(reasons, row, 0).startsWith(QLatin1String("yyyy")) &&
                          cell(reasons, row, 0).endsWith(QStringLiteral("\u2026")));
        QVERIFY(cut);

        // The same call: the rule pins the value, bidi mark and all, and shows it visibly.
        DenyRuleDialog *dialog = openDialog(repeatRow(markup, QStringLiteral("call")));
        QVERIFY(dialog);
        const QString ruleText =
            dialog->findChild<QPlainTextEdit *>(QStringLiteral("denyRuleText"))->toPlainText();
        QVERIFY2(ruleText.contains(QStringLiteral("a\u27e6U+202E\u27e7b<i>x</i>")), qPrintable(ruleText));
        QVERIFY(!ruleText.contains(QChar(0x202e)));
        for (QLabel *label : dialog->findChildren<QLabel *>())
            QCOMPARE(label->textFormat(), Qt::PlainText);
        click(dialog, "confirmDenyRule");
        QTRY_COMPARE(m_guard->inForce().policy().rules().size(), 2);
        const Policy &policy = m_guard->inForce().policy();
        QCOMPARE(policy.evaluate(markup, {{"path", bidi.toStdString()}}, Verdict::Ask).verdict,
                 Verdict::Deny);
        QCOMPARE(policy.evaluate(markup, {{"path", "ab<i>x</i>"}}, Verdict::Ask).verdict, Verdict::Ask);

        // The target holds control characters: no rule can match it, and the view says so.
        QTest::mouseClick(denyButton(repeatRow(markup, QStringLiteral("target"))), Qt::LeftButton);
        QTRY_VERIFY2(
            message().startsWith(QLatin1String("No rule was written: the target holds a line break")),
            qPrintable(message()));
        QTRY_COMPARE(m_console->window()->findChildren<DenyRuleDialog *>().size(), 0);
    }
};

QTEST_MAIN(DeclinesViewTest)
#include "declinesview_test.moc"
