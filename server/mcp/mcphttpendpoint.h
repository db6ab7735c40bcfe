#pragma once

#include "clientquestions.h"
#include "httprequest.h"
#include "httpresponse.h"
#include "jsonrpc.h"
#include "legacysessions.h"
#include "listenstreams.h"
#include "localcaller.h"
#include "principal.h"

#include <QHash>

#include <functional>
#include <memory>
#include <optional>

namespace Countersign {

class Dispatcher;

// The /mcp endpoint without sockets: one HttpRequest in, with its caller as the http room checked
// it (HttpRoutes checks every request at an agent's door, whatever its method), one HttpResponse
// out. Answered in order: method (405), Host and Origin (403), a token store that cannot be read
// (503), bearer token (401), Content-Type (415), JSON (400), the envelope checks (RequestReader),
// the MCP header checks, then the dispatcher, once. Both eras share it: a 2026-07-28 request
// carries its envelope; a 2025-era client initializes, gets an Mcp-Session-Id, sends it with every
// later request (an unknown one: 404, initialize again) and ends it with DELETE. Clients hear that
// the tools changed on a stream they hold open: a 2025-era session's GET, a 2026-07-28
// subscriptions/listen.
class McpHttpEndpoint final
{
public:
    explicit McpHttpEndpoint(const Dispatcher &dispatcher);
    Q_DISABLE_COPY_MOVE(McpHttpEndpoint)

    using Responder = std::function<void(HttpResponse)>;
    static constexpr int kProgressEveryMs = JsonRpc::kProgressEveryMs;

    // Answers through respond exactly once; a tool that waits (the gate's poll window) answers
    // after serve() has returned. caller: who sent it (a store that could not be read to say so is
    // answered 503 with its reason, not 401).
    void serve(const HttpRequest &request, const LocalCaller::Checked &caller, Responder respond) const;
    // Streams of a connection whose token was revoked end at the next notification or keepalive.
    void setConnectionCheck(ListenStreams::ConnectionCheck check) const;
    // notifications/tools/list_changed to every open stream that listens for it.
    void notifyToolsChanged() const { m_streams.notifyToolsChanged(); }
    // Ends the open streams (quitting): a subscriptions/listen stream with its result.
    void endStreams() const { m_streams.endAll(); }
    int openStreams() const { return m_streams.count(); }
    void keepAlive() const { m_streams.keepAlive(); } // what the streams' timer does

    // The transport-level refusal shape: a JSON-RPC error with id null.
    static HttpResponse refusal(int status, int code, const QString &message);
    // What the connection refuses itself (HttpConnection::Refusal), and a path with no door: the
    // same shape, -32000.
    static HttpResponse serverRefusal(int status, const QString &reason);

private:
    void serveLegacy(McpRequest request, const HttpRequest &http, const Principal &principal,
                     Responder respond) const;
    void openSessionStream(const HttpRequest &http, const Principal &principal, Responder respond) const;
    void listen(const McpRequest &request, const HttpRequest &http, const Principal &principal,
                Responder respond) const;
    void callOnStream(const McpRequest &request, const Principal &principal, const QByteArray &session,
                      Responder respond) const;
    std::optional<HttpResponse> takeAnswer(const nlohmann::json &message, const HttpRequest &http,
                                           const Principal &principal) const;

    // What held 2025-era calls asked their clients (elicitation/create on the call's event stream),
    // by session; a session's entry lives while one of its calls has a question open. Shared with
    // the askers (the gate holds them).
    using Questions = QHash<QByteArray, ClientQuestions>;

    const Dispatcher &m_dispatcher;
    mutable LegacySessions m_sessions; // the endpoint lives in the server's thread only
    mutable ListenStreams m_streams;
    std::shared_ptr<Questions> m_questions = std::make_shared<Questions>();
};

} // namespace Countersign
