#pragma once

#include <QMainWindow>
#include <QStringList>

#include <map>

class QLabel;
class QPlainTextEdit;
class QSystemTrayIcon;
class QTabWidget;

namespace Countersign {

class ApprovalQueue;
class ApprovalsPage;
class AuditStore;
class AuditView;
class CardSightings;
class Clock;
class Grants;
class Config;
class ConfigGuard;
class ConnectionsPage;
class DeclinesView;
class PolicyChangeBanner;
class TripwireAlarm;
class SettingsPage;
class ClientInstaller;
class TokenStore;
class Undo;
struct Operation;

// The approval console's main window: pending approvals, the audit log, the declines, connections
// and the effective settings. The title and the tray icon carry the pending count; a card that arrives
// while the window is hidden raises a desktop notification, which opens that card. Closing the
// window keeps the server running in the tray (where there is one); Quit (Ctrl+Q, File or the tray)
// ends the app, and so does closing without a tray; either asks first while cards wait, since
// their agents get no answer until the next start. A card that expires undecided is said in the
// status bar.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    struct Services final
    {
        ApprovalQueue &queue;
        const Clock &clock;
        AuditStore &audit;
        TokenStore &tokens;
        QString databaseConnection; // the console thread's Qt SQL connection name
    };

    explicit MainWindow(Services services, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(MainWindow)
    ~MainWindow() override;

    // The /mcp URL, and the command that starts a stdio bridge to this console.
    void setListenUrl(const QString &url, const QStringList &stdioCommand);
    // The Settings page: editable TTL, poll window and port, and the effective configuration; the
    // cards' minimum time on screen before Approve.
    void setConfig(const Config &config, const QString &configPath, const QString &effectiveText);
    // A warning to keep visible until dismissed (keys in a file, a store error).
    void addWarning(const QString &warning);
    // Why the configuration file was refused; shown until the file is read again, or dismissed.
    void setConfigProblem(const QString &problem);
    void clearConfigProblem();
    // The upstreams' states and tools (McpServer::upstreamsChanged), shown in Connections.
    void setUpstreams(const QString &status);
    // Where Connections sets the agents up (their hooks and MCP servers).
    void setClientInstaller(ClientInstaller *installer);
    // The audit view's Revert of an agent's change that ran with no card (AuditView::setUndo).
    void setUndo(Undo *undo, const QString &by);
    // The cards' "Allow / Deny from now on" and Settings' list of grants; by: who grants and revokes.
    void setGrants(Grants *grants, const QString &by);
    // Whether the cards were seen (the card notes it), and the notice, with a sound, for a card no
    // one has seen a while after it came.
    void setSightings(CardSightings *sightings);
    // Data and configuration paths for Help > About.
    void setPaths(const QString &configPath, const QString &dataDir);
    // Quits, after asking while cards wait; a second Quit during the quit stops waiting for the
    // tools still running.
    void requestQuit();
    // Shows the configuration change that waits in guard (it widens what runs without the human)
    // in a banner above the tabs, whose Accept and Keep current buttons decide it.
    void followConfigChanges(ConfigGuard &guard);
    // An upstream's change of its tools that widens, held for the human (McpServer's
    // upstreamWideningHeld), in a banner of the same kind; or it is no longer held.
    void showUpstreamWidening(const QString &upstream, const QStringList &widening, const QString &digest);
    void clearUpstreamWidening(const QString &upstream);
    // The tripwire fired on a call of this connection, which is held (McpServer::tripwireFired):
    // an alarm above the tabs, the window raised; or the connection was released.
    void showTripwireAlarm(const QString &connection, const QString &message);
    void clearTripwireAlarm(const QString &connection);

    ApprovalsPage *approvalsPage() const { return m_approvals; }
    AuditView *auditView() const { return m_audit; }
    DeclinesView *declinesView() const { return m_declines; }
    ConnectionsPage *connectionsPage() const { return m_connections; }
    SettingsPage *settingsPage() const { return m_settings; }
    PolicyChangeBanner *policyChangeBanner() const { return m_policyChange; }
    PolicyChangeBanner *upstreamChangeBanner() const { return m_upstreamChange; }
    TripwireAlarm *tripwireAlarm() const { return m_tripwireAlarm; }

    // Opens a tab by name: approvals, audit, declines, connections, settings.
    void showTab(const QString &name);
    // Raises the window and marks that card in the list (URL-mode elicitation opened
    // /approvals/<id>, which needs no token); the card being read stays shown.
    void reveal(const QString &nonce);
    // Raises the window on the card a notification named, shown (the human clicked it).
    void openNotified();

Q_SIGNALS:
    // The quit was confirmed (or needed no confirmation): the application is asked to quit.
    void quitting();
    // The human decided an upstream's held change in the banner.
    // digest: of the listing the banner showed.
    void upstreamAccepted(const QString &upstream, const QString &digest);
    void upstreamKept(const QString &upstream, const QString &digest);
    // The human looked at the tripwire's alarm and releases the connection (by: the reviewer).
    void holdReleaseRequested(const QString &connection, const QString &by);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void quitNow();
    void showWarnings();
    void showAbout();
    void updateCount();
    void updateConnectionCards();
    void onCardAdded(const Operation &operation);
    void buildTray();

    ApprovalQueue &m_queue;
    QTabWidget *m_tabs = nullptr;
    ApprovalsPage *m_approvals = nullptr;
    CardSightings *m_sightings = nullptr;
    AuditView *m_audit = nullptr;
    DeclinesView *m_declines = nullptr;
    ConnectionsPage *m_connections = nullptr;
    SettingsPage *m_settings = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_warnings = nullptr;
    PolicyChangeBanner *m_policyChange = nullptr;
    PolicyChangeBanner *m_upstreamChange = nullptr;
    TripwireAlarm *m_tripwireAlarm = nullptr;
    struct HeldUpstream final
    {
        QStringList widening;
        QString digest;
    };
    std::map<QString, HeldUpstream> m_heldUpstreams; // shown one at a time, the first by name
    void showHeldUpstream();
    QSystemTrayIcon *m_tray = nullptr;
    QWidget *m_warningBar = nullptr;
    QStringList m_warningList;
    QString m_configProblem;
    QString m_notified; // the card the last desktop notification was about
    QString m_configPath;
    QString m_dataDir;
    bool m_quitting = false;
    bool m_toldAboutTray = false;
};

} // namespace Countersign
