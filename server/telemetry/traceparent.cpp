#include "traceparent.h"

#include <algorithm>

namespace Countersign {

namespace {

bool isLowerHex(const QByteArray &text)
{
    return std::all_of(text.cbegin(), text.cend(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool isAllZero(const QByteArray &text)
{
    return std::all_of(text.cbegin(), text.cend(), [](char c) { return c == '0'; });
}

} // namespace

std::optional<TraceParent> TraceParent::parse(const QString &text)
{
    // version-traceid-parentid-flags; a later version may append fields after a dash.
    const QByteArray bytes = text.toLatin1();
    if (bytes.size() < 55 || (bytes.size() > 55 && bytes.at(55) != '-'))
        return std::nullopt;
    const QByteArray version = bytes.left(2), traceId = bytes.mid(3, 32), parentId = bytes.mid(36, 16),
                     flags = bytes.mid(53, 2);
    if (bytes.at(2) != '-' || bytes.at(35) != '-' || bytes.at(52) != '-')
        return std::nullopt;
    if (!isLowerHex(version) || version == "ff" || (version == "00" && text.size() != 55))
        return std::nullopt;
    if (!isLowerHex(traceId) || !isLowerHex(parentId) || !isLowerHex(flags) || isAllZero(traceId) ||
        isAllZero(parentId))
        return std::nullopt;
    return TraceParent{traceId, parentId, (QByteArray::fromHex(flags).at(0) & 0x01) != 0};
}

} // namespace Countersign
