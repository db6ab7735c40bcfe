#pragma once

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QString>

#include <variant>

namespace Countersign {

// One span as OTLP carries it, and its OTLP/HTTP JSON encoding (opentelemetry-proto's
// ExportTraceServiceRequest under the JSON mapping OTLP specifies: lowerCamelCase keys, trace and
// span ids as hex strings, enums as integers, 64-bit integers as decimal strings).
struct OtlpSpan final
{
    // SpanKind and Status.StatusCode, with OTLP's numbers.
    enum class Kind { Internal = 1, Server = 2, Client = 3 };
    enum class StatusCode { Unset = 0, Ok = 1, Error = 2 };

    struct Attribute final
    {
        QString key;
        std::variant<QString, qint64, bool> value;
    };
    struct Event final
    {
        QString name;
        qint64 timeMs = 0;
        QList<Attribute> attributes;
    };

    QByteArray traceId;      // 32 hex digits
    QByteArray spanId;       // 16 hex digits
    QByteArray parentSpanId; // 16 hex digits; empty for a root span
    QString name;
    Kind kind = Kind::Server;
    qint64 startMs = 0;
    qint64 endMs = 0;
    QList<Attribute> attributes;
    QList<Event> events;
    StatusCode status = StatusCode::Unset;
    QString statusMessage;

    void set(const QString &key, const QString &value) { attributes.append({key, value}); }
    void set(const QString &key, qint64 value) { attributes.append({key, value}); }
    // The attribute named key; null when there is none.
    const Attribute *find(const QString &key) const;

    nlohmann::json toJson() const;
    // The body of one POST to /v1/traces: resourceSpans[{resource, scopeSpans[{scope, spans}]}].
    static nlohmann::json exportRequest(const QList<OtlpSpan> &spans, const QList<Attribute> &resource,
                                        const QString &scopeName, const QString &scopeVersion);
    // A fresh random id of bytes bytes (16 for a trace, 8 for a span; a multiple of 4), as hex,
    // never all zero.
    static QByteArray randomId(int bytes);
};

} // namespace Countersign
