// An upstream over Streamable HTTP: each message its own POST, at most a bounded number in flight,
// the answer read as JSON or as an event stream, the session id kept. The session over it is in
// upstreamlink.cpp.
#include "upstreamlink.h"

#include "headerchecks.h"
#include "httpexchange.h"
#include "jsonbody.h"
#include "upstreaminternal.h"

#include <QPointer>
#include <QRegularExpression>

namespace Countersign {

using json = nlohmann::json;
using UpstreamInternal::kModern;
using UpstreamInternal::member;

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

} // namespace Countersign
