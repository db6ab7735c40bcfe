#pragma once

#include "config.h"
#include "gate.h"
#include "operation.h"
#include "result.h"
#include "serverkeys.h"

#include <QObject>

#include <memory>

namespace Countersign {

class AuditStore;
class CommandRunner;
class Database;
class Dispatcher;
class HttpServer;
class McpHttpEndpoint;
class ReceiptSigner;
class SystemClock;
class TicketSealer;
class TokenStore;
class ToolRegistry;
struct HttpRequest;
struct HttpResponse;

// The server side composed: its own database connection, the gate, the tools, the dispatcher and
// the HTTP listener. Lives in (and must be started from) the server thread. Talks to the approval
// queue only through its signals and wake().
class McpServer final : public QObject
{
    Q_OBJECT
public:
    McpServer(Config config, QString databasePath, ServerKeys keys, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(McpServer)
    ~McpServer() override;

    // Opens the database, builds the tools and, unless listenHttp is false (stdio), listens.
    // Returns the bound port (0 without HTTP).
    Result<quint16> start(bool listenHttp = true);
    // Stops listening, drops held requests and closes the database (call in the server thread).
    void stop();
    // Before stop(), when quitting: accepts no new connection, refuses new calls, and lets the
    // tools running now end and be recorded (their clients still get the result). Returns how many
    // run; drained() follows when none does (at once if none did).
    int drain();

    const Dispatcher &dispatcher() const { return *m_dispatcher; }

    // A reloaded configuration: tools, rules, TTL and poll window follow it; the listen address
    // and key store only change with a restart. Calls in flight finish under the old one.
    void reconfigure(const Config &config);

public Q_SLOTS:
    void wake(const QString &nonce);

Q_SIGNALS:
    void parked(const Countersign::Operation &operation);
    void retired(const QString &nonce);
    // Someone opened http://127.0.0.1:PORT/approvals/<nonce> (URL-mode elicitation).
    void revealRequested(const QString &nonce);
    void drained();
    // The gate's durable steps (Gate::Step), emitted in the server thread.
    void stepRecorded(Countersign::Gate::Step step, const QString &nonce);

private:
    void buildTools();
    void route(const HttpRequest &request, const std::function<void(HttpResponse)> &respond);

    Config m_config;
    QString m_databasePath;
    ServerKeys m_keys;
    std::unique_ptr<SystemClock> m_clock;
    std::unique_ptr<Database> m_database;
    std::unique_ptr<TokenStore> m_tokens;
    std::unique_ptr<AuditStore> m_audit;
    std::unique_ptr<TicketSealer> m_sealer;
    std::unique_ptr<ReceiptSigner> m_signer;
    Gate *m_gate = nullptr;
    CommandRunner *m_runner = nullptr;
    std::unique_ptr<ToolRegistry> m_tools;
    std::unique_ptr<Dispatcher> m_dispatcher;
    std::unique_ptr<McpHttpEndpoint> m_endpoint;
    HttpServer *m_http = nullptr;
};

} // namespace Countersign
