#pragma once

#include "approvalqueue.h"
#include "auditstore.h"
#include "config.h"
#include "database.h"
#include "mainwindow.h"
#include "mcpserver.h"
#include "principal.h"
#include "receipt.h"
#include "result.h"
#include "tokenstore.h"

#include <QSize>

#include <memory>

namespace Countersign {

class Clock;

// The console's side wired as Console wires it, for the tests of the window alone or of the window
// with a server: a SQLite database, the store signed with a fixed key, a token "tester" with its
// principal, and the approval queue (open); a server on 127.0.0.1:0 over the same file
// (startServer); the window over the queue, store and tokens (showWindow). What a test connects
// between them (a guard, a watcher) is its own. Torn down window first and database last.
class ConsoleStack final
{
public:
    explicit ConsoleStack(const Clock &clock);
    ~ConsoleStack();
    Q_DISABLE_COPY_MOVE(ConsoleStack)

    // The key the store's checkpoints and the server's receipts are signed with.
    static QByteArray signingSeed() { return QByteArray(32, '\x07'); }

    // The database at path (":memory:": one of its own), its store, tokens (a "tester" token
    // added, unless not asked for) and queue.
    Status open(const QString &path, bool addTester = true);
    // A server over the same database file, with this configuration listening on 127.0.0.1:0.
    Status startServer(Config config, const QString &keyId);
    // The window, sized before it shows (size invalid: its own), shown and active.
    Status showWindow(QSize size = {});
    void closeWindow() { m_window.reset(); }

    Database *database() const { return m_db.get(); }
    AuditStore *store() const { return m_store.get(); }
    TokenStore *tokens() const { return m_tokens.get(); }
    ApprovalQueue *queue() const { return m_queue.get(); }
    McpServer *server() const { return m_server.get(); }
    MainWindow *window() const { return m_window.get(); }
    const ReceiptSigner &signer() const { return m_signer; }
    // The "tester" token's principal, as the server authenticates it.
    const Principal &tester() const { return m_tester; }

private:
    const Clock &m_clock;
    const ReceiptSigner m_signer{signingSeed()};
    QString m_path;
    Principal m_tester;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AuditStore> m_store;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<ApprovalQueue> m_queue;
    std::unique_ptr<McpServer> m_server;
    std::unique_ptr<MainWindow> m_window;
};

} // namespace Countersign
