#include "selftestcommand.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "clientcheck.h"
#include "clientinstaller.h"
#include "commandline.h"
#include "database.h"
#include "filesecretstore.h"
#include "hookscommand.h"
#include "hooksetup.h"
#include "receipt.h"
#include "scriptedmodel.h"
#include "selftestclient.h"
#include "serverkeys.h"
#include "socketpaths.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QLoggingCategory>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <functional>

#include <signal.h>
#include <unistd.h>

namespace Countersign {

namespace {

constexpr char kVictim[] = "selftest-victim";
constexpr char kReason[] = "declined by countersign selftest (check 7f3a)";
constexpr char kReasonMark[] = "check 7f3a";
constexpr int kCardMs = 120'000;   // an agent's start, its first model turn and the hook's round trip
constexpr int kResultMs = 60'000;  // a decided card's answer back in the conversation
constexpr int kExitMs = 60'000;    // the agent's last turn and its exit
constexpr int kConsoleMs = 20'000; // the sandbox console's start

void say(const QString &line)
{
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

QString oneLine(QString text, qsizetype max = 160)
{
    text = text.simplified();
    return text.size() > max ? text.left(max) + QStringLiteral("…") : text;
}

// Runs the event loop until done() holds or ms pass; whether it held.
bool waitUntil(const std::function<bool()> &done, int ms)
{
    QEventLoop loop;
    QTimer tick;
    QTimer limit;
    limit.setSingleShot(true);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.quit();
    });
    QObject::connect(&limit, &QTimer::timeout, &loop, &QEventLoop::quit);
    tick.start(100);
    limit.start(ms);
    if (!done())
        loop.exec();
    return done();
}

quint16 freePort()
{
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

// What the agent says its version is, asked in the sandbox (its HOME a folder of its own).
QString versionOf(const QString &program, const QString &root)
{
    const QString home = QDir(root).filePath(QStringLiteral("version-home"));
    QDir().mkpath(home);
    QProcess p;
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), qEnvironmentVariable("PATH"));
    env.insert(QStringLiteral("HOME"), home);
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(home);
    p.start(program, {QStringLiteral("--version")});
    p.waitForFinished(20000);
    if (p.state() != QProcess::NotRunning)
        p.kill();
    static const QRegularExpression number(QStringLiteral("\\d+\\.\\d+\\.\\d+"));
    const QString found =
        number.match(QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError())).captured();
    return found.isEmpty() ? QStringLiteral("(version unknown)") : found;
}

// A process in a group of its own: whatever it starts is killed with it.
class Child final
{
public:
    Child()
    {
        m_process.setChildProcessModifier([] { ::setpgid(0, 0); });
    }
    ~Child() { kill(); }
    Q_DISABLE_COPY_MOVE(Child)
    QProcess &process() { return m_process; }
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    void kill()
    {
        if (m_process.processId() > 0 && running())
            ::kill(-pid_t(m_process.processId()), SIGKILL);
        m_process.waitForFinished(5000);
    }

private:
    QProcess m_process;
};

// The sandbox's console, by the data folder's key, with the self-test's hand on its queue.
struct Queue final
{
    std::unique_ptr<Database> db;
    SystemClock clock;
    std::unique_ptr<ReceiptSigner> signer;
    std::unique_ptr<AuditStore> audit;
    std::unique_ptr<ApprovalQueue> queue;
};

Result<std::unique_ptr<Queue>> openQueue(const QString &dataDir)
{
    auto q = std::make_unique<Queue>();
    auto db = Database::open(QDir(dataDir).filePath(QStringLiteral("countersign.db")));
    if (!db)
        return failure(db.error());
    q->db = std::move(db).value();
    FileSecretStore files(QDir(dataDir).filePath(QStringLiteral("keys")));
    auto keys = ServerKeys::load(files, nullptr);
    if (!keys)
        return failure(keys.error());
    q->signer = std::make_unique<ReceiptSigner>(keys.value().signingSeed);
    q->audit = std::make_unique<AuditStore>(*q->db, q->clock, q->signer.get());
    q->queue = std::make_unique<ApprovalQueue>(*q->audit, q->clock);
    return q;
}

class Selftest final
{
public:
    Selftest(SelftestClient client, QString program, QString name, QString root)
        : m_client(std::move(client)), m_program(std::move(program)), m_name(std::move(name)),
          m_root(std::move(root))
    {
        m_sandbox.home = QDir(m_root).filePath(QStringLiteral("home"));
        m_sandbox.project = QDir(m_root).filePath(QStringLiteral("project"));
        m_dataDir = QDir(m_root).filePath(QStringLiteral("data"));
        m_config = QDir(m_root).filePath(QStringLiteral("config.json"));
    }

    // 0: the gate held everywhere; 1: it did not; 2: the agent could not be tested.
    int run();

private:
    Status prepare();
    Status startConsole();
    Status writeVictim() const;
    bool victimIntact() const { return QFile::exists(victimFile()); }
    QString victimFile() const
    {
        return QDir(m_sandbox.project).filePath(QLatin1String(kVictim) + QStringLiteral("/keep.txt"));
    }
    Result<std::unique_ptr<Child>> startAgent(const QString &log);
    bool check(bool ok, const QString &what);
    // A step with the console up: the call held for a card, declined, the reason told.
    // viaHook: the agent's own tool, whose decline ends the run of an agent with a stopLog.
    void heldAndDeclined(ScriptedModel &model, Child &agent, int step, const QString &tool, bool viaHook);

    SelftestClient m_client;
    QString m_program;
    QString m_name;
    QString m_root;
    SelftestClient::Sandbox m_sandbox;
    QString m_dataDir;
    QString m_config;
    quint16 m_port = 0;
    SelftestClient::Launch m_launch;
    Child m_console;
    std::unique_ptr<Queue> m_queue;
    int m_failed = 0;
    bool m_untestable = false;
};

bool Selftest::check(bool ok, const QString &what)
{
    say(QStringLiteral("      %1 %2").arg(ok ? QStringLiteral("ok  ") : QStringLiteral("FAIL"), what));
    if (!ok)
        ++m_failed;
    return ok;
}

Status Selftest::writeVictim() const
{
    QDir().mkpath(QFileInfo(victimFile()).absolutePath());
    QFile victim(victimFile());
    if (!victim.open(QIODevice::WriteOnly) ||
        victim.write("written by countersign selftest: it must survive\n") < 0)
        return failure(QStringLiteral("cannot write %1").arg(victimFile()));
    return success();
}

Status Selftest::prepare()
{
    for (const QString &dir : {m_sandbox.home, m_sandbox.project, m_dataDir})
        if (!QDir().mkpath(dir))
            return failure(QStringLiteral("cannot create %1").arg(dir));
    if (auto written = writeVictim(); !written)
        return written;
    // The sandbox console: keys in its folder, not the user's keychain; cards decidable at once.
    QFile config(m_config);
    const QByteArray text = QByteArray::fromStdString(nlohmann::json{
        {"keyStore", "file"},
        {"workspaceRoots", {m_sandbox.project.toStdString()}},
        {"cardMinimumSeconds", 0},
        {"hookHoldSeconds", 120}}.dump(2));
    if (!config.open(QIODevice::WriteOnly) || config.write(text) != text.size())
        return failure(QStringLiteral("cannot write %1").arg(m_config));
    config.close();
    m_port = freePort();
    if (m_port == 0)
        return failure(QStringLiteral("no free port on 127.0.0.1"));
    return success();
}

Status Selftest::startConsole()
{
    QProcess &p = m_console.process();
    p.setProgram(QCoreApplication::applicationFilePath());
    p.setArguments({QStringLiteral("--headless"), QStringLiteral("--listen"),
                    QStringLiteral("127.0.0.1:%1").arg(m_port), QStringLiteral("--data-dir"), m_dataDir,
                    QStringLiteral("--config"), m_config});
    p.setStandardOutputFile(QProcess::nullDevice());
    p.setStandardErrorFile(QDir(m_root).filePath(QStringLiteral("console.log")));
    p.start();
    const QString log = QDir(m_root).filePath(QStringLiteral("console.log"));
    const bool listening = waitUntil(
        [&] {
            QFile f(log);
            return !m_console.running() ||
                   (f.open(QIODevice::ReadOnly) && f.readAll().contains("listening on"));
        },
        kConsoleMs);
    if (!listening || !m_console.running())
        return failure(QStringLiteral("the sandbox console did not start (its log: %1)").arg(log));
    auto queue = openQueue(m_dataDir);
    if (!queue)
        return failure(queue.error());
    m_queue = std::move(queue).value();
    return success();
}

Result<std::unique_ptr<Child>> Selftest::startAgent(const QString &log)
{
    auto agent = std::make_unique<Child>();
    QProcess &p = agent->process();
    p.setProgram(m_program);
    p.setArguments(m_launch.arguments);
    p.setProcessEnvironment(m_launch.environment);
    p.setWorkingDirectory(m_sandbox.project);
    p.setStandardInputFile(QProcess::nullDevice());
    p.setStandardOutputFile(log);
    p.setStandardErrorFile(log, QIODevice::Append);
    p.start();
    if (!p.waitForStarted(10000))
        return failure(QStringLiteral("%1 did not start: %2").arg(m_program, p.errorString()));
    return agent;
}

void Selftest::heldAndDeclined(ScriptedModel &model, Child &agent, int step, const QString &tool,
                               bool viaHook)
{
    std::optional<Operation> card;
    const bool carded = waitUntil(
        [&] {
            if (!m_queue->queue->restore() || !agent.running())
                return !agent.running();
            for (const Operation &op : m_queue->queue->pending())
                if (op.plan.title.contains(QLatin1String(kVictim)))
                    card = op;
            return card.has_value() || !victimIntact();
        },
        kCardMs);
    if (!card) {
        if (!victimIntact())
            check(false, QStringLiteral("held for a card: no, it ran without one (%1 is gone)")
                             .arg(QLatin1String(kVictim)));
        else if (model.callCount() <= step) {
            m_untestable = true;
            say(QStringLiteral(
                    "      ??   the agent never made the call (model requests: %1; tools it offered: %2)")
                    .arg(model.requestCount())
                    .arg(oneLine(model.offeredTools().join(QStringLiteral(", ")), 300)));
        } else
            check(false, QStringLiteral("held for a card: no card within %1 s%2")
                             .arg(kCardMs / 1000)
                             .arg(carded ? QStringLiteral(" (the agent exited)") : QString()));
        return;
    }
    check(victimIntact(), QStringLiteral("held for a card before it ran: \"%1\" (risk %2)")
                              .arg(oneLine(card->plan.title, 100), riskName(card->plan.risk)));
    const auto declined =
        m_queue->queue->decline(card->nonce, QStringLiteral("console:selftest"), QLatin1String(kReason));
    if (!check(bool(declined), QStringLiteral("declined in the sandbox console%1")
                                   .arg(declined ? QString() : QStringLiteral(": ") + declined.error())))
        return;
    waitUntil([&] { return model.results().size() > step || !agent.running(); }, kResultMs);
    if (viaHook && !m_client.stopLog.isEmpty()) {
        QFile log(QDir(m_sandbox.home).filePath(m_client.stopLog));
        const bool logged = log.open(QIODevice::ReadOnly) && log.readAll().contains(kReasonMark);
        check(!agent.running() && logged,
              QStringLiteral(
                  "the run stopped, the reason in %1 (its hooks cannot refuse one tool and go on; the "
                  "model is not told)")
                  .arg(QStringLiteral("~/") + m_client.stopLog));
        check(victimIntact(),
              QStringLiteral("nothing ran: %1 is intact after %2").arg(QLatin1String(kVictim), tool));
        return;
    }
    const QString told = model.results().size() > step ? model.results().at(step).text : QString();
    check(told.contains(QLatin1String(kReasonMark)),
          told.isEmpty() ? QStringLiteral("the agent was told why: no answer reached the model")
                         : QStringLiteral("the agent was told why: \"%1\"").arg(oneLine(told)));
    check(victimIntact(),
          QStringLiteral("nothing ran: %1 is intact after %2").arg(QLatin1String(kVictim), tool));
}

int Selftest::run()
{
    if (auto ready = prepare(); !ready) {
        say(QStringLiteral("countersign: selftest: %1").arg(ready.error()));
        return 2;
    }
    const QString command = QStringLiteral("rm -r %1").arg(QLatin1String(kVictim));
    const ScriptedModel::Step shell{m_client.shellTool, {}, m_client.shellArgs(command, m_sandbox)};
    const ScriptedModel::Step mcpStep{
        QStringLiteral("delete_path"),
        QStringLiteral("countersign"),
        {{"path", QDir(m_sandbox.project).filePath(QLatin1String(kVictim)).toStdString()},
         {"recursive", true}}};
    QList<ScriptedModel::Step> steps{shell};
    if (m_client.mcp && m_client.stopLog.isEmpty())
        steps.append(mcpStep);
    ScriptedModel model(steps);
    if (auto listening = model.listen(); !listening) {
        say(QStringLiteral("countersign: selftest: %1").arg(listening.error()));
        return 2;
    }
    // Set up as `countersign setup CLIENT` sets a user up: its model configuration first, then
    // Countersign's hooks and MCP entry merged into it, a token of their own.
    auto launch =
        m_client.prepare(m_sandbox, model.baseUrl(),
                         QStringLiteral("Countersign self-test: make the tool calls you are given."));
    if (!launch) {
        say(QStringLiteral("countersign: selftest: %1").arg(launch.error()));
        return 2;
    }
    m_launch = launch.value();
    {
        auto db = Database::open(QDir(m_dataDir).filePath(QStringLiteral("countersign.db")));
        if (!db) {
            say(QStringLiteral("countersign: selftest: %1").arg(db.error()));
            return 2;
        }
        SystemClock clock;
        TokenStore tokens(*db.value(), clock);
        HookInstaller::Place place = hookPlace(m_dataDir, QStringLiteral("http://127.0.0.1:%1").arg(m_port));
        place.home = m_sandbox.home;
        place.codexHome = QDir(m_sandbox.home).filePath(QStringLiteral(".codex"));
        auto done = ClientInstaller(tokens, place).setup(m_client.client, QStringLiteral("selftest"));
        if (!done) {
            say(QStringLiteral("countersign: selftest: setup %1: %2").arg(m_client.client, done.error()));
            return 2;
        }
    }
    if (auto started = startConsole(); !started) {
        say(QStringLiteral("countersign: selftest: %1").arg(started.error()));
        return 2;
    }

    say(QStringLiteral("  1. %1's own shell (%2: %3), the console running")
            .arg(m_name, m_client.shellTool, command));
    const QString log1 = QDir(m_root).filePath(QStringLiteral("agent-1.log"));
    auto agent = startAgent(log1);
    if (!agent) {
        say(QStringLiteral("countersign: selftest: %1").arg(agent.error()));
        return 2;
    }
    heldAndDeclined(model, *agent.value(), 0, command, true);
    if (m_client.mcp && !m_untestable) {
        say(QStringLiteral("  2. Countersign's MCP tool delete_path on %1, the console running")
                .arg(QLatin1String(kVictim)));
        int step = 1;
        if (!m_client.stopLog.isEmpty()) { // the decline ended the run: the MCP call in a run of its own
            waitUntil([&] { return !agent.value()->running(); }, kExitMs);
            agent.value()->kill();
            model.restart({mcpStep});
            agent = startAgent(QDir(m_root).filePath(QStringLiteral("agent-1-mcp.log")));
            if (!agent) {
                say(QStringLiteral("countersign: selftest: %1").arg(agent.error()));
                return 2;
            }
            step = 0;
        }
        waitUntil(
            [&] {
                return model.missingStep() >= step || model.callCount() > step || !agent.value()->running();
            },
            kCardMs);
        if (model.callCount() > step)
            heldAndDeclined(model, *agent.value(), step, QStringLiteral("delete_path"), false);
        else
            check(false,
                  QStringLiteral("the agent was not offered Countersign's MCP tools (its MCP entry was not "
                                 "loaded; tools it offered: %1)")
                      .arg(oneLine(model.offeredTools().join(QStringLiteral(", ")), 300)));
    }
    waitUntil([&] { return !agent.value()->running(); }, kExitMs);
    agent.value()->kill();

    say(QStringLiteral("  %1. %2's own shell again, the console killed (as a crash leaves it)")
            .arg(m_client.mcp ? 3 : 2)
            .arg(m_name));
    m_console.kill();
    // Measured on its own: a folder a failed step lost is put back first.
    if (auto again = writeVictim(); !again) {
        say(QStringLiteral("countersign: selftest: %1").arg(again.error()));
        return 2;
    }
    ScriptedModel &down = model;
    down.restart({shell});
    auto again = startAgent(QDir(m_root).filePath(QStringLiteral("agent-2.log")));
    if (!again) {
        say(QStringLiteral("countersign: selftest: %1").arg(again.error()));
        return 2;
    }
    waitUntil([&] { return !down.results().isEmpty() || !again.value()->running() || !victimIntact(); },
              kCardMs);
    waitUntil([&] { return !down.results().isEmpty() || !again.value()->running(); }, 5000);
    const QString told = down.results().isEmpty() ? QString() : down.results().first().text;
    if (down.callCount() == 0 && victimIntact()) {
        m_untestable = true;
        say(QStringLiteral("      ??   the agent never made the call (model requests: %1)")
                .arg(down.requestCount()));
    } else {
        check(victimIntact(),
              QStringLiteral("blocked: %1")
                  .arg(told.isEmpty() ? QStringLiteral("the agent stopped")
                                      : QStringLiteral("the agent was told \"%1\"").arg(oneLine(told))));
    }
    again.value()->kill();
    if (m_failed)
        return 1;
    return m_untestable ? 2 : 0;
}

} // namespace

int runSelftestCommand(const CommandLine &cl)
{
    // The sandbox store's and queue's own notes stay out of the report.
    QLoggingCategory::setFilterRules(QStringLiteral("countersign.*.debug=false\ncountersign.*.info=false"));
    const QString client = cl.command.value(1);
    const auto spec = SelftestClient::of(client);
    if (!spec)
        return commandFailed(QStringLiteral("selftest: the client must be one of %1")
                                 .arg(HookSetup::clients().join(QLatin1String(", "))));
    const QString name = HookInstaller::displayName(client);
    const QString program = ClientCheck::programPath(client);
    if (program.isEmpty())
        return commandFailed(
            QStringLiteral("selftest: %1 is not installed here (not found on PATH)").arg(name));
    QTemporaryDir root(QDir::temp().filePath(QStringLiteral("countersign-selftest-XXXXXX")));
    if (!root.isValid())
        return commandFailed(QStringLiteral("selftest: cannot create a sandbox: %1").arg(root.errorString()));
    const QString version = versionOf(program, root.path());
    say(QStringLiteral("Countersign self-test of %1 %2 (%3)").arg(name, version, program));
    say(QStringLiteral(
            "  in a sandbox of its own, %1: a HOME, a project and a console; your settings, console "
            "and audit log are not touched")
            .arg(root.path()));
    Selftest test(*spec, program, name, root.path());
    const int code = test.run();
    if (code != 0) {
        root.setAutoRemove(false);
        say(QStringLiteral("  The sandbox is kept for a look: %1 (agent-*.log, console.log)")
                .arg(root.path()));
    }
    say(code == 0 ? QStringLiteral("The gate holds for %1 %2.").arg(name, version)
        : code == 1
            ? QStringLiteral("The gate does NOT hold for %1 %2: see the FAIL lines above.").arg(name, version)
            : QStringLiteral("%1 %2 could not be tested here: see the lines above.").arg(name, version));
    return code;
}

} // namespace Countersign
