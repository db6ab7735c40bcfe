#pragma once

#include "modelwire.h"
#include "result.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <nlohmann/json.hpp>

class QTcpServer;
class QTcpSocket;

namespace Countersign {

// The model `countersign selftest` runs an agent against: a small HTTP server on 127.0.0.1 (a port
// of its own) that answers the agent's model API in its own wire format (ModelWire) and makes it
// call the script's tools in order. No model, no network: the script is the model.
//
// A request that offers the current step's tool gets a call to it; once the conversation carries
// the call's result back (the k-th result answers the k-th call), the next step, and after the last a
// final text. A result that says the call is still waiting is called again, a few times at most. The
// answer is decided from the conversation the request carries, so a client that repeats a request
// gets the same answer.
class ScriptedModel final : public QObject
{
    Q_OBJECT
public:
    struct Step final
    {
        QString tool;   // the agent's own tool, by its exact name; or an MCP tool's name
        QString server; // for an MCP tool: the server's name, which each agent joins to it its own way
        nlohmann::json args;
    };
    struct ToolResult final
    {
        int step = 0;
        QString text; // every string of the result, as a model would read it
    };

    explicit ScriptedModel(QList<Step> steps, QObject *parent = nullptr);
    ~ScriptedModel() override;
    Q_DISABLE_COPY_MOVE(ScriptedModel)

    Result<quint16> listen();
    // A new conversation with these steps, on the same address (what was seen is forgotten).
    void restart(QList<Step> steps);
    // http://127.0.0.1:PORT
    QString baseUrl() const;

    int callCount() const { return m_calls; }
    const QList<ToolResult> &results() const { return m_results; }
    // A step whose tool no request of the conversation offered (-1 while every step's was).
    int missingStep() const { return m_missingStep; }
    // Every tool name a request offered, and the model requests answered.
    QStringList offeredTools() const;
    int requestCount() const { return m_requests; }

private:
    void onReadyRead(QTcpSocket *socket);
    void respond(QTcpSocket *socket, const QByteArray &method, const QByteArray &target,
                 const QByteArray &body);
    QString matchStep(int step, const QStringList &offered) const;
    bool offersAny(const QStringList &offered) const;
    std::optional<ModelWire::Reply> decide(const ModelWire::Turn &turn);

    QList<Step> m_steps;
    QTcpServer *m_server = nullptr;
    int m_calls = 0;
    int m_requests = 0;
    int m_missingStep = -1;
    QList<ToolResult> m_results;
    QSet<QString> m_offered;
};

} // namespace Countersign
