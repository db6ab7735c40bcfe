#include "scriptedmodel.h"

#include <QHostAddress>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>

namespace Countersign {

namespace {

// A result that asks to be called again (Countersign's "still waiting", a client's own time-out),
// unless it also says the call was settled.
const QRegularExpression kStillWaiting(
    QStringLiteral(
        R"(again with the same arguments|still required input|timed? ?out|-32001|still (pending|waiting))"),
    QRegularExpression::CaseInsensitiveOption);
const QRegularExpression
    kSettled(QStringLiteral(R"(Declined by|Approval expired|Denied by Countersign|superseded)"),
             QRegularExpression::CaseInsensitiveOption);
constexpr int kMaxCallsPerStep = 6;
constexpr qsizetype kMaxRequestBytes = 64 * 1024 * 1024; // an agent's whole conversation and tools
const char kFinalText[] = "Done: the self-test's steps have finished.";

} // namespace

ScriptedModel::ScriptedModel(QList<Step> steps, QObject *parent) : QObject(parent), m_steps(std::move(steps))
{
}

ScriptedModel::~ScriptedModel() = default;

Result<quint16> ScriptedModel::listen()
{
    m_server = new QTcpServer(this);
    if (!m_server->listen(QHostAddress::LocalHost, 0))
        return failure(
            QStringLiteral("the scripted model cannot listen on 127.0.0.1: %1").arg(m_server->errorString()));
    connect(m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection()) {
            connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
    return m_server->serverPort();
}

void ScriptedModel::restart(QList<Step> steps)
{
    m_steps = std::move(steps);
    m_calls = 0;
    m_requests = 0;
    m_missingStep = -1;
    m_results.clear();
}

QString ScriptedModel::baseUrl() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_server ? m_server->serverPort() : 0);
}

QStringList ScriptedModel::offeredTools() const
{
    QStringList names(m_offered.cbegin(), m_offered.cend());
    names.sort();
    return names;
}

// HTTP/1.1 from the agents on this machine: a head, then a Content-Length or chunked body.
void ScriptedModel::onReadyRead(QTcpSocket *socket)
{
    QByteArray buffer = socket->property("buffer").toByteArray() + socket->readAll();
    while (true) {
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0 || buffer.size() > kMaxRequestBytes)
            break;
        const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        qsizetype length = 0;
        bool chunked = false;
        for (const QByteArray &line : lines.mid(1)) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "content-length")
                length = value.toLongLong();
            else if (name == "transfer-encoding" && value.toLower().contains("chunked"))
                chunked = true;
        }
        QByteArray body;
        qsizetype end = headEnd + 4;
        if (chunked) {
            bool complete = false;
            while (true) {
                const qsizetype lineEnd = buffer.indexOf("\r\n", end);
                if (lineEnd < 0)
                    break;
                const qsizetype size =
                    buffer.mid(end, lineEnd - end).split(';').first().trimmed().toLongLong(nullptr, 16);
                if (buffer.size() < lineEnd + 2 + size + 2)
                    break;
                if (size == 0) {
                    end = lineEnd + 4;
                    complete = true;
                    break;
                }
                body += buffer.mid(lineEnd + 2, size);
                end = lineEnd + 2 + size + 2;
            }
            if (!complete)
                break;
        } else {
            if (buffer.size() < end + length)
                break;
            body = buffer.mid(end, length);
            end += length;
        }
        buffer.remove(0, end);
        respond(socket, requestLine.value(0), requestLine.value(1), body);
    }
    socket->setProperty("buffer", buffer);
}

void ScriptedModel::respond(QTcpSocket *socket, const QByteArray &method, const QByteArray &target,
                            const QByteArray &body)
{
    const ModelWire::Response r =
        ModelWire::answer(method, target, body, [this](const ModelWire::Turn &turn) { return decide(turn); });
    ++m_requests;
    socket->write(QByteArray("HTTP/1.1 ") + QByteArray::number(r.status) +
                  (r.status == 200   ? " OK"
                   : r.status == 404 ? " Not Found"
                                     : " Bad Request") +
                  "\r\nContent-Type: " + r.contentType + "\r\nCache-Control: no-cache\r\nContent-Length: " +
                  QByteArray::number(r.body.size()) + "\r\n\r\n" + r.body);
}

QString ScriptedModel::matchStep(int step, const QStringList &offered) const
{
    const Step &s = m_steps.at(step);
    if (s.server.isEmpty())
        return offered.contains(s.tool) ? s.tool : QString();
    const QRegularExpression named(
        QStringLiteral("(^|[^a-z0-9])%1[^a-z0-9]+%2$")
            .arg(QRegularExpression::escape(s.server), QRegularExpression::escape(s.tool)),
        QRegularExpression::CaseInsensitiveOption);
    for (const QString &name : offered)
        if (named.match(name).hasMatch())
            return name;
    return {};
}

bool ScriptedModel::offersAny(const QStringList &offered) const
{
    for (int i = 0; i < m_steps.size(); ++i)
        if (!matchStep(i, offered).isEmpty())
            return true;
    return false;
}

// The k-th result answers the k-th call: the next call, or the final text.
std::optional<ModelWire::Reply> ScriptedModel::decide(const ModelWire::Turn &turn)
{
    m_offered.unite(QSet<QString>(turn.offered.cbegin(), turn.offered.cend()));
    if (!offersAny(turn.offered))
        return std::nullopt;
    int step = 0;
    int inStep = 0;
    for (qsizetype k = 0; k < turn.results.size(); ++k) {
        const QString &text = turn.results.at(k);
        if (k >= m_results.size())
            m_results.append({step, text});
        if (kStillWaiting.match(text).hasMatch() && !kSettled.match(text).hasMatch()) {
            ++inStep;
        } else {
            ++step;
            inStep = 0;
        }
    }
    ModelWire::Reply reply;
    reply.text = QString::fromLatin1(kFinalText);
    if (step >= m_steps.size() || inStep >= kMaxCallsPerStep)
        return reply;
    const QString name = matchStep(step, turn.offered);
    if (name.isEmpty()) {
        // A deferred MCP tool (Codex hides them behind its tool search): search for it first.
        if (turn.canSearch && !turn.searched && !m_steps.at(step).server.isEmpty()) {
            reply.kind = ModelWire::Reply::Kind::Search;
            reply.text = m_steps.at(step).server + QLatin1Char(' ') + m_steps.at(step).tool;
            return reply;
        }
        m_missingStep = step;
        return reply;
    }
    reply.kind = ModelWire::Reply::Kind::Call;
    reply.name = name;
    reply.args = m_steps.at(step).args;
    m_calls = std::max(m_calls, int(turn.results.size()) + 1);
    return reply;
}

} // namespace Countersign
