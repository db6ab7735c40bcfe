#pragma once

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QHash>
#include <QList>

#include <functional>
#include <optional>

namespace Countersign {

// What one session asked its client (elicitation/create) and waits to hear. Each question belongs
// to the call that asked it: the call forgets its questions when it is answered, so an answer that
// comes later is refused like one to a question never asked, and nothing outlives the calls that
// wait. Ids are random (they say nothing about other sessions); at most kMaxOpen are open at once.
class ClientQuestions final
{
public:
    static constexpr int kMaxOpen = 16;
    using Answered = std::function<void(std::optional<nlohmann::json> result)>;

    // The request to send for a new question (its id recorded in *keys, the asking call's list),
    // or nothing when kMaxOpen questions are open.
    std::optional<nlohmann::json> ask(const nlohmann::json &params, Answered answered,
                                      QList<QByteArray> *keys);

    enum class Take { NotAResponse, Taken, Unknown };
    // A message from the client: a response to an open question is handed to its asker (the
    // result, or nothing for an error response) and the question closes.
    Take take(const nlohmann::json &message);
    void forget(const QList<QByteArray> &keys);
    bool isEmpty() const { return m_open.isEmpty(); }

    // A JSON-RPC response: an id, exactly one of result and error, no method.
    static bool isResponse(const nlohmann::json &message);

private:
    QHash<QByteArray, Answered> m_open;
};

} // namespace Countersign
