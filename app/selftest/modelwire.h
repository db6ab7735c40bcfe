#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>

// The wire formats of the model APIs the agents speak, for the scripted model of `countersign
// selftest` (ScriptedModel): reading what a model request offers and carries back, and writing an
// answer, streamed (server-sent events) or not, as each API does.
//
//   Anthropic Messages        POST .../messages (and /count_tokens)                  Claude Code
//   Gemini                    POST .../models/M:generateContent | :streamGenerateContent
//                             (and :countTokens, :embedContent)                      Gemini CLI
//   OpenAI Responses          POST .../responses                                     Codex
//   OpenAI Chat Completions   POST .../chat/completions        Qwen Code, Copilot CLI, opencode, pi, Cline
//   GET .../models            an empty list
namespace Countersign::ModelWire {

// One model request, as the script sees it.
struct Turn final
{
    QStringList offered;    // the tools it offers, by the agent's names for them
    QList<QString> results; // the text of each tool result its conversation carries, in order
    bool canSearch = false; // it offers a client-side tool search (Codex defers MCP tools behind one)
    bool searched = false;  // its conversation has searched already
};

// The model's answer: a call, a text, or a tool search (text is the query).
struct Reply final
{
    enum class Kind { Call, Text, Search } kind = Kind::Text;
    QString name;
    nlohmann::json args;
    QString text = QStringLiteral("OK.");
};

// The script's answer to a turn; nothing for a request that is not its conversation (a title, a
// summary), which then gets a short text, or the smallest object its JSON schema accepts.
using Decide = std::function<std::optional<Reply>(const Turn &)>;

struct Response final
{
    int status = 200;
    QByteArray contentType = "application/json";
    QByteArray body;
};

// Answers one HTTP request (a body that is not JSON counts as an empty object).
Response answer(const QByteArray &method, const QByteArray &target, const QByteArray &body,
                const Decide &decide);

} // namespace Countersign::ModelWire
