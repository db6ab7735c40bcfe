#pragma once

#include "tool.h"

namespace Countersign {

// countersign_status: read-only; tells the calling agent who it is to the server and which
// version answers, so a new connection can be checked from the IDE.
class StatusTool final : public SyncTool
{
public:
    explicit StatusTool(QString version) : m_version(std::move(version)) {}

    QString name() const override { return QStringLiteral("countersign_status"); }
    nlohmann::json descriptor() const override;
    ToolReply run(const ToolCall &call) override;

private:
    QString m_version;
};

} // namespace Countersign
