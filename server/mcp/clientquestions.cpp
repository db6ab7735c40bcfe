#include "clientquestions.h"

#include <QRandomGenerator>

namespace Countersign {

namespace {

QByteArray keyOf(const nlohmann::json &id)
{
    return QByteArray::fromStdString(id.dump());
}

} // namespace

bool ClientQuestions::isResponse(const nlohmann::json &message)
{
    return message.is_object() && !message.contains("method") && message.contains("id") &&
           message.contains("result") != message.contains("error");
}

std::optional<nlohmann::json> ClientQuestions::ask(const nlohmann::json &params, Answered answered,
                                                   QList<QByteArray> *keys)
{
    if (m_open.size() >= kMaxOpen)
        return std::nullopt;
    quint64 random[2];
    QRandomGenerator::system()->fillRange(random);
    const nlohmann::json id = "countersign-" + QByteArray::number(random[0], 16).toStdString() +
                              QByteArray::number(random[1], 16).toStdString();
    const QByteArray key = keyOf(id);
    m_open.insert(key, std::move(answered));
    keys->append(key);
    return nlohmann::json{
        {"jsonrpc", "2.0"}, {"id", id}, {"method", "elicitation/create"}, {"params", params}};
}

ClientQuestions::Take ClientQuestions::take(const nlohmann::json &message)
{
    if (!isResponse(message))
        return Take::NotAResponse;
    const Answered answered = m_open.take(keyOf(message.at("id")));
    if (!answered)
        return Take::Unknown;
    const auto result = message.find("result");
    answered(result != message.end() ? std::optional<nlohmann::json>(*result) : std::nullopt);
    return Take::Taken;
}

void ClientQuestions::forget(const QList<QByteArray> &keys)
{
    for (const QByteArray &key : keys)
        m_open.remove(key);
}

} // namespace Countersign
