#include "policyevents.h"

#include <QStringList>

namespace Countersign::PolicyEvents {

using json = nlohmann::json;

QString idOf(qint64 seq)
{
    return QStringLiteral("policy-%1").arg(seq);
}

QString changesText(const json &detail)
{
    QStringList said;
    for (const char *side : {"widening", "narrowing"}) {
        const json items = detail.is_object() ? detail.value(side, json::array()) : json::array();
        if (!items.is_array())
            continue;
        for (const json &item : items) {
            if (!item.is_object())
                continue;
            const auto text = [&item](const char *key) {
                const json value = item.value(key, json());
                return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
            };
            said.append(QStringLiteral("%1: %2 -> %3").arg(text("subject"), text("before"), text("after")));
        }
    }
    return said.join(QStringLiteral("; "));
}

} // namespace Countersign::PolicyEvents
