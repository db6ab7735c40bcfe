#pragma once

// The dispatcher the fuzz targets drive: the server's own, serving countersign_status, a gated
// action whose plan and apply answer at once (first passes mint tickets and park cards; a retry
// must bring a sealed ticket, which the fuzzer cannot forge) and every workspace tool over a
// scratch folder with a file and a git repository (read_file and list_directory run; the others
// plan, park and wait for a human who never comes). The crash that once ended the app — a gated
// call whose clientInfo.name is a number — is in corpus/dispatcher/gated_clientinfo_number.json.
#include "auditstore.h"
#include "clock.h"
#include "commandrunner.h"
#include "database.h"
#include "dispatcher.h"
#include "gate.h"
#include "gatedaction.h"
#include "gatedtool.h"
#include "receipt.h"
#include "statustool.h"
#include "ticketsealer.h"
#include "toolregistry.h"
#include "workspace.h"
#include "workspacetools.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cstdlib>

namespace FuzzSupport {

using json = nlohmann::json;

class FixedClock final : public Countersign::Clock
{
public:
    qint64 nowMs() const override { return 1'800'000'000'000; }
};

// delete_service {service}: plans and applies at once, so every answer is synchronous.
class InstantAction final : public Countersign::GatedAction
{
public:
    QString name() const override { return QStringLiteral("delete_service"); }
    json descriptor() const override
    {
        return {
            {"name", "delete_service"},
            {"description", "fuzz"},
            {"inputSchema",
             {{"type", "object"},
              {"properties", {{"service", {{"type", "string"}}}}},
              {"required", {"service"}}}},
            {"annotations", {{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}}}};
    }
    void plan(const json &arguments, PlanDone done) override
    {
        Countersign::Plan plan;
        plan.title = QStringLiteral("Delete service");
        plan.targets = {QString::fromStdString(arguments.value("service", std::string()))};
        plan.risk = Countersign::Risk::Medium;
        done(plan);
    }
    void apply(const json &, ApplyDone done) override
    {
        done(Countersign::textResult(QStringLiteral("deleted")));
    }
};

struct Stack final
{
    int argc = 1;
    char arg0[5] = "fuzz";
    char *argv[2] = {arg0, nullptr};
    QCoreApplication app{argc, argv}; // run_command's allowed forms run a process
    QTemporaryDir dir;
    FixedClock clock;
    std::unique_ptr<Countersign::Database> db =
        std::move(Countersign::Database::open(QStringLiteral(":memory:"))).value();
    Countersign::ReceiptSigner signer{QByteArray(32, '\x01')};
    Countersign::AuditStore store{*db, clock, &signer};
    Countersign::TicketSealer sealer{Countersign::TicketSealer::generateKey(), QStringLiteral("fuzz")};
    Countersign::Gate gate{
        store, clock, sealer, signer, Countersign::Policy(), Countersign::Gate::Settings{300'000, 0, {}, 0}};
    Countersign::CommandRunner runner;
    Countersign::ToolRegistry tools;
    Countersign::Dispatcher dispatcher{tools, {QStringLiteral("countersign"), QStringLiteral("fuzz"), {}}};

    Stack()
    {
        const QString root = QDir(dir.path()).canonicalPath();
        QDir(root).mkpath(QStringLiteral("src"));
        QFile f(root + QStringLiteral("/src/a.txt"));
        if (!f.open(QIODevice::WriteOnly) || f.write("one\ntwo\n") != 8)
            std::abort();
        f.close();
        tools.add(std::make_unique<Countersign::StatusTool>(QStringLiteral("fuzz")));
        tools.add(std::make_unique<Countersign::GatedTool>(std::make_shared<InstantAction>(), gate));
        Countersign::WorkspaceTools::addTo(
            tools, std::make_shared<const Countersign::Workspace>(QStringList{root}), runner, gate);
    }
};

inline Stack &stack()
{
    static Stack s;
    return s;
}

// Every request is answered exactly once; all but a run_command process answer before dispatch
// returns, and that one within its timeout.
inline void awaitAnswer(const int &answers)
{
    QDeadlineTimer deadline(130'000);
    while (answers == 0 && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    if (answers != 1)
        std::abort();
}

} // namespace FuzzSupport

inline const Countersign::Dispatcher &fuzzDispatcher()
{
    return FuzzSupport::stack().dispatcher;
}
