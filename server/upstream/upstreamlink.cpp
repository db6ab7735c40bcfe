#include "upstreamlink.h"

#include "headerchecks.h"
#include "httpexchange.h"
#include "jsonbody.h"

#include <QDateTime>
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

// The member key of value when value is an object, else null: what an upstream sends is not
// trusted to have the shape it should (json::value() throws on a wrong type).
const json &member(const json &value, const char *key)
{
    static const json null;
    if (!value.is_object())
        return null;
    const auto it = value.find(key);
    return it == value.end() ? null : *it;
}

QString stringMember(const json &value, const char *key)
{
    const json &m = member(value, key);
    return m.is_string() ? QString::fromStdString(m.get<std::string>()) : QString();
}

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
    m_relist.setSingleShot(true);
    m_relist.setInterval(500);
    connect(&m_relist, &QTimer::timeout, this, [this] {
        if (m_state != State::Ready)
            return;
        if (m_relisting)
            return m_relist.start(); // the last one is still on its way
        m_relisting = true;
        listTools();
    });
}

UpstreamLink::~UpstreamLink()
{
    m_stopping = true;
    m_restart.stop();
    ++m_generation; // the handshake's callbacks answered below must not act on this link any more
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
        m_process = nullptr; // a child: deleted with the link
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
    ++m_generation;
    if (!m_spec.isStdio()) {
        // Nothing to start: each message is its own POST; the handshake finds out the era.
        m_sessionId.clear();
        setState(State::Starting);
        qCInfo(lcUpstream) << "connecting to upstream" << m_spec.name << m_spec.url;
        handshake();
        return;
    }
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
        // Depth-limited: a deeply nested line would otherwise exhaust the stack when copied.
        auto parsed = JsonBody::parse(line);
        const json message = parsed ? std::move(parsed).value() : json();
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
    const qint64 second = QDateTime::currentSecsSinceEpoch();
    for (;;) {
        const qsizetype end = m_err.indexOf('\n');
        if (end < 0 && m_err.size() < kMaxErrLineBytes)
            break;
        const qsizetype cut = end < 0 ? kMaxErrLineBytes : end;
        const QByteArray line = m_err.left(cut);
        m_err.remove(0, end < 0 ? cut : cut + 1);
        if (line.trimmed().isEmpty())
            continue;
        if (second != m_errSecond) {
            if (m_errDropped > 0)
                qCWarning(lcUpstream) << "upstream" << m_spec.name << "wrote" << m_errDropped
                                      << "more lines to stderr, not logged";
            m_errSecond = second;
            m_errLines = 0;
            m_errDropped = 0;
        }
        if (++m_errLines > kMaxErrLinesPerSecond) {
            ++m_errDropped;
            continue;
        }
        // Control characters shown as escapes: a line cannot move the cursor or fake another.
        QString shown;
        for (const QChar c : QString::fromUtf8(line)) {
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                shown += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
            else
                shown += c;
        }
        qCInfo(lcUpstream).noquote() << QStringLiteral("[%1] %2").arg(m_spec.name, shown);
    }
}

void UpstreamLink::handle(const json &message)
{
    const auto method = message.find("method");
    if (method != message.end() && method->is_string()) {
        if (message.contains("id"))
            return answerServerRequest(message);
        // Listed again at most twice a second, however often the upstream says its list changed.
        if (*method == "notifications/tools/list_changed" && m_state == State::Ready && !m_relist.isActive())
            m_relist.start();
        return; // other notifications (progress, log messages) are not relayed
    }
    const auto id = message.find("id");
    if (id == message.end() || !id->is_number_integer())
        return;
    if (const auto error = message.find("error"); error != message.end()) {
        const QString text = error->is_object() && error->value("message", json()).is_string()
                                 ? QString::fromStdString((*error)["message"].get<std::string>())
                                 : QStringLiteral("an error without a message");
        return settle(id->get<qint64>(), {Outcome::Kind::Refused, *error, text});
    }
    const auto result = message.find("result");
    if (result == message.end() || !result->is_object())
        return settle(id->get<qint64>(),
                      {Outcome::Kind::Lost, json(), QStringLiteral("the upstream's answer had no result")});
    settle(id->get<qint64>(), {Outcome::Kind::Answered, *result, QString()});
}

void UpstreamLink::settle(qint64 id, const Outcome &outcome)
{
    const auto found = m_pending.find(id);
    if (found == m_pending.end())
        return; // late: its caller was answered already (timed out)
    const Pending pending = found.value();
    m_pending.erase(found);
    delete pending.timer;
    pending.reply(outcome);
}

void UpstreamLink::answerServerRequest(const json &message)
{
    // Over HTTP answers would be new POSTs, and each answer's body could ask for more: none are sent.
    if (!m_spec.isStdio())
        return;
    if (m_process && m_process->bytesToWrite() > kMaxUnwritten)
        return fail(QStringLiteral("the upstream sends requests and does not read the answers"));
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
    if (!m_spec.isStdio())
        return post(message);
    if (!m_process)
        return;
    QByteArray line = QByteArray::fromStdString(message.dump(-1, ' ', false, json::error_handler_t::replace));
    line.append('\n');
    m_process->write(line);
}

void UpstreamLink::post(const json &message)
{
    const json id = message.contains("method") ? message.value("id", json()) : json();
    const bool isRequest = id.is_number_integer();
    if (m_exchanges.size() >= kMaxInFlight) {
        if (isRequest)
            settle(id.get<qint64>(), {Outcome::Kind::NotSent, json(),
                                      QStringLiteral("upstream %1 has %2 calls in flight already")
                                          .arg(m_spec.name)
                                          .arg(kMaxInFlight)});
        return;
    }
    QList<QPair<QByteArray, QByteArray>> headers{{"Content-Type", "application/json"},
                                                 {"Accept", "application/json, text/event-stream"}};
    for (const auto &[name, value] : m_spec.headers)
        headers.append({name, value});
    const std::string method = message.value("method", std::string());
    // Modern headers go with every message that claims the 2026-07-28 envelope (the discover probe too).
    const bool modern =
        member(member(message, "params"), "_meta").contains("io.modelcontextprotocol/protocolVersion");
    if (modern) {
        headers.append({QByteArray("MCP-Protocol-Version"), QByteArray(kModern)});
        if (!method.empty())
            headers.append({"Mcp-Method", QByteArray::fromStdString(method)});
        const json &params = member(message, "params");
        const char *nameKey = method == "resources/read" ? "uri" : "name";
        if ((method == "tools/call" || method == "prompts/get" || method == "resources/read") &&
            member(params, nameKey).is_string())
            headers.append({"Mcp-Name", HeaderChecks::encodeValue(
                                            QString::fromStdString(params[nameKey].get<std::string>()))});
    } else if (!m_version.isEmpty()) {
        headers.append({"MCP-Protocol-Version", m_version.toLatin1()});
    }
    if (!m_sessionId.isEmpty())
        headers.append({"Mcp-Session-Id", m_sessionId});
    // One connection per message, written once: a POST is never sent a second time.
    auto *exchange = new HttpExchange(
        QUrl(m_spec.url), headers,
        QByteArray::fromStdString(message.dump(-1, ' ', false, json::error_handler_t::replace)),
        kMaxLineBytes, m_spec.timeoutSeconds * 1000 + 5000, this);
    const qint64 key = isRequest ? id.get<qint64>() : -(m_nextId++); // notifications: a key of their own
    m_exchanges.insert(key, exchange);
    const quint64 generation = m_generation;
    connect(exchange, &HttpExchange::head, this,
            [this, generation, method](int status, const QHash<QByteArray, QByteArray> &answerHeaders) {
                const QByteArray session = answerHeaders.value("mcp-session-id");
                static const QRegularExpression visible(QStringLiteral("^[\\x21-\\x7e]{1,256}$"));
                if (generation == m_generation && method == "initialize" && status == 200 &&
                    visible.match(QString::fromLatin1(session)).hasMatch())
                    m_sessionId = session;
            });
    connect(
        exchange, &HttpExchange::message, this, [this, generation, key, exchange](const QByteArray &data) {
            if (generation != m_generation)
                return;
            auto parsed = JsonBody::parse(data);
            if (!parsed || !(parsed.value().is_object() || parsed.value().is_array())) {
                qCWarning(lcUpstream)
                    << "upstream" << m_spec.name << "answered with something that is not a JSON-RPC message:"
                    << (parsed ? QStringLiteral("neither an object nor a batch") : parsed.error());
                return;
            }
            // One message, or a batch of them (2025-03-26 servers); at most kMaxMessagesPerAnswer in all.
            const json messages =
                parsed.value().is_array() ? std::move(parsed).value() : json::array({parsed.value()});
            for (const json &m : messages) {
                if (++m_messagesOf[key] > kMaxMessagesPerAnswer)
                    return exchange->abort(
                        QStringLiteral("more than %1 messages in one answer").arg(kMaxMessagesPerAnswer));
                if (m.is_object())
                    handle(m);
                if (generation != m_generation)
                    return;
            }
            // Its answer is in: an event stream the server keeps open is of no further use.
            if (key >= 0 && !m_pending.contains(key))
                exchange->abort(QString());
        });
    connect(exchange, &HttpExchange::finished, this,
            [this, generation, key, method](const HttpExchange::Ending &ending) {
                if (generation != m_generation)
                    return; // the link was reset meanwhile: its requests were answered then
                m_exchanges.remove(key);
                m_messagesOf.remove(key);
                if (key < 0 || !m_pending.contains(key))
                    return; // a notification, or answered by the body
                if (!ending.connected)
                    return settle(
                        key,
                        {Outcome::Kind::NotSent, json(),
                         QStringLiteral("upstream %1 cannot be reached: %2").arg(m_spec.name, ending.error)});
                if (ending.status == 404 && !m_sessionId.isEmpty() && method != "initialize") {
                    // The server forgot the session: nothing of this request ran; connect anew.
                    settle(key, {Outcome::Kind::NotSent, json(),
                                 QStringLiteral("upstream %1 ended its session").arg(m_spec.name)});
                    return fail(QStringLiteral("the upstream ended its session"));
                }
                if (ending.status >= 400 && ending.status < 500)
                    return settle(
                        key,
                        {Outcome::Kind::Refused, json(),
                         QStringLiteral("HTTP %1 from upstream %2").arg(ending.status).arg(m_spec.name)});
                settle(key, {Outcome::Kind::Lost, json(),
                             ending.status
                                 ? QStringLiteral("upstream %1 answered HTTP %2 without a JSON-RPC answer%3")
                                       .arg(m_spec.name)
                                       .arg(ending.status)
                                       .arg(ending.error.isEmpty()
                                                ? QString()
                                                : QStringLiteral(" (") + ending.error + QLatin1Char(')'))
                                 : QStringLiteral("upstream %1: %2").arg(m_spec.name, ending.error)});
            });
    exchange->start();
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
        // From the event loop, whatever becomes of this link meanwhile: the caller is always answered.
        QTimer::singleShot(0, [reply = std::move(reply), why, name = m_spec.name] {
            reply({Outcome::Kind::NotSent, json(),
                   QStringLiteral("upstream %1 is not running (%2)").arg(name, why)});
        });
        return;
    }
    call(method, std::move(params), timeoutMs, std::move(reply));
}

void UpstreamLink::call(const QString &method, json params, int timeoutMs, Reply reply)
{
    if (m_process && m_process->bytesToWrite() > kMaxUnwritten) {
        const QString why = QStringLiteral("upstream %1 is not reading its input").arg(m_spec.name);
        QTimer::singleShot(0, [reply = std::move(reply), why] {
            reply({Outcome::Kind::NotSent, json(), why});
        });
        return;
    }
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
        if (HttpExchange *exchange = m_exchanges.value(id)) {
            const bool connected = exchange->isConnected();
            exchange->abort(QStringLiteral("timed out")); // never read or run after this answer
            if (!connected)
                return pending.reply({Outcome::Kind::NotSent, json(),
                                      QStringLiteral("upstream %1 could not be reached within %2 s")
                                          .arg(m_spec.name)
                                          .arg(timeoutMs / 1000.0)});
        }
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
    const quint64 generation = m_generation;
    call(QStringLiteral("server/discover"), {{"_meta", envelope()}}, kHandshakeMs,
         [self, generation](const Outcome &outcome) {
             if (!self || self->m_generation != generation)
                 return; // reset meanwhile: the next start handshakes again
             const json &versions = member(outcome.result, "supportedVersions");
             if (outcome.kind == Outcome::Kind::Answered && versions.is_array() &&
                 std::find(versions.begin(), versions.end(), json(kModern)) != versions.end()) {
                 self->m_modern = true;
                 self->m_version = QString::fromLatin1(kModern);
                 self->m_serverName = stringMember(
                     member(member(outcome.result, "_meta"), "io.modelcontextprotocol/serverInfo"), "name");
                 self->m_capabilities = member(outcome.result, "capabilities");
                 return self->listTools();
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
    const quint64 generation = m_generation;
    call(QStringLiteral("initialize"), params, kHandshakeMs, [self, generation](const Outcome &outcome) {
        if (!self || self->m_generation != generation)
            return;
        if (outcome.kind != Outcome::Kind::Answered)
            return self->fail(QStringLiteral("initialize failed: %1").arg(outcome.text));
        const QString version = stringMember(outcome.result, "protocolVersion");
        if (!isKnownLegacy(version))
            return self->fail(
                QStringLiteral("the upstream speaks protocol \"%1\", which Countersign does not")
                    .arg(version));
        self->m_version = version;
        self->m_serverName = stringMember(member(outcome.result, "serverInfo"), "name");
        self->m_capabilities = member(outcome.result, "capabilities");
        self->send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
        self->listTools();
    });
}

void UpstreamLink::listAll(const QString &method, const char *key, const QString &cursor, QList<json> sofar,
                           std::function<void(Result<QList<json>>)> then, int page, qsizetype bytes)
{
    QPointer<UpstreamLink> self(this);
    json params = json::object();
    if (!cursor.isEmpty())
        params["cursor"] = cursor.toStdString();
    const quint64 generation = m_generation;
    call(method, params, kHandshakeMs,
         [self, generation, method, key, sofar, page, bytes,
          then = std::move(then)](const Outcome &outcome) mutable {
             if (!self || self->m_generation != generation)
                 return;
             if (outcome.kind != Outcome::Kind::Answered)
                 return then(failure(QStringLiteral("%1 failed: %2").arg(method, outcome.text)));
             const json &items = member(outcome.result, key);
             if (!items.is_array())
                 return then(failure(
                     QStringLiteral("%1 answered without a %2 array").arg(method, QLatin1String(key))));
             int skipped = 0;
             for (const json &item : items) {
                 if (sofar.size() >= kMaxListItems || bytes >= kMaxListBytes)
                     break;
                 // Each item held to 64 KiB and the list to kMaxListBytes: counts alone would let
                 // pages of large items take gigabytes.
                 const auto size =
                     qsizetype(item.dump(-1, ' ', false, json::error_handler_t::replace).size());
                 if (keeps(key, item) && size <= kMaxListItemBytes) {
                     sofar.append(item);
                     bytes += size;
                 } else {
                     ++skipped;
                 }
             }
             if (skipped > 0)
                 qCWarning(lcUpstream)
                     << "upstream" << self->m_spec.name << method << "listed" << skipped
                     << "items without a plain name, uri or schema, or over 64 KiB: not served";
             const json &next = member(outcome.result, "nextCursor");
             const bool more = next.is_string() && !next.get_ref<const std::string &>().empty();
             if (more && sofar.size() < kMaxListItems && bytes < kMaxListBytes && page < kMaxListPages)
                 return self->listAll(method, key, QString::fromStdString(next.get<std::string>()), sofar,
                                      std::move(then), page + 1, bytes);
             if (more || qsizetype(items.size()) > sofar.size())
                 qCWarning(lcUpstream)
                     << "upstream" << self->m_spec.name << method << "kept the first" << sofar.size()
                     << "items (at most" << kMaxListItems << "items," << kMaxListBytes / (1024 * 1024)
                     << "MiB and" << kMaxListPages << "pages)";
             then(sofar);
         });
}

bool UpstreamLink::keeps(const char *key, const json &item)
{
    // A tool's or prompt's name becomes part of a Countersign name: plain characters only.
    static const QRegularExpression plainName(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    const auto plain = [&item](const char *field) {
        const json &v = member(item, field);
        return v.is_string() && plainName.match(QString::fromStdString(v.get<std::string>())).hasMatch();
    };
    const auto text = [&item](const char *field) {
        const json &v = member(item, field);
        return v.is_string() && !v.get_ref<const std::string &>().empty() &&
               v.get_ref<const std::string &>().size() <= 4096;
    };
    const std::string k = key;
    if (k == "tools")
        return plain("name") && member(item, "inputSchema").is_object();
    if (k == "prompts")
        return plain("name");
    if (k == "resources")
        return text("uri");
    return text("uriTemplate");
}

void UpstreamLink::listTools()
{
    QPointer<UpstreamLink> self(this);
    listAll(QStringLiteral("tools/list"), "tools", QString(), {}, [self](Result<QList<json>> tools) {
        if (!tools)
            return self->fail(tools.error());
        self->m_tools = std::move(tools).value();
        self->m_relisting = false;
        if (self->m_state == State::Ready)
            return Q_EMIT self->toolsChanged(); // listed anew after list_changed
        self->listContent(0);
    });
}

void UpstreamLink::listContent(int step)
{
    // Prompts, resources and resource templates, each when the server declared it; a list that
    // fails leaves that list empty (it is read-only content), not the link down.
    static const struct
    {
        const char *capability;
        const char *method;
        const char *key;
    } kLists[] = {{"prompts", "prompts/list", "prompts"},
                  {"resources", "resources/list", "resources"},
                  {"resources", "resources/templates/list", "resourceTemplates"}};
    if (step == int(std::size(kLists))) {
        m_backoffMs = 500; // a working start: the next failure restarts soon again
        qCInfo(lcUpstream) << "upstream" << m_spec.name << "ready:" << m_serverName << m_version
                           << m_tools.size() << "tools," << m_prompts.size() << "prompts,"
                           << m_resources.size() << "resources";
        setState(State::Ready);
        Q_EMIT toolsChanged();
        return;
    }
    const auto &list = kLists[step];
    QList<json> *target = step == 0 ? &m_prompts : step == 1 ? &m_resources : &m_templates;
    target->clear();
    if (!member(m_capabilities, list.capability).is_object())
        return listContent(step + 1);
    QPointer<UpstreamLink> self(this);
    listAll(QString::fromLatin1(list.method), list.key, QString(), {},
            [self, step, target](Result<QList<json>> items) {
                if (items)
                    *target = std::move(items).value();
                else
                    qCWarning(lcUpstream) << "upstream" << self->m_spec.name << items.error();
                self->listContent(step + 1);
            });
}

void UpstreamLink::fail(const QString &why)
{
    if (!why.isEmpty())
        qCWarning(lcUpstream) << "upstream" << m_spec.name << why;
    ++m_generation; // the handshake's answers still on their way are for the old link
    // HTTP: the POSTs in flight end now (their callers are answered below), never read afterwards.
    const auto exchanges = std::exchange(m_exchanges, {});
    m_messagesOf.clear();
    for (HttpExchange *exchange : exchanges)
        exchange->abort(why);
    m_lastError = why;
    const bool hadTools = !m_tools.isEmpty();
    m_tools.clear();
    m_prompts.clear();
    m_resources.clear();
    m_templates.clear();
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
