#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace Countersign {

// A W3C Trace Context traceparent ("00-<trace-id>-<parent-id>-<flags>"), as a client sends it in a
// request's _meta: the trace a span joins and the client span it is the child of.
struct TraceParent final
{
    QByteArray traceId;  // 32 lowercase hex digits, not all zero
    QByteArray parentId; // 16 lowercase hex digits, not all zero
    bool sampled = false;

    // The agent's text: anything but a well-formed traceparent of a known or later version is
    // refused (nullopt), never guessed at.
    static std::optional<TraceParent> parse(const QString &text);
};

} // namespace Countersign
