#pragma once

#include <QHash>
#include <QStringList>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QLabel;
class QPushButton;

namespace Countersign {

class ClientInstaller;
class HooksPanel;
class TokenStore;
class UpstreamList;

// Client connections: add one (its token is shown once, with each client's setup to paste, over
// HTTP and stdio; Copy token and Copy setup put them on the clipboard), list them, show a
// connection's setup again (without its token, which is not kept), revoke one (after a
// confirmation naming it). Below them, the agents' own tools through their hooks (HooksPanel:
// installed or not, per client, with Install and Remove), and the MCP servers behind the gate
// (UpstreamList). A connection a client's hooks act as says where they are installed.
class ConnectionsPage final : public QWidget
{
    Q_OBJECT
public:
    ConnectionsPage(TokenStore &tokens, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ConnectionsPage)

    // The /mcp URL and the command that starts a stdio bridge to this console, for the setups.
    void setEndpoint(const QString &url, const QStringList &stdioCommand);
    // The person connections added here belong to (the console's person).
    void setOwner(const QString &person) { m_owner = person; }
    // Creates the connection; returns false and shows why when refused.
    bool addConnection(const QString &name);
    // Asks to revoke the selected connection (a confirmation naming it); false when none is selected.
    bool revokeSelected();
    // The setup of the selected connection, with a placeholder where its token goes.
    void showSelectedSetup();
    int activeCount() const { return m_active; }
    // The MCP servers behind the gate, below the connections.
    UpstreamList *upstreamList() const { return m_upstreams; }
    // Where Set up and Remove write the agents' hooks and servers (none: they are off).
    void setClientInstaller(ClientInstaller *installer);
    HooksPanel *hooksPanel() const { return m_hooks; }
    // What each connection is doing, for its line: when its last request came (the server's
    // authentication, as it happens), and how many cards of its calls wait for a decision (with
    // how many of them its agent is waiting on now).
    void setLastRequest(const QString &name, qint64 atMs);
    struct Cards final
    {
        int waiting = 0;    // cards of this connection's calls waiting for a decision
        int agentWaits = 0; // of those, cards a call of its agent is held on now
    };
    void setCards(const QHash<QString, Cards> &cards);
    // Reads the store again when connections were added or revoked elsewhere (countersign token
    // add, another console); the window polls it.
    void reloadIfChanged();

Q_SIGNALS:
    // Connections were added or revoked; active is how many are active now.
    void connectionsChanged(int active);

private:
    void reload();
    void relabel();
    void revoke(const QString &name);
    void showSetup(const QString &name, const QString &token);

    TokenStore &m_tokens;
    QString m_owner;
    QString m_url = QStringLiteral("http://127.0.0.1:7331/mcp");
    QStringList m_stdioCommand{QStringLiteral("countersign"), QStringLiteral("--stdio")};
    QLineEdit *m_name = nullptr;
    QListWidget *m_list = nullptr;
    QPlainTextEdit *m_snippets = nullptr;
    QLabel *m_message = nullptr;
    QPushButton *m_copyToken = nullptr;
    QPushButton *m_copySetup = nullptr;
    QPushButton *m_showSetup = nullptr;
    QPushButton *m_revoke = nullptr;
    QHash<QString, qint64> m_lastRequest;
    QHash<QString, Cards> m_cards;
    QString m_listed;     // what the list was built from: reloaded when the store says otherwise
    QString m_shownFor;   // whose setup the text shows
    QString m_shownToken; // its token, only right after it was made
    int m_active = 0;
    UpstreamList *m_upstreams = nullptr;
    HooksPanel *m_hooks = nullptr;
};

} // namespace Countersign
