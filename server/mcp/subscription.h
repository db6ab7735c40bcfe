#pragma once

#include "mcprequest.h"
#include "result.h"

#include <nlohmann/json.hpp>

namespace Countersign {

// One subscriptions/listen (2026-07-28): the stream a client opens to hear what happens outside its
// requests. Its id is the listen request's id, carried in _meta of every message on the stream.
// Countersign honours toolsListChanged (its tools change as upstreams come and go and as the
// configuration changes); the other notification types are left out of the acknowledgment, as
// the specification asks of a server that does not send them.
class Subscription final
{
public:
    static constexpr char kMethod[] = "subscriptions/listen";
    static constexpr std::size_t kMaxIdBytes = 256;

    // The request's filter, checked: params.notifications must be an object whose flags are
    // booleans and whose resourceSubscriptions is an array of strings; a mistyped one is refused
    // with the reason (-32602), not guessed at.
    static Result<Subscription> fromRequest(const McpRequest &request);

    const nlohmann::json &id() const { return m_id; }
    bool wantsTools() const { return m_tools; }

    // The stream's first message: what is honoured.
    nlohmann::json acknowledged() const;
    // notifications/tools/list_changed on this stream.
    nlohmann::json toolsChanged() const;
    // The listen request's result, sent when the server ends the stream (shutting down).
    nlohmann::json ended() const;

private:
    nlohmann::json meta() const;

    nlohmann::json m_id;
    bool m_tools = false;
};

} // namespace Countersign
