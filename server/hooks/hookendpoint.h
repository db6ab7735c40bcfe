#pragma once

#include "localcaller.h"
#include "principal.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace Countersign {

class HookService;
struct HttpRequest;
struct HttpResponse;

// The hooks' front door, beside MCP's: POST /hooks/CLIENT on the loopback listener (Claude Code's
// "type": "http" hook, with the connection's bearer token) and the hook lines of the local socket
// (the `countersign hook CLIENT` shim, which brought its token in its hello). Either way the answer
// is the hook's JSON; over HTTP always a 200, since the clients let a call through on a non-2xx
// answer. Every refusal (an unknown client or token, an unreadable payload, a store that cannot be
// read) is a deny the agent reads; only a Host or Origin that is not loopback gets an HTTP 403,
// because no agent's hook sends one.
class HookEndpoint final
{
public:
    static constexpr char kPath[] = "/hooks/";

    explicit HookEndpoint(HookService &service) : m_service(service) {}

    using Responder = std::function<void(HttpResponse)>;
    // request: its target was /hooks/CLIENT; caller: who sent it, as the http room checked it.
    void serve(const HttpRequest &request, const LocalCaller::Checked &caller,
               const Responder &respond) const;

    // A hook line from the local socket, whose connection is already known; answer gets one line.
    using LineAnswer = std::function<void(const QByteArray &line)>;
    void serveLine(const QString &clientName, const Principal &who, const QByteArray &payload,
                   const LineAnswer &answer) const;

private:
    HookService &m_service;
};

} // namespace Countersign
