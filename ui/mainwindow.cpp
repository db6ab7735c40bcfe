#include "mainwindow.h"

#include "approvalcard.h"
#include "approvalqueue.h"
#include "approvalspage.h"
#include "auditview.h"
#include "cardsightings.h"
#include "config.h"
#include "configguard.h"
#include "connectionspage.h"
#include "declinesview.h"
#include "grantspanel.h"
#include "policychangebanner.h"
#include "settingspage.h"
#include "tripwirealarm.h"
#include "upstreamlist.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace Countersign {

namespace {

// The app icon with the pending count drawn on it.
QIcon badgeIcon(int count)
{
    QPixmap pixmap(64, 64);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(QColor(0x1f, 0x6f, 0xeb));
    p.setPen(Qt::NoPen);
    p.drawRoundedRect(QRectF(4, 4, 56, 56), 12, 12);
    p.setPen(QPen(Qt::white, 6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawPolyline(QPolygonF({QPointF(18, 33), QPointF(28, 43), QPointF(46, 21)}));
    if (count > 0) {
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0xcf, 0x22, 0x2e));
        p.drawEllipse(QRectF(32, 0, 32, 32));
        p.setPen(Qt::white);
        QFont f = p.font();
        f.setBold(true);
        f.setPixelSize(count > 9 ? 15 : 20);
        p.setFont(f);
        p.drawText(QRectF(32, 0, 32, 32), Qt::AlignCenter,
                   count > 99 ? QStringLiteral("99+") : QString::number(count));
    }
    return QIcon(pixmap);
}

} // namespace

MainWindow::MainWindow(Services services, QWidget *parent) : QMainWindow(parent), m_queue(services.queue)
{
    setObjectName(QStringLiteral("mainWindow"));
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("tabs"));
    m_approvals = new ApprovalsPage(services.queue, services.clock, m_tabs);
    m_audit = new AuditView(services.audit, services.databaseConnection, m_tabs);
    m_declines = new DeclinesView(services.databaseConnection, m_tabs);
    m_connections = new ConnectionsPage(services.tokens, m_tabs);
    m_connections->setOwner(services.queue.person());
    m_settings = new SettingsPage(m_tabs);
    m_tabs->addTab(m_approvals, tr("Approvals"));
    m_tabs->addTab(m_audit, tr("Audit log"));
    m_tabs->addTab(m_declines, tr("Declines"));
    m_tabs->addTab(m_connections, tr("Connections"));
    m_tabs->addTab(m_settings, tr("Settings"));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    m_warningBar = new QWidget(central);
    m_warningBar->setObjectName(QStringLiteral("warningBar"));
    m_warningBar->setStyleSheet(QStringLiteral("#warningBar { background: #fff8c5; border-radius: 4px }"
                                               " QLabel { color: #3b2300 }"));
    m_warningBar->setAttribute(Qt::WA_StyledBackground);
    m_warnings = new QLabel(m_warningBar);
    m_warnings->setObjectName(QStringLiteral("warnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::PlainText); // store errors may quote what an agent sent
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *dismiss = new QPushButton(tr("Dismiss"), m_warningBar);
    dismiss->setObjectName(QStringLiteral("dismissWarnings"));
    connect(dismiss, &QPushButton::clicked, this, [this] {
        m_warningList.clear();
        m_configProblem.clear();
        showWarnings();
    });
    auto *warningLayout = new QHBoxLayout(m_warningBar);
    warningLayout->setContentsMargins(8, 6, 8, 6);
    warningLayout->addWidget(m_warnings, 1);
    warningLayout->addWidget(dismiss, 0, Qt::AlignTop);
    m_warningBar->hide();
    layout->addWidget(m_warningBar);
    m_tripwireAlarm = new TripwireAlarm(central);
    layout->addWidget(m_tripwireAlarm);
    connect(m_tripwireAlarm, &TripwireAlarm::releaseClicked, this, [this](const QString &connection) {
        Q_EMIT holdReleaseRequested(connection, m_queue.reviewer());
    });
    m_policyChange = new PolicyChangeBanner(central);
    m_policyChange->hide();
    layout->addWidget(m_policyChange);
    m_upstreamChange = new PolicyChangeBanner(central);
    m_upstreamChange->setObjectName(QStringLiteral("upstreamChangeBanner"));
    m_upstreamChange->hide();
    layout->addWidget(m_upstreamChange);
    connect(m_upstreamChange, &PolicyChangeBanner::acceptClicked, this, [this] {
        if (!m_heldUpstreams.empty())
            Q_EMIT upstreamAccepted(m_heldUpstreams.begin()->first, m_heldUpstreams.begin()->second.digest);
    });
    connect(m_upstreamChange, &PolicyChangeBanner::keepCurrentClicked, this, [this] {
        if (!m_heldUpstreams.empty())
            Q_EMIT upstreamKept(m_heldUpstreams.begin()->first, m_heldUpstreams.begin()->second.digest);
    });
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_status = new QLabel(tr("Starting the server…"), this);
    m_status->setObjectName(QStringLiteral("serverStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_status, 1);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *quit = file->addAction(tr("&Quit"), this, &MainWindow::requestQuit);
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->setObjectName(QStringLiteral("quitAction"));
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About Countersign"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("aboutAction"));

    // Alt+1…5 open a tab with the keyboard in it (the arrow keys then work at once).
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *action = new QAction(this);
        action->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
        connect(action, &QAction::triggered, this, [this, i] {
            m_tabs->setCurrentIndex(i);
            if (m_tabs->currentWidget() == m_approvals)
                m_approvals->focusList();
            else if (QWidget *first = m_tabs->currentWidget()->nextInFocusChain();
                     first && m_tabs->currentWidget()->isAncestorOf(first))
                first->setFocus(Qt::TabFocusReason);
        });
        addAction(action);
    }
    connect(m_approvals, &ApprovalsPage::connectionsWanted, this,
            [this] { showTab(QStringLiteral("connections")); });
    // The first start (no connection yet): the empty approvals page points to Connections.
    m_approvals->setHasConnections(m_connections->activeCount() > 0);
    connect(m_connections, &ConnectionsPage::connectionsChanged, m_approvals,
            [this](int active) { m_approvals->setHasConnections(active > 0); });
    // Keyboard focus is visible wherever it lands.
    setStyleSheet(QStringLiteral("QListWidget:focus, QTableView:focus, QLineEdit:focus, QPushButton:focus, "
                                 "QComboBox:focus { outline: none; border: 2px solid #1f6feb; }"));
    buildTray();
    connect(&m_queue, &ApprovalQueue::cardAdded, this, &MainWindow::onCardAdded);
    connect(&m_queue, &ApprovalQueue::cardRemoved, this, &MainWindow::updateCount);
    // Connections follow the store and the queue live: a connection added with `countersign token
    // add` shows within seconds, and each says which of its calls wait on a card.
    connect(&m_queue, &ApprovalQueue::agentChanged, this, &MainWindow::updateConnectionCards);
    connect(&m_queue, &ApprovalQueue::cardAdded, this, &MainWindow::updateConnectionCards);
    connect(&m_queue, &ApprovalQueue::cardRemoved, this, &MainWindow::updateConnectionCards);
    auto *storePoll = new QTimer(this);
    storePoll->setInterval(2000);
    connect(storePoll, &QTimer::timeout, m_connections, &ConnectionsPage::reloadIfChanged);
    storePoll->start();
    connect(&m_queue, &ApprovalQueue::cardRemoved, m_audit, &AuditView::refreshSoon);
    connect(&m_queue, &ApprovalQueue::cardRemoved, m_declines, &DeclinesView::refreshSoon);
    connect(&m_queue, &ApprovalQueue::revealRequested, this, &MainWindow::reveal);
    connect(&m_queue, &ApprovalQueue::storeError, this, &MainWindow::addWarning);
    connect(&m_queue, &ApprovalQueue::cardExpired, this, [this](const Operation &op) {
        statusBar()->showMessage(
            tr("\"%1\" (%2, connection \"%3\") expired without a decision; nothing ran, and its agent is "
               "told so.")
                .arg(op.plan.title.isEmpty() ? op.tool : op.plan.title.left(80), op.tool, op.principal),
            30'000);
    });
    updateCount();
    resize(1100, 760);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildTray()
{
    m_tray = new QSystemTrayIcon(badgeIcon(0), this);
    auto *menu = new QMenu(this);
    menu->addAction(tr("Show Countersign"), this, [this] { reveal({}); });
    menu->addSeparator();
    menu->addAction(tr("Quit"), this, &MainWindow::requestQuit);
    m_tray->setContextMenu(menu);
    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            reveal({});
    });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, &MainWindow::openNotified);
    if (QSystemTrayIcon::isSystemTrayAvailable())
        m_tray->show();
}

void MainWindow::updateConnectionCards()
{
    QHash<QString, ConnectionsPage::Cards> cards;
    for (const Operation &op : m_queue.pending()) {
        ConnectionsPage::Cards &c = cards[op.principal];
        ++c.waiting;
        if (m_queue.agentOf(op.nonce) == ApprovalQueue::Agent::Waiting)
            ++c.agentWaits;
    }
    m_connections->setCards(cards);
}

void MainWindow::updateCount()
{
    const int count = int(m_queue.pending().size());
    setWindowTitle(count == 0 ? tr("Countersign") : tr("Countersign (%n pending)", nullptr, count));
    const QIcon icon = badgeIcon(count);
    setWindowIcon(icon);
    m_tray->setIcon(icon);
    m_tray->setToolTip(windowTitle());
    m_tabs->setTabText(0, count == 0 ? tr("Approvals") : tr("Approvals (%1)").arg(count));
}

void MainWindow::onCardAdded(const Operation &operation)
{
    updateCount();
    m_audit->refreshSoon();
    if (!isVisible() || isMinimized() || !isActiveWindow()) {
        // Only our own names: the connection (named by the human) and the tool (from the
        // registry). Desktop notification servers render markup in the body, and Qt passes it
        // through, so the agent's client name and plan title are left to the card.
        m_notified = operation.nonce;
        if (m_tray->isVisible())
            m_tray->showMessage(tr("Approval needed"),
                                tr("Connection \"%1\" asks to run %2. Open Countersign to read the card.")
                                    .arg(operation.principal, operation.tool),
                                QSystemTrayIcon::Warning, 10'000);
        QApplication::alert(this);
    }
}

void MainWindow::reveal(const QString &nonce)
{
    showNormal();
    raise();
    activateWindow();
    if (!nonce.isEmpty()) {
        m_tabs->setCurrentWidget(m_approvals);
        m_approvals->reveal(nonce);
    }
}

void MainWindow::openNotified()
{
    reveal({});
    m_tabs->setCurrentWidget(m_approvals);
    if (!m_notified.isEmpty())
        m_approvals->select(m_notified);
}

void MainWindow::showTab(const QString &name)
{
    const QStringList names{QStringLiteral("approvals"), QStringLiteral("audit"), QStringLiteral("declines"),
                            QStringLiteral("connections"), QStringLiteral("settings")};
    if (const auto i = names.indexOf(name); i >= 0)
        m_tabs->setCurrentIndex(int(i));
}

void MainWindow::setUpstreams(const QString &status)
{
    m_connections->upstreamList()->setStatus(status);
}

void MainWindow::setClientInstaller(ClientInstaller *installer)
{
    m_connections->setClientInstaller(installer);
}

void MainWindow::setUndo(Undo *undo, const QString &by)
{
    m_audit->setUndo(undo, by);
}

void MainWindow::setSightings(CardSightings *sightings)
{
    m_sightings = sightings;
    m_approvals->setSightings(sightings);
    connect(sightings, &CardSightings::unseen, this, [this](const Operation &operation) {
        // Our own words only (see onCardAdded): the card is for the window to show.
        m_notified = operation.nonce;
        if (m_tray->isVisible())
            m_tray->showMessage(
                tr("A card waits unseen"),
                tr("Connection \"%1\" has waited for your answer to %2 since %3, and no one has "
                   "seen the card yet. Open Countersign to read it.")
                    .arg(operation.principal, operation.tool,
                         QLocale().toString(QDateTime::fromMSecsSinceEpoch(operation.createdMs).time(),
                                            QLocale::ShortFormat)),
                QSystemTrayIcon::Warning, 30'000);
        QApplication::beep();
        QApplication::alert(this);
        statusBar()->showMessage(
            tr("A card has waited unseen since %1: connection \"%2\", %3")
                .arg(QLocale().toString(QDateTime::fromMSecsSinceEpoch(operation.createdMs).time(),
                                        QLocale::ShortFormat),
                     operation.principal, operation.tool));
    });
}

void MainWindow::setGrants(Grants *grants, const QString &by)
{
    m_approvals->setGrants(grants);
    m_settings->grantsPanel()->setGrants(grants, by);
}

void MainWindow::setListenUrl(const QString &url, const QStringList &stdioCommand)
{
    m_status->setText(tr("Listening on %1").arg(url));
    m_connections->setEndpoint(url, stdioCommand);
}

void MainWindow::setConfig(const Config &config, const QString &configPath, const QString &effectiveText)
{
    m_settings->setConfig(config, configPath, effectiveText);
    m_declines->setConfig(config, configPath);
    m_approvals->card()->setMinimumShownMs(qRound64(config.cardMinimumSeconds() * 1000.0));
    if (m_sightings)
        m_sightings->configure(config);
}

void MainWindow::addWarning(const QString &warning)
{
    if (!m_warningList.contains(warning))
        m_warningList.append(warning);
    showWarnings();
}

void MainWindow::setConfigProblem(const QString &problem)
{
    m_configProblem = problem;
    showWarnings();
}

void MainWindow::clearConfigProblem()
{
    m_configProblem.clear();
    showWarnings();
}

void MainWindow::showWarnings()
{
    QStringList lines = m_warningList;
    if (!m_configProblem.isEmpty())
        lines.append(tr("The configuration file was refused (the previous one stays in force): %1")
                         .arg(m_configProblem));
    m_warnings->setText(lines.join(QLatin1Char('\n')));
    m_warningBar->setVisible(!lines.isEmpty());
}

void MainWindow::setPaths(const QString &configPath, const QString &dataDir)
{
    m_configPath = configPath;
    m_dataDir = dataDir;
}

void MainWindow::showAbout()
{
    delete findChild<QMessageBox *>(QStringLiteral("aboutDialog"));
    auto *box = new QMessageBox(QMessageBox::Information, tr("About Countersign"),
                                tr("Countersign %1").arg(QCoreApplication::applicationVersion()),
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("aboutDialog"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(
        tr("The approval console for the destructive tool calls of coding agents.\n\n"
           "Configuration file: %1\nData folder (database, keys, console.log): %2\n\n"
           "Keys: Alt+1…5 tabs, Ctrl+Return approve, Ctrl+Shift+D decline, Alt+R reason, Ctrl+Q quit. "
           "See the README for the command line (countersign --help).")
            .arg(m_configPath.isEmpty() ? tr("(unknown)") : m_configPath,
                 m_dataDir.isEmpty() ? tr("(unknown)") : m_dataDir));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::requestQuit()
{
    if (m_quitting) // a second Quit while tools finish: stop waiting for them
        return QCoreApplication::exit(0);
    const int pending = int(m_queue.pending().size());
    if (pending == 0)
        return quitNow();
    if (auto *asking = findChild<QMessageBox *>(QStringLiteral("quitConfirmation"));
        asking && asking->isVisible())
        return asking->raise();
    auto *box =
        new QMessageBox(QMessageBox::Warning, tr("Quit Countersign?"),
                        pending == 1 ? tr("1 approval card is waiting for your decision.")
                                     : tr("%1 approval cards are waiting for your decision.").arg(pending),
                        QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("quitConfirmation"));
    box->setInformativeText(tr("While Countersign is stopped their agents get no answer, and calls of "
                               "connected agents fail. The cards come back at the next start and can "
                               "still be decided until they expire."));
    QPushButton *quit = box->addButton(tr("Quit anyway"), QMessageBox::DestructiveRole);
    quit->setObjectName(QStringLiteral("confirmQuit"));
    QPushButton *stay = box->addButton(tr("Keep running"), QMessageBox::RejectRole);
    stay->setObjectName(QStringLiteral("cancelQuit"));
    box->setDefaultButton(stay);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(quit, &QPushButton::clicked, this, &MainWindow::quitNow);
    showNormal();
    raise();
    activateWindow();
    box->open();
}

void MainWindow::quitNow()
{
    m_quitting = true;
    Q_EMIT quitting();
    // QGuiApplication closes every window before it quits; closeEvent lets this one go now.
    qApp->quit();
}

void MainWindow::followConfigChanges(ConfigGuard &guard)
{
    const auto showPending = [this, &guard] {
        if (!guard.hasPending()) {
            m_policyChange->hide();
            return;
        }
        m_policyChange->setChange(guard.pendingChange(), guard.pendingSource(), guard.pendingWhen());
        m_policyChange->show();
        if (!isVisible() || isMinimized() || !isActiveWindow()) {
            if (m_tray->isVisible())
                m_tray->showMessage(tr("Configuration change waiting"),
                                    tr("The configuration file changed and widens what runs without you. "
                                       "Open Countersign to accept it or keep the current one."),
                                    QSystemTrayIcon::Warning, 10'000);
            QApplication::alert(this);
        }
    };
    connect(&guard, &ConfigGuard::pendingChanged, this, showPending);
    connect(&guard, &ConfigGuard::storeError, this, &MainWindow::addWarning);
    connect(m_policyChange, &PolicyChangeBanner::acceptClicked, &guard, &ConfigGuard::accept);
    connect(m_policyChange, &PolicyChangeBanner::keepCurrentClicked, &guard, &ConfigGuard::keepCurrent);
    showPending();
}

void MainWindow::showUpstreamWidening(const QString &upstream, const QStringList &widening,
                                      const QString &digest)
{
    m_heldUpstreams[upstream] = {widening, digest};
    showHeldUpstream();
    if (!isVisible() || isMinimized() || !isActiveWindow())
        QApplication::alert(this);
}

void MainWindow::showTripwireAlarm(const QString &connection, const QString &message)
{
    m_tripwireAlarm->raiseAlarm(connection, message);
    if (m_tray && m_tray->isVisible())
        m_tray->showMessage(tr("Tripwire: a change was put back"), message.left(240),
                            QSystemTrayIcon::Critical);
    showNormal();
    raise();
    activateWindow();
}

void MainWindow::clearTripwireAlarm(const QString &connection)
{
    m_tripwireAlarm->clear(connection);
}

void MainWindow::clearUpstreamWidening(const QString &upstream)
{
    m_heldUpstreams.erase(upstream);
    showHeldUpstream();
}

void MainWindow::showHeldUpstream()
{
    if (m_heldUpstreams.empty()) {
        m_upstreamChange->hide();
        return;
    }
    const auto &[upstream, held] = *m_heldUpstreams.begin();
    m_upstreamChange->setUpstreamChange(upstream, held.widening);
    m_upstreamChange->show();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_quitting) {
        event->accept();
        return;
    }
    event->ignore();
    // With a tray, closing hides: the server keeps answering and cards still notify.
    if (m_tray->isVisible()) {
        hide();
        if (!std::exchange(m_toldAboutTray, true))
            m_tray->showMessage(tr("Countersign keeps running"),
                                tr("It keeps answering agents and shows new cards from the tray. Quit "
                                   "from the tray menu or with Ctrl+Q."),
                                QSystemTrayIcon::Information, 8'000);
        return;
    }
    requestQuit(); // without a tray, closing is quitting
}

} // namespace Countersign
