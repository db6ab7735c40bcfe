#pragma once

#include "tool.h"

#include <nlohmann/json.hpp>

#include <QString>

namespace Countersign {

// Prompts and resources served read-only from elsewhere (the gateway's upstream servers), for the
// Dispatcher: prompts/list, prompts/get, resources/list, resources/templates/list, resources/read.
class ContentSource
{
public:
    virtual ~ContentSource() = default;
    // Whether to advertise (and route) prompts, resources.
    virtual bool servesPrompts() const = 0;
    virtual bool servesResources() const = 0;
    // params: the request's params (already an object). done gets the result body in the 2026-07-28
    // shape without resultType, _meta or caching hints (the Dispatcher adds what the era needs), or a
    // protocol error; once, now or later, from the server thread.
    virtual void serve(const QString &method, const nlohmann::json &params, ToolDone done) = 0;
};

} // namespace Countersign
