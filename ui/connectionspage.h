#pragma once

#include <QWidget>

class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QLabel;

namespace Countersign {

class TokenStore;

// Client connections: add one (its token is shown once, with ready-to-paste configuration for
// common IDE agents), list them, revoke one.
class ConnectionsPage final : public QWidget
{
    Q_OBJECT
public:
    ConnectionsPage(TokenStore &tokens, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ConnectionsPage)

    // The /mcp URL and the command that starts a stdio bridge to this console, for the setups.
    void setEndpoint(const QString &url, const QStringList &stdioCommand);
    // Creates the connection; returns false and shows why when refused.
    bool addConnection(const QString &name);
    bool revokeSelected();

private:
    void reload();

    TokenStore &m_tokens;
    QString m_url = QStringLiteral("http://127.0.0.1:7331/mcp");
    QStringList m_stdioCommand{QStringLiteral("countersign"), QStringLiteral("--stdio")};
    QLineEdit *m_name = nullptr;
    QListWidget *m_list = nullptr;
    QPlainTextEdit *m_snippets = nullptr;
    QLabel *m_message = nullptr;
};

} // namespace Countersign
