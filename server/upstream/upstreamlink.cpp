#include "upstreamlink.h"

#include "headerchecks.h"
#include "httpexchange.h"
#include "jsonbody.h"
#include "upstreaminternal.h"

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
using UpstreamInternal::kModern;
using UpstreamInternal::member;

constexpr const char *kLegacy = "2025-11-25";
constexpr int kMaxBackoffMs = 60'000;

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
    startProcess();
    handshake();
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
