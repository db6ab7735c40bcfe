#pragma once

#include <nlohmann/json.hpp>

#include <QDialog>

namespace Countersign {

class DenyRule;

// Asks before "Deny this from now on" changes the policy: shows the declined call, the exact rule
// that would go first in the configuration file's "rules", where the rule denies more than the call
// (DenyRule::notes) and the file. Everything is plain text (the agent chose the tool's arguments).
// Accepted only by the confirm button ("confirmDenyRule"; not a default button, so Enter typed
// elsewhere never changes the policy); "cancelDenyRule" and Escape reject.
class DenyRuleDialog final : public QDialog
{
    Q_OBJECT
public:
    DenyRuleDialog(const QString &tool, const nlohmann::json &arguments, const DenyRule &rule,
                   const QString &configPath, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(DenyRuleDialog)
};

} // namespace Countersign
