#include "mainwindow.h"

#include "approvalcard.h"
#include "approvalqueue.h"
#include "approvalspage.h"
#include "auditview.h"
#include "config.h"
#include "configguard.h"
#include "connectionspage.h"
#include "policychangebanner.h"
#include "settingspage.h"

#include <QApplication>
#include <QCloseEvent>
#include <QFontDatabase>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QVBoxLayout>

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
    m_connections = new ConnectionsPage(services.tokens, m_tabs);
    m_settings = new SettingsPage(m_tabs);
    m_tabs->addTab(m_approvals, tr("Approvals"));
    m_tabs->addTab(m_audit, tr("Audit log"));
    m_tabs->addTab(m_connections, tr("Connections"));
    m_tabs->addTab(m_settings, tr("Settings"));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    m_warnings = new QLabel(central);
    m_warnings->setObjectName(QStringLiteral("warnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::PlainText); // store errors may quote what an agent sent
    m_warnings->setStyleSheet(
        QStringLiteral("background: #fff8c5; color: #3b2300; padding: 6px; border-radius: 4px"));
    m_warnings->hide();
    layout->addWidget(m_warnings);
    m_policyChange = new PolicyChangeBanner(central);
    m_policyChange->hide();
    layout->addWidget(m_policyChange);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    m_status = new QLabel(tr("Starting the server…"), this);
    m_status->setObjectName(QStringLiteral("serverStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_status, 1);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QCoreApplication::quit);
    quit->setShortcut(QKeySequence::Quit);
    quit->setObjectName(QStringLiteral("quitAction"));

    for (int i = 0; i < m_tabs->count(); ++i) {
        auto *action = new QAction(this);
        action->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
        connect(action, &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
        addAction(action);
    }
    buildTray();
    connect(&m_queue, &ApprovalQueue::cardAdded, this, &MainWindow::onCardAdded);
    connect(&m_queue, &ApprovalQueue::cardRemoved, this, &MainWindow::updateCount);
    connect(&m_queue, &ApprovalQueue::cardRemoved, m_audit, &AuditView::refreshSoon);
    connect(&m_queue, &ApprovalQueue::revealRequested, this, &MainWindow::reveal);
    connect(&m_queue, &ApprovalQueue::storeError, this, &MainWindow::addWarning);
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
    menu->addAction(tr("Quit"), qApp, &QCoreApplication::quit);
    m_tray->setContextMenu(menu);
    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            reveal({});
    });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] { reveal({}); });
    if (QSystemTrayIcon::isSystemTrayAvailable())
        m_tray->show();
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

void MainWindow::showTab(const QString &name)
{
    const QStringList names{QStringLiteral("approvals"), QStringLiteral("audit"),
                            QStringLiteral("connections"), QStringLiteral("settings")};
    if (const auto i = names.indexOf(name); i >= 0)
        m_tabs->setCurrentIndex(int(i));
}

void MainWindow::setListenUrl(const QString &url, const QStringList &stdioCommand)
{
    m_status->setText(tr("Listening on %1").arg(url));
    m_connections->setEndpoint(url, stdioCommand);
}

void MainWindow::setConfig(const Config &config, const QString &configPath, const QString &effectiveText)
{
    m_settings->setConfig(config, configPath, effectiveText);
    m_approvals->card()->setMinimumShownMs(qRound64(config.cardMinimumSeconds() * 1000.0));
}

void MainWindow::addWarning(const QString &warning)
{
    const QString existing = m_warnings->text();
    m_warnings->setText(existing.isEmpty() ? warning : existing + QLatin1Char('\n') + warning);
    m_warnings->show();
}

void MainWindow::followConfigChanges(ConfigGuard &guard)
{
    const auto showPending = [this, &guard] {
        if (!guard.hasPending()) {
            m_policyChange->hide();
            return;
        }
        m_policyChange->setChange(guard.pendingChange(), guard.pendingSource());
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

void MainWindow::closeEvent(QCloseEvent *event)
{
    // With a tray, closing hides: the server keeps answering and cards still notify.
    if (m_tray->isVisible()) {
        hide();
        event->ignore();
        return;
    }
    event->accept();
    qApp->quit();
}

} // namespace Countersign
