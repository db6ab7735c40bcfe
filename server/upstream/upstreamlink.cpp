#include "upstreamlink.h"

#include <QDir>
#include <QLoggingCategory>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>

Q_LOGGING_CATEGORY(lcUpstream, "countersign.upstream")

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr const char *kModern = "2026-07-28";
constexpr const char *kLegacy = "2025-11-25";
constexpr int kMaxBackoffMs = 60'000;
constexpr qsizetype kMaxErrLineBytes = 4096;

bool isKnownLegacy(const QString &version)
{
    return version == QLatin1String("2025-11-25") || version == QLatin1String("2025-06-18") ||
           version == QLatin1String("2025-03-26") || version == QLatin1String("2024-11-05");
}

} // namespace

UpstreamLink::UpstreamLink(UpstreamSpec spec, QObject *parent) : QObject(parent), m_spec(std::move(spec))
{
    m_restart.setSingleShot(true);
    connect(&m_restart, &QTimer::timeout, this, &UpstreamLink::launch);
}

UpstreamLink::~UpstreamLink()
{
    m_stopping = true;
    m_restart.stop();
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
    const auto pending = std::exchange(m_pending, {});
    for (const Pending &p : pending) {
        delete p.timer;
        p.reply({Outcome::Kind::Lost, json(), QStringLiteral("Countersign stopped the upstream")});
    }
}

void UpstreamLink::start()
{
    launch();
}

void UpstreamLink::setSpec(const UpstreamSpec &spec)
{
    m_spec = spec;
}

void UpstreamLink::restart()
{
    fail(QStringLiteral("restarted"));
    m_restart.stop();
    launch();
}

void UpstreamLink::launch()
{
    if (m_stopping)
        return;
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->deleteLater();
        m_process = nullptr;
    }
    m_out.clear();
    m_err.clear();
    m_tools.clear();
    setState(State::Starting);
    m_process = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = m_spec.env.cbegin(); it != m_spec.env.cend(); ++it)
        env.insert(it.key(), it.value());
    m_process->setProcessEnvironment(env);
    m_process->setWorkingDirectory(m_spec.cwd.isEmpty() ? QDir::homePath() : m_spec.cwd);
    m_process->setProgram(m_spec.command.first());
    m_process->setArguments(m_spec.command.mid(1));
    QProcess *process = m_process;
    connect(process, &QProcess::readyReadStandardOutput, this, &UpstreamLink::readOutput);
    connect(process, &QProcess::readyReadStandardError, this, &UpstreamLink::readErrors);
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (process != m_process)
            return;
        if (error == QProcess::FailedToStart)
            fail(QStringLiteral("cannot start %1: %2").arg(m_spec.command.first(), process->errorString()));
    });
    connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus status) {
        if (process != m_process)
            return;
        readOutput();
        fail(status == QProcess::CrashExit
                 ? QStringLiteral("the upstream's process crashed")
                 : QStringLiteral("the upstream's process exited with %1").arg(code));
    });
    qCInfo(lcUpstream) << "starting upstream" << m_spec.name << m_spec.command;
    m_process->start(QIODevice::ReadWrite);
    handshake();
}

void UpstreamLink::readOutput()
{
    if (!m_process)
        return;
    m_out += m_process->readAllStandardOutput();
    for (;;) {
        const qsizetype end = m_out.indexOf('\n');
        if (end < 0)
            break;
        const QByteArray line = m_out.left(end).trimmed();
        m_out.remove(0, end + 1);
        if (line.isEmpty())
            continue;
        const json message = json::parse(line.cbegin(), line.cend(), nullptr, false);
        if (!message.is_object()) {
            qCWarning(lcUpstream) << "upstream" << m_spec.name
                                  << "wrote a line that is not a JSON-RPC message:" << line.left(200);
            continue;
        }
        handle(message);
        if (!m_process)
            return; // the message ended the link
    }
    if (m_out.size() > kMaxLineBytes)
        fail(QStringLiteral("the upstream wrote a message over %1 MiB").arg(kMaxLineBytes / (1024 * 1024)));
}

void UpstreamLink::readErrors()
{
    if (!m_process)
        return;
    m_err += m_process->readAllStandardError();
    for (;;) {
        const qsizetype end = m_err.indexOf('\n');
        if (end < 0 && m_err.size() < kMaxErrLineBytes)
            break;
        const qsizetype cut = end < 0 ? kMaxErrLineBytes : end;
        const QByteArray line = m_err.left(cut);
        m_err.remove(0, end < 0 ? cut : cut + 1);
        if (!line.trimmed().isEmpty())
            qCInfo(lcUpstream).noquote()
                << QStringLiteral("[%1] %2").arg(m_spec.name, QString::fromUtf8(line));
    }
}

void UpstreamLink::handle(const json &message)
{
    const auto method = message.find("method");
    if (method != message.end() && method->is_string()) {
        if (message.contains("id"))
            return answerServerRequest(message);
        if (*method == "notifications/tools/list_changed" && m_state == State::Ready && !m_relisting) {
            m_relisting = true;
            listTools(QString(), {});
        }
        return; // other notifications (progress, log messages) are not relayed
    }
    const auto id = message.find("id");
    if (id == message.end() || !id->is_number_integer())
        return;
    const auto found = m_pending.find(id->get<qint64>());
    if (found == m_pending.end())
        return; // late: its caller was answered already (timed out)
    const Pending pending = found.value();
    m_pending.erase(found);
    delete pending.timer;
    if (const auto error = message.find("error"); error != message.end()) {
        const QString text = error->is_object() && error->value("message", json()).is_string()
                                 ? QString::fromStdString((*error)["message"].get<std::string>())
                                 : QStringLiteral("an error without a message");
        return pending.reply({Outcome::Kind::Refused, *error, text});
    }
    const auto result = message.find("result");
    if (result == message.end() || !result->is_object())
        return pending.reply(
            {Outcome::Kind::Lost, json(), QStringLiteral("the upstream's answer had no result")});
    pending.reply({Outcome::Kind::Answered, *result, QString()});
}

void UpstreamLink::answerServerRequest(const json &message)
{
    // Countersign declares no client capability (no roots, sampling or elicitation): an upstream
    // gets an answer to ping and "method not found" to the rest, never a hang.
    if (message["method"] == "ping")
        return send({{"jsonrpc", "2.0"}, {"id", message["id"]}, {"result", json::object()}});
    send({{"jsonrpc", "2.0"},
          {"id", message["id"]},
          {"error",
           {{"code", -32601},
            {"message", "Method not found: Countersign relays no requests to its client"}}}});
}

void UpstreamLink::send(const json &message)
{
    if (!m_process)
        return;
    QByteArray line = QByteArray::fromStdString(message.dump(-1, ' ', false, json::error_handler_t::replace));
    line.append('\n');
    m_process->write(line);
}

json UpstreamLink::envelope() const
{
    return {
        {"io.modelcontextprotocol/protocolVersion", kModern},
        {"io.modelcontextprotocol/clientCapabilities", json::object()},
        {"io.modelcontextprotocol/clientInfo", {{"name", "countersign"}, {"version", COUNTERSIGN_VERSION}}}};
}

void UpstreamLink::request(const QString &method, json params, int timeoutMs, Reply reply)
{
    if (m_state != State::Ready) {
        const QString why = m_lastError.isEmpty() ? QStringLiteral("it is still starting") : m_lastError;
        QMetaObject::invokeMethod(
            this,
            [reply = std::move(reply), why, name = m_spec.name] {
                reply({Outcome::Kind::NotSent, json(),
                       QStringLiteral("upstream %1 is not running (%2)").arg(name, why)});
            },
            Qt::QueuedConnection);
        return;
    }
    call(method, std::move(params), timeoutMs, std::move(reply));
}

void UpstreamLink::call(const QString &method, json params, int timeoutMs, Reply reply)
{
    if (!params.is_object())
        params = json::object();
    if (m_modern) {
        json meta = params.value("_meta", json::object());
        meta.update(envelope());
        params["_meta"] = meta;
    }
    const qint64 id = m_nextId++;
    auto *timer = new QTimer(this);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, this, [this, id, timeoutMs] {
        const auto found = m_pending.find(id);
        if (found == m_pending.end())
            return;
        const Pending pending = found.value();
        m_pending.erase(found);
        pending.timer->deleteLater();
        pending.reply({Outcome::Kind::Lost, json(),
                       QStringLiteral("upstream %1 gave no answer within %2 s")
                           .arg(m_spec.name)
                           .arg(timeoutMs / 1000.0)});
    });
    m_pending.insert(id, {std::move(reply), timer});
    timer->start(timeoutMs);
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method.toStdString()}, {"params", std::move(params)}});
}

void UpstreamLink::handshake()
{
    m_modern = false;
    QPointer<UpstreamLink> self(this);
    call(QStringLiteral("server/discover"), {{"_meta", envelope()}}, kHandshakeMs,
         [self](const Outcome &outcome) {
             if (!self)
                 return;
             if (outcome.kind == Outcome::Kind::Lost && !self->m_process)
                 return; // the process went: the restart handshakes again
             const json versions = outcome.result.value("supportedVersions", json());
             if (outcome.kind == Outcome::Kind::Answered && versions.is_array() &&
                 std::find(versions.begin(), versions.end(), json(kModern)) != versions.end()) {
                 self->m_modern = true;
                 self->m_version = QString::fromLatin1(kModern);
                 const json info = outcome.result.value("_meta", json::object())
                                       .value("io.modelcontextprotocol/serverInfo", json::object());
                 self->m_serverName = QString::fromStdString(info.value("name", std::string()));
                 return self->listTools(QString(), {});
             }
             if (outcome.kind == Outcome::Kind::Lost)
                 return self->fail(QStringLiteral("no answer to server/discover: %1").arg(outcome.text));
             self->initialize(); // a 2025-era server: method not found, or no modern version
         });
}

void UpstreamLink::initialize()
{
    QPointer<UpstreamLink> self(this);
    const json params = {{"protocolVersion", kLegacy},
                         {"capabilities", json::object()},
                         {"clientInfo", {{"name", "countersign"}, {"version", COUNTERSIGN_VERSION}}}};
    call(QStringLiteral("initialize"), params, kHandshakeMs, [self](const Outcome &outcome) {
        if (!self || (outcome.kind == Outcome::Kind::Lost && !self->m_process))
            return;
        if (outcome.kind != Outcome::Kind::Answered)
            return self->fail(QStringLiteral("initialize failed: %1").arg(outcome.text));
        const QString version =
            QString::fromStdString(outcome.result.value("protocolVersion", std::string()));
        if (!isKnownLegacy(version))
            return self->fail(
                QStringLiteral("the upstream speaks protocol \"%1\", which Countersign does not")
                    .arg(version));
        self->m_version = version;
        self->m_serverName = QString::fromStdString(
            outcome.result.value("serverInfo", json::object()).value("name", std::string()));
        self->send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        self->listTools(QString(), {});
    });
}

void UpstreamLink::listTools(const QString &cursor, QList<json> sofar)
{
    QPointer<UpstreamLink> self(this);
    json params = json::object();
    if (!cursor.isEmpty())
        params["cursor"] = cursor.toStdString();
    call(QStringLiteral("tools/list"), params, kHandshakeMs, [self, sofar](const Outcome &outcome) mutable {
        if (!self || (outcome.kind == Outcome::Kind::Lost && !self->m_process))
            return;
        if (outcome.kind != Outcome::Kind::Answered)
            return self->fail(QStringLiteral("tools/list failed: %1").arg(outcome.text));
        const json tools = outcome.result.value("tools", json());
        if (!tools.is_array())
            return self->fail(QStringLiteral("tools/list answered without a tools array"));
        static const QRegularExpression toolName(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
        for (const json &tool : tools) {
            // The name becomes part of a Countersign tool name: plain characters only.
            if (tool.is_object() && tool.value("name", json()).is_string() &&
                toolName.match(QString::fromStdString(tool["name"].get<std::string>())).hasMatch() &&
                tool.value("inputSchema", json()).is_object())
                sofar.append(tool);
            else
                qCWarning(lcUpstream)
                    << "upstream" << self->m_spec.name << "listed a tool without a name or inputSchema";
        }
        const json next = outcome.result.value("nextCursor", json());
        if (next.is_string() && !next.get_ref<const std::string &>().empty() && sofar.size() < 10'000)
            return self->listTools(QString::fromStdString(next.get<std::string>()), sofar);
        self->m_tools = sofar;
        self->m_relisting = false;
        self->m_backoffMs = 500; // a working start: the next failure restarts soon again
        qCInfo(lcUpstream) << "upstream" << self->m_spec.name << "ready:" << self->m_serverName
                           << self->m_version << sofar.size() << "tools";
        self->setState(State::Ready);
        Q_EMIT self->toolsChanged();
    });
}

void UpstreamLink::fail(const QString &why)
{
    if (!why.isEmpty() && why != QLatin1String("restarted"))
        qCWarning(lcUpstream) << "upstream" << m_spec.name << why;
    m_lastError = why;
    const bool hadTools = !m_tools.isEmpty();
    m_tools.clear();
    if (m_process) {
        QProcess *process = std::exchange(m_process, nullptr);
        process->disconnect(this);
        process->kill();
        connect(process, &QProcess::finished, process, &QObject::deleteLater);
        if (process->state() == QProcess::NotRunning)
            process->deleteLater();
    }
    setState(State::Down);
    const auto pending = std::exchange(m_pending, {});
    for (const Pending &p : pending) {
        delete p.timer;
        p.reply(
            {Outcome::Kind::Lost, json(), QStringLiteral("upstream %1 went away: %2").arg(m_spec.name, why)});
    }
    if (hadTools)
        Q_EMIT toolsChanged();
    if (!m_stopping) {
        m_restart.start(m_backoffMs);
        m_backoffMs = std::min(m_backoffMs * 2, kMaxBackoffMs);
    }
}

void UpstreamLink::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace Countersign
