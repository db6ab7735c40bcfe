#pragma once

#include "clientquestions.h"
#include "mcprequest.h"
#include "principal.h"
#include "subscription.h"

#include <QByteArray>
#include <QHash>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace Countersign {

class Dispatcher;

// One MCP connection of newline-delimited JSON-RPC (what `countersign --stdio` relays from its
// IDE), in either era. A 2026-07-28 request carries its envelope; a 2025-era client sends
// initialize once and the connection is its session from then on (its version, clientInfo and
// capabilities go with every later request). A call that waits for the human hears
// notifications/progress every JsonRpc::kProgressEveryMs when it sent a progress token, and the gate
// may ask a 2025-era client (elicitation/create; the client's response comes back as a line).
//
// Every line is served as the principal the authenticator names when it is handled. When it names
// none (the connection's token was revoked), that line is answered with -32000, nothing more is
// dispatched and refused() is emitted.
class LineSession final : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype kMaxLineBytes = 1024 * 1024;

    // Who the peer is now; asked again for every line. Nothing when its token is unknown or revoked.
    using Authenticator = std::function<std::optional<Principal>()>;
    // Receives each message to send, as one line with its newline; may be called after the line
    // that caused it was handled (a held call), never after this session is gone.
    using Writer = std::function<void(const QByteArray &)>;

    LineSession(const Dispatcher &dispatcher, Authenticator authenticate, Writer write,
                QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(LineSession)

    // One line as read (without its newline; a line longer than kMaxLineBytes is refused whole).
    void handleLine(const QByteArray &line);
    bool isRefused() const { return m_refused; }
    // The tools served changed (an upstream came or went, the configuration changed): a 2025-era
    // client that initialized hears notifications/tools/list_changed, and so does each 2026-07-28
    // subscriptions/listen that asked for it (tagged with its subscription id).
    void notifyToolsChanged();
    // subscriptions/listen on one connection: at most this many (more are refused).
    static constexpr int kMaxSubscriptions = 16;

Q_SIGNALS:
    // The authenticator named no principal; reason is what the peer was answered.
    void refused(const QString &reason);

private:
    void send(const nlohmann::json &message);
    Elicitor elicitor(const std::shared_ptr<QList<QByteArray>> &asked);
    void handleLegacy(McpRequest request, const Principal &principal);
    void handleNow(const McpRequest &request, const Principal &principal);
    void callTool(const McpRequest &request, const Principal &principal, Elicitor ask,
                  const std::shared_ptr<QList<QByteArray>> &asked);
    void listen(const McpRequest &request);
    // notifications/cancelled naming a subscription ends it (the client's way to close one on stdio).
    void cancelSubscription(const nlohmann::json &message);

    const Dispatcher &m_dispatcher;
    Authenticator m_authenticate;
    Writer m_write;
    bool m_refused = false;
    std::optional<Envelope> m_session;   // a 2025-era client's, from its initialize
    ClientQuestions m_questions;         // what held calls asked the client (elicitation/create)
    QList<Subscription> m_subscriptions; // 2026-07-28 subscriptions/listen, oldest first
};

} // namespace Countersign
