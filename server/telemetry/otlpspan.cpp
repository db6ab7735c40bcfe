#include "otlpspan.h"

#include <QRandomGenerator>

namespace Countersign {

namespace {

using json = nlohmann::json;

std::string nanos(qint64 ms)
{
    return std::to_string(ms * 1'000'000);
}

json attributeJson(const OtlpSpan::Attribute &attribute)
{
    json value;
    if (const auto *text = std::get_if<QString>(&attribute.value))
        value = {{"stringValue", text->toStdString()}};
    else if (const auto *number = std::get_if<qint64>(&attribute.value))
        value = {{"intValue", std::to_string(*number)}};
    else
        value = {{"boolValue", std::get<bool>(attribute.value)}};
    return {{"key", attribute.key.toStdString()}, {"value", value}};
}

json attributesJson(const QList<OtlpSpan::Attribute> &attributes)
{
    json list = json::array();
    for (const OtlpSpan::Attribute &attribute : attributes)
        list.push_back(attributeJson(attribute));
    return list;
}

} // namespace

const OtlpSpan::Attribute *OtlpSpan::find(const QString &key) const
{
    for (const Attribute &attribute : attributes) {
        if (attribute.key == key)
            return &attribute;
    }
    return nullptr;
}

json OtlpSpan::toJson() const
{
    json span = {{"traceId", traceId.toStdString()},
                 {"spanId", spanId.toStdString()},
                 {"name", name.toStdString()},
                 {"kind", static_cast<int>(kind)},
                 {"startTimeUnixNano", nanos(startMs)},
                 {"endTimeUnixNano", nanos(endMs)},
                 {"attributes", attributesJson(attributes)}};
    if (!parentSpanId.isEmpty())
        span["parentSpanId"] = parentSpanId.toStdString();
    if (!events.isEmpty()) {
        json list = json::array();
        for (const Event &event : events)
            list.push_back({{"timeUnixNano", nanos(event.timeMs)},
                            {"name", event.name.toStdString()},
                            {"attributes", attributesJson(event.attributes)}});
        span["events"] = std::move(list);
    }
    json statusJson = {{"code", static_cast<int>(status)}};
    if (!statusMessage.isEmpty())
        statusJson["message"] = statusMessage.toStdString();
    span["status"] = std::move(statusJson);
    return span;
}

json OtlpSpan::exportRequest(const QList<OtlpSpan> &spans, const QList<Attribute> &resource,
                             const QString &scopeName, const QString &scopeVersion)
{
    json list = json::array();
    for (const OtlpSpan &span : spans)
        list.push_back(span.toJson());
    const json scope = {{"name", scopeName.toStdString()}, {"version", scopeVersion.toStdString()}};
    return {{"resourceSpans",
             json::array({{{"resource", {{"attributes", attributesJson(resource)}}},
                           {"scopeSpans", json::array({{{"scope", scope}, {"spans", list}}})}}})}};
}

QByteArray OtlpSpan::randomId(int bytes)
{
    QByteArray id(bytes, '\0');
    do {
        QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(id.data()), bytes / 4);
    } while (id.count('\0') == bytes);
    return id.toHex();
}

} // namespace Countersign
