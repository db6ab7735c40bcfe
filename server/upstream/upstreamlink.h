#pragma once

#include "upstreamspec.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QTimer>

#include <functional>

class QProcess;

namespace Countersign {

class HttpExchange;

// Countersign as an MCP client of one upstream. A stdio upstream: starts its command, speaks
// JSON-RPC over its stdin/stdout (one message per line), keeps it alive (restarted with backoff when
// it exits or breaks the protocol; its stderr goes to the log). An HTTP upstream: each message is a
// POST to its URL with the configured headers (JSON or event-stream answers; a 2025-era server's
// session id kept; redirects not followed), reconnected with backoff when unreachable. Either way it
// keeps the tool list (tools/list, again on notifications/tools/list_changed). Both eras: server/discover
// first, and when the server does not answer it with 2026-07-28, initialize (2025-11-25, or the version the
// server answers with). Lives in the server thread.
class UpstreamLink final : public QObject
{
    Q_OBJECT
public:
    enum class State { Starting, Ready, Down };
    Q_ENUM(State)

    // How a request ended.
    struct Outcome final
    {
        enum class Kind {
            Answered, // result holds the JSON-RPC result
            Refused,  // the upstream answered with a JSON-RPC error: text
            NotSent,  // never reached the upstream (not running): text says why; nothing happened
            Lost      // sent, and no answer came (timeout, exit, broken output): it may have acted
        };
        Kind kind = Kind::NotSent;
        nlohmann::json result;
        QString text;
    };
    using Reply = std::function<void(const Outcome &)>;

    explicit UpstreamLink(UpstreamSpec spec, QObject *parent = nullptr);
    // Ends the upstream's process; requests in flight end Lost.
    ~UpstreamLink() override;
    Q_DISABLE_COPY_MOVE(UpstreamLink)

    void start();
    const UpstreamSpec &spec() const { return m_spec; }
    // The tool settings, prefix and timeout change without a restart (the connection did not).
    void setSpec(const UpstreamSpec &spec);

    State state() const { return m_state; }
    // Why it is down, or the last restart's cause; empty when it never failed.
    QString lastError() const { return m_lastError; }
    // The protocol version spoken: "2026-07-28", or the 2025 one initialize agreed on.
    QString protocolVersion() const { return m_version; }
    QString serverName() const { return m_serverName; }
    // The upstream's tools, as its tools/list gave them (names as the upstream knows them).
    const QList<nlohmann::json> &tools() const { return m_tools; }
    // Its prompts, resources and resource templates (read-only content), when it declared them.
    const QList<nlohmann::json> &prompts() const { return m_prompts; }
    const QList<nlohmann::json> &resources() const { return m_resources; }
    const QList<nlohmann::json> &resourceTemplates() const { return m_templates; }

    // Sends a request when Ready (else NotSent at once, from the event loop); reply is called once.
    void request(const QString &method, nlohmann::json params, int timeoutMs, Reply reply);

    static constexpr qsizetype kMaxLineBytes = 16 * 1024 * 1024;
    // A stdio upstream that has not read this much of what was sent to it gets no more.
    static constexpr qint64 kMaxUnwritten = 16 * 1024 * 1024;
    static constexpr int kMaxInFlight = 64;            // HTTP POSTs at once
    static constexpr int kMaxMessagesPerAnswer = 1000; // HTTP: messages in one answer
    static constexpr int kMaxErrLinesPerSecond = 50;   // stderr lines logged per second
    static constexpr int kMaxListItems = 10'000;       // tools, prompts, resources: each
    static constexpr int kMaxListPages = 100;
    static constexpr qsizetype kMaxListBytes = 8 * 1024 * 1024; // each list, serialized
    static constexpr qsizetype kMaxListItemBytes = 64 * 1024;
    static constexpr int kHandshakeMs = 20'000;

Q_SIGNALS:
    void toolsChanged();
    void stateChanged(Countersign::UpstreamLink::State state);

private:
    struct Pending final
    {
        Reply reply;
        QTimer *timer = nullptr;
    };
    void launch();
    void startProcess(); // stdio: upstreamstdio.cpp
    void readOutput();
    void readErrors();
    void handle(const nlohmann::json &message);
    void answerServerRequest(const nlohmann::json &message);
    void send(const nlohmann::json &message);
    // HTTP: one POST per message; the answer (JSON or an event stream) is handled as it arrives.
    void post(const nlohmann::json &message);
    // Answers the request id (once; a late answer is dropped).
    void settle(qint64 id, const Outcome &outcome);
    // Sends without the Ready check (the handshake's own requests).
    void call(const QString &method, nlohmann::json params, int timeoutMs, Reply reply);
    void handshake();
    void initialize();
    // Every page of a list (method answering {key: [...], nextCursor}), the items keeps() accepts.
    void listAll(const QString &method, const char *key, const QString &cursor, QList<nlohmann::json> sofar,
                 std::function<void(Result<QList<nlohmann::json>>)> then, int page = 1, qsizetype bytes = 0);
    static bool keeps(const char *key, const nlohmann::json &item);
    void listTools();
    // The prompts and resources lists, from step on; then Ready.
    void listContent(int step);
    // The process is gone or unusable: every request in flight ends Lost, and a restart is planned.
    void fail(const QString &why);
    void setState(State state);
    nlohmann::json envelope() const;

    UpstreamSpec m_spec;
    QProcess *m_process = nullptr;
    QHash<qint64, HttpExchange *> m_exchanges; // HTTP: the POSTs in flight, by request id
    QHash<qint64, int> m_messagesOf;           // HTTP: messages read from each answer so far
    // stderr lines logged in the current second, and dropped beyond kMaxErrLinesPerSecond
    qint64 m_errSecond = 0;
    int m_errLines = 0;
    int m_errDropped = 0;
    QByteArray m_sessionId;   // a 2025-era HTTP server's Mcp-Session-Id
    quint64 m_generation = 0; // bumped at each start and failure: older answers are not for this link
    QByteArray m_out;
    QByteArray m_err;
    State m_state = State::Down;
    QString m_lastError;
    QString m_version;
    QString m_serverName;
    bool m_modern = false;
    QList<nlohmann::json> m_tools;
    QList<nlohmann::json> m_prompts;
    QList<nlohmann::json> m_resources;
    QList<nlohmann::json> m_templates;
    nlohmann::json m_capabilities; // as the server declared them
    qint64 m_nextId = 1;
    QHash<qint64, Pending> m_pending;
    QTimer m_restart;
    QTimer m_relist; // a list_changed heard: list again when it fires
    int m_backoffMs = 500;
    bool m_stopping = false;
    bool m_relisting = false;
};

} // namespace Countersign
