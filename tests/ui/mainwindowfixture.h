#pragma once

// The fixture the window's tests share (mainwindow_test, mainwindowqueue_test, mainwindowaudit_test,
// mainwindowsettings_test): a store, a queue, a window, and the helpers that park cards and find widgets.
#include "approvalcard.h"
#include "approvalqueue.h"
#include "approvalspage.h"
#include "auditmodel.h"
#include "auditstore.h"
#include "auditview.h"
#include "canonicaljson.h"
#include "clientinstaller.h"
#include "config.h"
#include "connectionspage.h"
#include "consolestack.h"
#include "database.h"
#include "fakeclock.h"
#include "helperfailure.h"
#include "hookspanel.h"
#include "mainwindow.h"
#include "policychange.h"
#include "policychangebanner.h"
#include "receipt.h"
#include "themecolours.h"
#include "tokenstore.h"
#include "upstreamlist.h"
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>
#include <pwd.h>
#include <unistd.h>

using namespace Countersign;

class MainWindowFixture
{
protected:
    FakeClock m_clock;
    const ReceiptSigner m_signer{ConsoleStack::signingSeed()}; // the store's key
    // The console's side (ConsoleStack), and its parts as the tests reach them; the window is the
    // fixture's own (a test makes another one in its place).
    std::unique_ptr<ConsoleStack> m_console;
    Database *m_db = nullptr;
    AuditStore *m_store = nullptr;
    TokenStore *m_tokens = nullptr;
    ApprovalQueue *m_queue = nullptr;
    std::unique_ptr<MainWindow> m_window;
    int m_next = 0;

    // How long park()'s tickets are sealed for (ttlSeconds, or an unseen card's limit).
    qint64 m_sealedMs = 300'000;
    // The user's words park() puts on its cards (Plan::request); none when empty.
    QString m_request;
    Operation park(Risk risk = Risk::Medium, const QString &tool = QStringLiteral("delete_service"),
                   const QString &target = QStringLiteral("web-1"), const char *client = "Claude Code",
                   const QString &principal = QStringLiteral("vscode"), bool intoQueue = true,
                   const Review &review = Review())
    {
        Operation op;
        op.nonce = QStringLiteral("%1").arg(++m_next, 32, 10, QLatin1Char('0'));
        op.tool = tool;
        op.principal = principal;
        op.clientInfo = {{"name", client}};
        op.arguments = {{"service", target.toStdString()}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Delete %1").arg(target);
        op.plan.prompt = QStringLiteral("Delete service %1?").arg(target);
        op.plan.diff = QStringLiteral("--- a/%1\n+++ /dev/null\n@@ -1 +0,0 @@\n-name: %1\n").arg(target);
        op.plan.targets = {target};
        op.plan.risk = risk;
        op.plan.blastRadius = {{"instances", 3}, {"irreversible", risk >= Risk::High}};
        op.plan.request = m_request;
        op.planDigest = op.plan.digest();
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = m_clock.nowMs() + m_next; // newest last
        op.expiresMs = m_clock.nowMs() + m_sealedMs;
        op.review = review;
        if (auto recorded = m_store->recordOperation(op); !recorded)
            helperFailed(QStringLiteral("record failed: %1").arg(recorded.error()));
        if (intoQueue)
            m_queue->park(op);
        return op;
    }
    // The window's widget of that name; a missing one fails the test and yields a stand-in that
    // belongs to no window (for default-constructible widgets), so the test's next steps run on it
    // harmlessly.
    template <typename T> T *find(const char *name)
    {
        if (T *w = m_window->findChild<T *>(QLatin1String(name)))
            return w;
        helperFailed(QStringLiteral("no widget %1").arg(QLatin1String(name)));
        if constexpr (std::is_default_constructible_v<T>) {
            auto *standIn = new T;
            m_standIns.emplace_back(standIn);
            return standIn;
        } else {
            return nullptr; // no stand-in for this type: the caller must check
        }
    }
    std::vector<std::unique_ptr<QObject>> m_standIns;
    // The shown card has been on screen for the default minimum time.
    void readTheCard() { m_clock.advance(1000); }
    QString shownNonce()
    {
        const ApprovalCard *card = find<ApprovalCard>("approvalCard");
        return card ? card->nonce() : QString();
    }
    std::optional<Decision> decisionOf(const QString &nonce) { return m_store->decision(nonce).value(); }
    // The Fusion style's light palette, and a dark one as dark desktop themes have it.
    static const QPalette &lightPalette()
    {
        static const QPalette light = QStyleFactory::create(QStringLiteral("Fusion"))->standardPalette();
        return light;
    }
    static const QPalette &darkPalette()
    {
        static const QPalette dark = [] {
            QPalette p;
            p.setColor(QPalette::Window, QColor(0x20, 0x23, 0x26));
            p.setColor(QPalette::WindowText, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::Base, QColor(0x14, 0x16, 0x18));
            p.setColor(QPalette::AlternateBase, QColor(0x1d, 0x1f, 0x22));
            p.setColor(QPalette::Text, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::Button, QColor(0x29, 0x2c, 0x30));
            p.setColor(QPalette::ButtonText, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
            p.setColor(QPalette::HighlightedText, QColor(0xfc, 0xfc, 0xfc));
            p.setColor(QPalette::PlaceholderText, QColor(0xa1, 0xa9, 0xb1));
            p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x72, 0x76, 0x7a));
            p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x72, 0x76, 0x7a));
            return p;
        }();
        return dark;
    }

    // size: the window's before it shows (none: its own).
    void setUp(QSize size = {})
    {
        m_console = std::make_unique<ConsoleStack>(m_clock);
        const auto opened = m_console->open(QStringLiteral(":memory:"), false);
        QVERIFY2(opened.ok(), opened.ok() ? "" : qPrintable(opened.error()));
        m_db = m_console->database();
        m_store = m_console->store();
        m_tokens = m_console->tokens();
        m_queue = m_console->queue();
        m_window = std::make_unique<MainWindow>(
            MainWindow::Services{*m_queue, m_clock, *m_store, *m_tokens, m_db->connectionName()});
        if (size.isValid())
            m_window->resize(size);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        // Activation restarts a card's minimum time: let it happen before the tests count.
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }
    void tearDown()
    {
        m_window.reset();
        m_console.reset();
        m_db = nullptr;
        m_store = nullptr;
        m_tokens = nullptr;
        m_queue = nullptr;
    }
};
