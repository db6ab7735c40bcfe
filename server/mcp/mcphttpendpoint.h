#pragma once

#include "httprequest.h"
#include "httpresponse.h"
#include "principal.h"

#include <functional>
#include <optional>

namespace Countersign {

class Dispatcher;

// The /mcp endpoint without sockets: one HttpRequest in, one HttpResponse out. In order: method
// (405), Host and Origin (403), bearer token (401), Content-Type (415), JSON (400), the dispatcher's
// envelope checks, the MCP header checks, then the method.
class McpHttpEndpoint final
{
public:
    using Authenticator = std::function<std::optional<Principal>(const QByteArray &token)>;

    McpHttpEndpoint(const Dispatcher &dispatcher, Authenticator authenticate);
    Q_DISABLE_COPY_MOVE(McpHttpEndpoint)

    using Responder = std::function<void(HttpResponse)>;

    // Answers through respond exactly once; a tool that waits (the gate's poll window) answers
    // after serve() has returned.
    void serve(const HttpRequest &request, Responder respond) const;

    // The transport-level refusal shape: a JSON-RPC error with id null.
    static HttpResponse refusal(int status, int code, const QString &message);

private:
    const Dispatcher &m_dispatcher;
    Authenticator m_authenticate;
};

} // namespace Countersign
