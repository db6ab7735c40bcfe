// The window's other pages under the offscreen platform: Settings (saved into the file with its comments,
// opened), Connections (tokens, upstreams, hooks, what each is doing), the themes' colours, warnings, About
// and the approver's name.
#include "mainwindowfixture.h"
#include "tripwirealarm.h"

#include <QTest>

// Stands in for the desktop's opener of file URLs (QDesktopServices::setUrlHandler).
class UrlCatcher final : public QObject
{
    Q_OBJECT
public:
    QUrl opened;
public Q_SLOTS:
    void open(const QUrl &url) { opened = url; }
};

class MainWindowSettingsTest : public QObject, protected MainWindowFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void settings_saveIntoTheFile_keepingItsComments()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\n  // my approvals\n  \"ttlSeconds\": 300\n}\n");
        file.close();
        m_window->setConfig(Config::load(path).value(), path, QStringLiteral("effective"));
        auto *ttl = m_window->findChild<QSpinBox *>(QStringLiteral("settingTtl"));
        QCOMPARE(ttl->value(), 300);
        ttl->setValue(120);
        m_window->findChild<QSpinBox *>(QStringLiteral("settingPollWindow"))->setValue(15);
        QTest::mouseClick(m_window->findChild<QPushButton *>(QStringLiteral("saveSettings")), Qt::LeftButton);
        const Config saved = Config::load(path).value();
        QCOMPARE(saved.ttlSeconds(), 120);
        QCOMPARE(saved.pollWindowSeconds(), 15);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        file.close();
        QVERIFY(text.contains("// my approvals"));
        // Only the keys changed: the port (and the mode) left alone are not written.
        QVERIFY2(!text.contains("listen") && !text.contains("mode"), text.constData());
        // Saved again with nothing changed since the configuration in force: nothing is written.
        m_window->setConfig(Config::load(path).value(), path, QStringLiteral("effective"));
        QVERIFY(QFile::remove(path));
        QTest::mouseClick(m_window->findChild<QPushButton *>(QStringLiteral("saveSettings")), Qt::LeftButton);
        QVERIFY(!QFile::exists(path));
        QVERIFY(find<QLabel>("settingsMessage")->text().contains(QLatin1String("Nothing changed")));
    }

    // Connections lists the MCP servers behind the gate, their state and each tool's decision;
    // what an upstream names (its server name, its errors) shows as plain text.
    void connections_showTheUpstreams_andTheirToolsDecisions()
    {
        auto *list = find<UpstreamList>("upstreamList");
        QCOMPARE(list->topLevelItemCount(), 1);
        QVERIFY(list->topLevelItem(0)->text(0).startsWith(QLatin1String("No MCP servers behind the gate")));
        const nlohmann::json status = nlohmann::json::array({{{"name", "fs"},
                                                              {"state", "ready"},
                                                              {"error", ""},
                                                              {"server", "secure-filesystem-server"},
                                                              {"protocol", "2025-11-25"},
                                                              {"tools",
                                                               {{{"name", "fs_read_text_file"},
                                                                 {"decision", "allow"},
                                                                 {"rule", "no rule matched: default allow"}},
                                                                {{"name", "fs_write_file"},
                                                                 {"decision", "deny"},
                                                                 {"rule", "rule 1: fs_write_file → deny"}}}}},
                                                             {{"name", "paas"},
                                                              {"state", "down"},
                                                              {"error", "<b>cannot start</b> paasctl\u202e"},
                                                              {"server", ""},
                                                              {"protocol", ""},
                                                              {"tools", nlohmann::json::array()}}});
        m_window->setUpstreams(QString::fromStdString(status.dump()));
        QCOMPARE(list->topLevelItemCount(), 2);
        QTreeWidgetItem *fs = list->topLevelItem(0);
        QCOMPARE(fs->text(0), QStringLiteral("fs"));
        QCOMPARE(fs->text(1), QStringLiteral("ready"));
        QCOMPARE(fs->text(2), QStringLiteral("secure-filesystem-server, protocol 2025-11-25"));
        QCOMPARE(fs->childCount(), 2);
        QCOMPARE(fs->child(0)->text(0), QStringLiteral("fs_read_text_file"));
        QCOMPARE(fs->child(0)->text(1), QStringLiteral("allow"));
        QCOMPARE(fs->child(1)->text(1), QStringLiteral("deny"));
        QCOMPARE(fs->child(1)->text(2), QStringLiteral("rule 1: fs_write_file → deny"));
        QTreeWidgetItem *paas = list->topLevelItem(1);
        QCOMPARE(paas->text(1), QStringLiteral("down"));
        QVERIFY(
            paas->text(2).startsWith(QLatin1String("<b>cannot start</b> paasctl"))); // as written, not bold
        QVERIFY(!paas->text(2).contains(QChar(0x202e)));                             // no hidden reordering
        m_window->setUpstreams(QStringLiteral("not json"));
        QCOMPARE(list->topLevelItemCount(), 1);
    }

    // The colours that carry a meaning read at 4.5:1 or better on light and dark themes alike.
    void themeColours_readOnLightAndDarkThemes()
    {
        for (const bool dark : {false, true}) {
            const QPalette &palette = dark ? darkPalette() : lightPalette();
            QCOMPARE(ThemeColours::isDark(palette), dark);
            QList<QColor> colours{ThemeColours::errorText(palette), ThemeColours::warningText(palette)};
            for (const Risk risk : {Risk::Low, Risk::Medium, Risk::High, Risk::Critical})
                colours.append(ThemeColours::riskText(risk, palette));
            for (const QColor &colour : colours)
                for (const auto role : {QPalette::Window, QPalette::Base})
                    QVERIFY2(ThemeColours::contrast(colour, palette.color(role)) >= 4.5,
                             qPrintable(QStringLiteral("%1 on %2: %3:1")
                                            .arg(colour.name(), palette.color(role).name())
                                            .arg(ThemeColours::contrast(colour, palette.color(role)))));
        }
    }

    // Under a dark theme: the list's risk colours, the countdown near its end and the banner of a
    // policy change (light on every theme) stay readable. COUNTERSIGN_SHOTS=DIR saves the window.
    void darkTheme_keepsMeaningfulTextReadable()
    {
        const QPalette before = QApplication::palette();
        const auto restore = qScopeGuard([&] { QApplication::setPalette(before); });
        QApplication::setPalette(darkPalette());
        m_window.reset();
        m_window = std::make_unique<MainWindow>(
            MainWindow::Services{*m_queue, m_clock, *m_store, *m_tokens, m_db->connectionName()});
        m_window->resize(1100, 760);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        park(Risk::Low, QStringLiteral("scale"), QStringLiteral("low"));
        park(Risk::Critical, QStringLiteral("drop"), QStringLiteral("crit"));
        auto *list = find<QListWidget>("pendingList");
        QTRY_COMPARE(list->count(), 2);
        for (int row = 0; row < list->count(); ++row) {
            const QColor text = list->item(row)->foreground().color();
            QVERIFY2(ThemeColours::contrast(text, list->palette().color(QPalette::Base)) >= 4.5,
                     qPrintable(text.name()));
        }
        auto *countdown = find<QLabel>("cardCountdown");
        m_clock.advance(250'000);
        QCOMPARE(countdown->property("urgency").toString(), QStringLiteral("soon"));
        countdown->ensurePolished();
        QVERIFY(ThemeColours::contrast(countdown->palette().color(QPalette::WindowText),
                                       countdown->palette().color(QPalette::Window)) >= 4.5);
        PolicyChangeBanner banner;
        banner.setChange(PolicyChange(), QStringLiteral("/home/me/.config/countersign/config.json"));
        banner.resize(640, 200);
        banner.show();
        auto *title = banner.findChild<QLabel *>(QStringLiteral("policyChangeTitle"));
        QVERIFY(title);
        title->ensurePolished();
        QVERIFY2(ThemeColours::contrast(title->palette().color(QPalette::WindowText),
                                        QColor(0xff, 0xeb, 0xe9)) >= 4.5,
                 qPrintable(title->palette().color(QPalette::WindowText).name()));
        if (const QString shots = qEnvironmentVariable("COUNTERSIGN_SHOTS"); !shots.isEmpty()) {
            QTest::qWait(400); // the layout of the bold countdown, and the audit view's refresh
            QVERIFY(m_window->grab().save(QDir(shots).filePath(QStringLiteral("dark-approvals.png"))));
            m_window->showTab(QStringLiteral("audit"));
            QTest::qWait(400);
            QVERIFY(m_window->grab().save(QDir(shots).filePath(QStringLiteral("dark-audit.png"))));
            QVERIFY(banner.grab().save(QDir(shots).filePath(QStringLiteral("dark-banner.png"))));
        }
    }

    // Connections follow the store: a connection added around the window (countersign token add)
    // shows within seconds; each line says when its last request came and the cards of its calls.
    void connections_followTheStore_andSayWhatEachIsDoing()
    {
        auto *list = find<QListWidget>("connectionList");
        const auto lineOf = [list](const QString &name) {
            for (int i = 0; i < list->count(); ++i) {
                if (list->item(i)->data(Qt::UserRole).toString() == name)
                    return list->item(i)->text();
            }
            return QString();
        };
        QVERIFY(lineOf(QStringLiteral("from-the-cli")).isEmpty());
        QVERIFY(m_tokens->add(QStringLiteral("from-the-cli"), QStringLiteral("alice")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(!lineOf(QStringLiteral("from-the-cli")).isEmpty(), 5000);
        QVERIFY2(lineOf(QStringLiteral("from-the-cli"))
                     .contains(QLatin1String("no request since this console started")),
                 qPrintable(lineOf(QStringLiteral("from-the-cli"))));
        const qint64 at = QDateTime(QDate(2026, 12, 6), QTime(9, 30, 5)).toMSecsSinceEpoch();
        m_window->connectionsPage()->setLastRequest(QStringLiteral("from-the-cli"), at);
        QVERIFY2(lineOf(QStringLiteral("from-the-cli"))
                     .contains(QLatin1String("last request 2026-12-06 09:30:05")),
                 qPrintable(lineOf(QStringLiteral("from-the-cli"))));
        park(Risk::Medium, QStringLiteral("scale"), QStringLiteral("a"), "Claude Code",
             QStringLiteral("from-the-cli"));
        QTRY_VERIFY2(
            lineOf(QStringLiteral("from-the-cli")).contains(QLatin1String("1 card(s) wait for a decision")),
            qPrintable(lineOf(QStringLiteral("from-the-cli"))));
    }

    // The first start (no connection): the empty page points to Connections, with the key that opens it.
    void firstStart_pointsToConnections()
    {
        auto *open = find<QPushButton>("openConnections");
        QVERIFY(open->isVisible());
        QVERIFY2(open->text().contains(QLatin1String("(Alt+4)")), qPrintable(open->text()));
        QTest::keyClick(m_window.get(), Qt::Key_4, Qt::AltModifier);
        QCOMPARE(find<QTabWidget>("tabs")->currentWidget(), m_window->connectionsPage());
        m_window->showTab(QStringLiteral("approvals"));
        QVERIFY(find<QLabel>("emptyQueue")->text().contains(QLatin1String("No agent is connected yet")));
        QTest::mouseClick(open, Qt::LeftButton);
        QCOMPARE(find<QTabWidget>("tabs")->currentWidget(), m_window->connectionsPage());
        QVERIFY(m_window->connectionsPage()->addConnection(QStringLiteral("ide")));
        QVERIFY(!open->isVisibleTo(m_window.get()));
        QVERIFY(find<QLabel>("emptyQueue")->text().startsWith(QLatin1String("No pending approvals")));
    }

    // Revoke asks first and names the connection; Cancel keeps it; another connection's new token
    // stays on screen; Copy buttons; the setup can be shown again, without the token.
    void connections_revokeAsks_copyAndShowSetupAgain()
    {
        ConnectionsPage *page = m_window->connectionsPage();
        QVERIFY(page->addConnection(QStringLiteral("old")));
        QVERIFY(page->addConnection(QStringLiteral("new")));
        auto *snippets = find<QPlainTextEdit>("connectionSnippets");
        const QString newToken = snippets->toPlainText().section(QLatin1Char('\n'), 1, 1);
        QVERIFY(newToken.startsWith(QLatin1String("cs_")));
        QTest::mouseClick(find<QPushButton>("copyToken"), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(), newToken);
        QTest::mouseClick(find<QPushButton>("copySetup"), Qt::LeftButton);
        QVERIFY(QGuiApplication::clipboard()->text().contains(QLatin1String("== Claude Code, stdio ==")));
        // Each client's setup says what the client itself needs: Gemini CLI's trusted folders.
        QVERIFY(QGuiApplication::clipboard()->text().contains(
            QLatin1String("Then: Gemini CLI runs MCP servers only in folders it trusts")));
        auto *list = find<QListWidget>("connectionList");
        const auto rowOf = [list](const QString &name) {
            for (int i = 0; i < list->count(); ++i) {
                if (list->item(i)->data(Qt::UserRole).toString() == name)
                    return i;
            }
            return -1;
        };
        list->setCurrentRow(rowOf(QStringLiteral("old")));
        QVERIFY(page->revokeSelected());
        auto *box = find<QMessageBox>("revokeConfirmation");
        QTRY_VERIFY(box->isVisible());
        QVERIFY(box->text().contains(QLatin1String("\"old\"")));
        QTest::mouseClick(find<QPushButton>("cancelRevoke"), Qt::LeftButton);
        QTest::qWait(20);
        QCOMPARE(page->activeCount(), 2);
        list->setCurrentRow(rowOf(QStringLiteral("old")));
        QVERIFY(page->revokeSelected());
        QTRY_VERIFY(find<QMessageBox>("revokeConfirmation")->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmRevoke"), Qt::LeftButton);
        QTRY_COMPARE(page->activeCount(), 1);
        QVERIFY(snippets->toPlainText().contains(newToken)); // not wiped by revoking another
        list->setCurrentRow(rowOf(QStringLiteral("new")));
        QTest::mouseClick(find<QPushButton>("showSetup"), Qt::LeftButton);
        QVERIFY(snippets->toPlainText().contains(QLatin1String("<the token shown when \"new\" was added>")));
        QVERIFY(!snippets->toPlainText().contains(newToken));
        QVERIFY(!find<QPushButton>("copyToken")->isEnabled());
    }

    // Warnings can be dismissed; a refused configuration's banner goes once the file is read again.
    void warnings_dismissable_configProblemClearsWhenFixed()
    {
        m_window->addWarning(QStringLiteral("keys in a file"));
        QVERIFY(find<QWidget>("warningBar")->isVisible());
        QTest::mouseClick(find<QPushButton>("dismissWarnings"), Qt::LeftButton);
        QVERIFY(!find<QWidget>("warningBar")->isVisible());
        m_window->setConfigProblem(QStringLiteral("config.json:3: ttlSeconds: must be a number"));
        QVERIFY(find<QWidget>("warningBar")->isVisible());
        QVERIFY(find<QLabel>("warnings")->text().contains(QLatin1String("ttlSeconds")));
        m_window->clearConfigProblem();
        QVERIFY(!find<QWidget>("warningBar")->isVisible());
    }

    void about_showsVersionAndPaths()
    {
        m_window->setPaths(QStringLiteral("/home/me/.config/countersign/config.json"),
                           QStringLiteral("/home/me/.local/share/countersign"));
        find<QAction>("aboutAction")->trigger();
        auto *box = find<QMessageBox>("aboutDialog");
        QTRY_VERIFY(box->isVisible());
        QVERIFY(box->text().contains(QCoreApplication::applicationVersion()));
        QVERIFY(box->informativeText().contains(QLatin1String("/home/me/.config/countersign/config.json")));
        QVERIFY(box->informativeText().contains(QLatin1String("/home/me/.local/share/countersign")));
    }

    // Settings opens the configuration file (made, as an empty object, when missing).
    void settings_opensTheConfigFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sub/config.json"));
        m_window->setConfig(Config(), path, QString());
        UrlCatcher catcher;
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &catcher, "open");
        QTest::mouseClick(find<QPushButton>("openConfigFile"), Qt::LeftButton);
        QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
        QCOMPARE(catcher.opened, QUrl::fromLocalFile(path));
        QFile made(path);
        QVERIFY(made.open(QIODevice::ReadOnly));
        QCOMPARE(made.readAll(), QByteArray("{\n}\n"));
    }

    // Decisions name the person at the console (the OS account), and a summary equal to the prompt
    // is shown once.
    void approver_isTheOsAccount_summaryNotTwice()
    {
        const passwd *account = ::getpwuid(::getuid());
        QVERIFY(account);
        QCOMPARE(ApprovalQueue::consoleUser(),
                 QStringLiteral("console:") + QString::fromLocal8Bit(account->pw_name));
        Operation op = park(Risk::Low, QStringLiteral("write_file"), QStringLiteral("notes.md"),
                            "Claude Code", QStringLiteral("vscode"), false);
        op.plan.summary = op.plan.prompt;
        m_queue->park(op);
        QTRY_COMPARE(find<QLabel>("cardPrompt")->text(), op.plan.prompt);
    }

    // Connections installs the agents' hooks into each client's user settings (a home of the test's
    // own), says where, marks their connection, and Remove asks first; a settings file with comments
    // is refused and left as it was.
    // An upstream's held change of its tools: a banner of its own, its text as plain text, Accept
    // only after it settled, each decision naming its upstream; the first of several held is shown.
    void upstreamWidening_bannerShowsIt_acceptAndKeepNameTheUpstream()
    {
        PolicyChangeBanner *banner = m_window->upstreamChangeBanner();
        QVERIFY(!banner->isVisible());
        QSignalSpy accepted(m_window.get(), &MainWindow::upstreamAccepted);
        QSignalSpy kept(m_window.get(), &MainWindow::upstreamKept);
        m_window->showUpstreamWidening(
            QStringLiteral("fs<b>"),
            {QStringLiteral("tool wipe: readOnlyHint: no → yes (it would run without a card)")},
            QStringLiteral("d1"));
        m_window->showUpstreamWidening(
            QStringLiteral("zz"), {QStringLiteral("tool x: new, says readOnlyHint")}, QStringLiteral("d2"));
        QTRY_VERIFY(banner->isVisible());
        auto *title = banner->findChild<QLabel *>(QStringLiteral("policyChangeTitle"));
        QCOMPARE(title->textFormat(), Qt::PlainText);
        QVERIFY2(title->text().contains(QLatin1String("Upstream fs<b> changed what it says of its tools")),
                 qPrintable(title->text()));
        QVERIFY(banner->findChild<QPlainTextEdit *>(QStringLiteral("policyChangeText"))
                    ->toPlainText()
                    .contains(QStringLiteral("tool wipe: readOnlyHint: no → yes")));
        auto *accept = banner->findChild<QPushButton *>(QStringLiteral("acceptPolicyChange"));
        QVERIFY(!accept->isEnabled()); // not at once: a click meant for something else cannot accept it
        QTRY_VERIFY(accept->isEnabled());
        QTest::mouseClick(accept, Qt::LeftButton);
        QCOMPARE(accepted.count(), 1);
        QCOMPARE(accepted.at(0).at(0).toString(), QStringLiteral("fs<b>"));
        QCOMPARE(accepted.at(0).at(1).toString(), QStringLiteral("d1")); // the listing it showed
        m_window->clearUpstreamWidening(QStringLiteral("fs<b>"));        // as the server answers
        QVERIFY(title->text().contains(QLatin1String("Upstream zz")));
        QTest::mouseClick(banner->findChild<QPushButton *>(QStringLiteral("keepCurrentPolicy")),
                          Qt::LeftButton);
        QCOMPARE(kept.count(), 1);
        QCOMPARE(kept.at(0).at(0).toString(), QStringLiteral("zz"));
        QCOMPARE(kept.at(0).at(1).toString(), QStringLiteral("d2"));
        m_window->clearUpstreamWidening(QStringLiteral("zz"));
        QVERIFY(!banner->isVisible());
    }

    void tripwireAlarm_saysWhatWasPutBack_asPlainText_andReleasesTheConnection()
    {
        TripwireAlarm *alarm = m_window->tripwireAlarm();
        QVERIFY(!alarm->isVisible());
        QSignalSpy released(m_window.get(), &MainWindow::holdReleaseRequested);
        m_window->showTripwireAlarm(
            QStringLiteral("agent<b>"),
            QStringLiteral("The tripwire fired. <b>make test</b> changed ~/.bashrc: put back."));
        QTRY_VERIFY(alarm->isVisible());
        auto *text = alarm->findChild<QLabel *>(QStringLiteral("tripwireAlarmText"));
        QCOMPARE(text->textFormat(), Qt::PlainText); // the agent's words are never markup
        QVERIFY(text->text().contains(QLatin1String("<b>make test</b> changed ~/.bashrc")));
        QVERIFY(alarm->findChild<QLabel *>(QStringLiteral("tripwireAlarmTitle"))
                    ->text()
                    .contains(QLatin1String("\"agent<b>\" is held")));
        auto *release = alarm->findChild<QPushButton *>(QStringLiteral("tripwireRelease"));
        QVERIFY(!release->isEnabled()); // not at once: a click meant for something else cannot release it
        QTRY_VERIFY(release->isEnabled());
        QTest::mouseClick(release, Qt::LeftButton);
        QCOMPARE(released.count(), 1);
        QCOMPARE(released.at(0).at(0).toString(), QStringLiteral("agent<b>"));
        QVERIFY(released.at(0).at(1).toString().startsWith(QLatin1String("console:")));
        QVERIFY(alarm->isVisible()); // until the server says it released it
        m_window->clearTripwireAlarm(QStringLiteral("agent<b>"));
        QVERIFY(!alarm->isVisible());
    }

    void connections_hooks_installSaysWhere_removeAsks_commentsRefused()
    {
        QTemporaryDir home;
        HookInstaller::Place place;
        place.home = home.path();
        place.dataDir = home.filePath(QStringLiteral("data"));
        place.consoleBase = QStringLiteral("http://127.0.0.1:7331");
        place.shim = {QStringLiteral("/opt/countersign/bin/countersign-hook")};
        place.socket = home.filePath(QStringLiteral("bridge.sock"));
        ClientInstaller installer(*m_tokens, place);
        ConnectionsPage *page = m_window->connectionsPage();
        QVERIFY(!find<QPushButton>("installHooks-claude-code")->isEnabled()); // no installer yet
        m_window->setClientInstaller(&installer);
        auto *state = find<QLabel>("hookState-claude-code");
        QVERIFY(state->text().contains(QLatin1String("no hooks")));
        QVERIFY(!find<QPushButton>("removeHooks-claude-code")->isEnabled());
        // Claude Code: the HTTP hook with the connection's token in its header.
        QTest::mouseClick(find<QPushButton>("installHooks-claude-code"), Qt::LeftButton);
        const QString settings = home.filePath(QStringLiteral(".claude/settings.json"));
        QVERIFY2(state->text().contains(settings), qPrintable(state->text()));
        QVERIFY(find<QLabel>("hooksMessage")
                    ->text()
                    .contains(QLatin1String("as the connection claude-code-hooks")));
        QFile written(settings);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const nlohmann::json hooks = nlohmann::json::parse(written.readAll().toStdString());
        const std::string header =
            hooks.at("hooks").at("PreToolUse").at(0).at("hooks").at(0).at("headers").at("Authorization");
        QVERIFY(m_tokens->authenticate(QByteArray::fromStdString(header.substr(7))).has_value());
        // Set up wrote the MCP server too; Check reports, off the window's thread.
        QVERIFY(QFile::exists(home.filePath(QStringLiteral(".claude.json"))));
        QSignalSpy checked(page->hooksPanel(), &HooksPanel::checked);
        QTest::mouseClick(find<QPushButton>("checkClient-claude-code"), Qt::LeftButton);
        QVERIFY(checked.wait(30000));
        QVERIFY2(state->text().startsWith(QLatin1String("Claude Code: ")), qPrintable(state->text()));
        QVERIFY2(state->text().contains(QLatin1String("Countersign's hooks in ") + settings),
                 qPrintable(state->text()));
        QVERIFY2(state->text().contains(QLatin1String("Countersign's MCP server in")),
                 qPrintable(state->text()));
        auto *list = find<QListWidget>("connectionList");
        QTRY_COMPARE(list->count(), 2); // claude-code-hooks and claude-code-mcp
        const auto hooksLine = list->findItems(QStringLiteral("claude-code-hooks"), Qt::MatchContains);
        QCOMPARE(hooksLine.size(), 1);
        QVERIFY(hooksLine.first()->text().contains(QLatin1String("Claude Code's hooks: installed")));
        QCOMPARE(list->findItems(QStringLiteral("claude-code-mcp"), Qt::MatchContains).size(), 1);
        // Codex: the shim, its token in a file only the user reads.
        QTest::mouseClick(find<QPushButton>("installHooks-codex"), Qt::LeftButton);
        QVERIFY(page->hooksPanel()->installed(QStringLiteral("codex")));
        QFile tokenFile(place.dataDir + QStringLiteral("/hooks/codex.token"));
        QCOMPARE(tokenFile.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
        QVERIFY(tokenFile.open(QIODevice::ReadOnly));
        QVERIFY(m_tokens->authenticate(tokenFile.readAll().trimmed()).has_value());
        // Remove asks; Keep them keeps them; Remove the hooks takes them out and revokes the token.
        QVERIFY(page->hooksPanel()->askToRemove(QStringLiteral("claude-code")));
        QTRY_VERIFY(find<QMessageBox>("removeHooksConfirmation")->isVisible());
        QVERIFY(find<QMessageBox>("removeHooksConfirmation")->text().contains(settings));
        QTest::mouseClick(find<QPushButton>("cancelRemoveHooks"), Qt::LeftButton);
        QTest::qWait(20);
        QVERIFY(page->hooksPanel()->installed(QStringLiteral("claude-code")));
        QTest::mouseClick(find<QPushButton>("removeHooks-claude-code"), Qt::LeftButton);
        QTRY_VERIFY(find<QMessageBox>("removeHooksConfirmation")->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmRemoveHooks"), Qt::LeftButton);
        QTRY_VERIFY(!page->hooksPanel()->installed(QStringLiteral("claude-code")));
        QVERIFY(!m_tokens->authenticate(QByteArray::fromStdString(header.substr(7))).has_value());
        QVERIFY(state->text().contains(QLatin1String("no hooks")));
        // Gemini's settings with comments: refused, the file unchanged, the reason on screen.
        const QString gemini = home.filePath(QStringLiteral(".gemini/settings.json"));
        QVERIFY(QDir().mkpath(home.filePath(QStringLiteral(".gemini"))));
        const QByteArray commented = "{\n  // mine\n  \"theme\": \"dark\"\n}\n";
        {
            QFile f(gemini);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(commented);
        }
        page->hooksPanel()->refresh();
        QVERIFY(find<QLabel>("hookState-gemini")->text().contains(QLatin1String("has comments")));
        QVERIFY(!find<QPushButton>("installHooks-gemini")->isEnabled());
        QVERIFY(!page->hooksPanel()->install(QStringLiteral("gemini")));
        QFile after(gemini);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), commented);
        m_window->setClientInstaller(nullptr);
    }

    void connections_addShowsTheTokenOnce_andRevokes()
    {
        ConnectionsPage *page = m_window->connectionsPage();
        page->setEndpoint(QStringLiteral("http://127.0.0.1:7331/mcp"),
                          {QStringLiteral("/opt/count ersign"), QStringLiteral("--stdio"),
                           QStringLiteral("--data-dir"), QStringLiteral("/home/me/my \"data\"")});
        QVERIFY(page->addConnection(QStringLiteral("cursor")));
        const QString shown =
            page->findChild<QPlainTextEdit *>(QStringLiteral("connectionSnippets"))->toPlainText();
        QVERIFY(shown.contains(QLatin1String(
            "claude mcp add --scope user --transport http countersign http://127.0.0.1:7331/mcp")));
        // Every client over both transports; paths with spaces and quotes stay one argument.
        for (const char *header :
             {"== Claude Code, HTTP ==", "== Claude Code, stdio ==", "== Claude Desktop, stdio",
              "== VS Code, HTTP", "== VS Code, stdio", "== Cursor, HTTP", "== Cursor, stdio",
              "== Gemini CLI, HTTP", "== Gemini CLI, stdio", "== Codex, HTTP", "== Codex, stdio"})
            QVERIFY2(shown.contains(QLatin1String(header)), header);
        QVERIFY(shown.contains(
            QLatin1String("-- '/opt/count ersign' --stdio --data-dir '/home/me/my \"data\"'")));
        QVERIFY(shown.contains(QLatin1String("\"command\": \"/opt/count ersign\"")));
        QVERIFY(shown.contains(QLatin1String("\"/home/me/my \\\"data\\\"\"")));
        // The VS Code file may be committed: the token stays out of it.
        const QString vsCode =
            shown.section(QStringLiteral("== VS Code, stdio"), 1).section(QStringLiteral("\n=="), 0, 0);
        QVERIFY(vsCode.contains(QLatin1String("${input:countersign-token}")));
        const QString token = shown.section(QLatin1Char('\n'), 1, 1);
        QVERIFY(token.startsWith(QLatin1String("cs_")));
        QVERIFY(!vsCode.contains(token));
        QVERIFY(m_tokens->authenticate(token.toLatin1()).has_value());
        QVERIFY(!page->addConnection(QStringLiteral("cursor"))); // an active name is refused
        auto *list = page->findChild<QListWidget *>(QStringLiteral("connectionList"));
        list->setCurrentRow(0);
        QVERIFY(page->revokeSelected());
        QTRY_VERIFY(find<QMessageBox>("revokeConfirmation")->isVisible());
        QTest::mouseClick(find<QPushButton>("confirmRevoke"), Qt::LeftButton);
        QTRY_VERIFY(!m_tokens->authenticate(token.toLatin1()).has_value());
    }
};

QTEST_MAIN(MainWindowSettingsTest)
#include "mainwindowsettings_test.moc"
