#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace Countersign {

// Where gated calls are exported as OpenTelemetry spans ("otlp" in the configuration): an
// OTLP/HTTP collector's traces URL, the headers sent with every export (a token, a tenant) and the
// service name the spans are filed under. Off when the configuration has no "otlp". Read at start.
struct OtlpSpec final
{
    static constexpr int kMaxHeaders = 32;
    static constexpr int kMaxHeaderValue = 8192;

    QString endpoint; // http:// or https://, no user name or password in it; empty: export off
    QList<QPair<QByteArray, QByteArray>> headers;
    QString serviceName = QStringLiteral("countersign");

    bool isEnabled() const { return !endpoint.isEmpty(); }
    bool operator==(const OtlpSpec &) const = default;

    // value: the "otlp" object. Errors name the field ("otlp.headers.X-Token: ...") and never
    // quote a header's value, which may be a secret.
    static Result<OtlpSpec> fromJson(const nlohmann::json &value);
};

} // namespace Countersign
