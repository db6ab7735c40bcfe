#pragma once

#include "gatedaction.h"

#include <memory>

namespace Countersign {

class CommandRunner;
class Workspace;

// run_command: a program and its arguments (an argv array, never a shell) in a workspace folder.
// A small read-only allow list runs without a card; everything else asks (rules change both).
class RunCommand final : public GatedAction
{
public:
    RunCommand(std::shared_ptr<const Workspace> ws, CommandRunner &runner);

    QString name() const override { return QStringLiteral("run_command"); }
    nlohmann::json descriptor() const override;
    Verdict defaultVerdict(const nlohmann::json &args) const override;
    void plan(const nlohmann::json &args, PlanDone done) override;
    void apply(const nlohmann::json &args, ApplyDone done) override;

private:
    static QStringList argvOf(const nlohmann::json &args);
    static QString quoted(const QStringList &argv);
    Result<QString> cwdOf(const nlohmann::json &args) const;

    std::shared_ptr<const Workspace> m_wsOwner;
    const Workspace &m_ws;
    CommandRunner &m_runner;
};

} // namespace Countersign
