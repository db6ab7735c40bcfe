#pragma once

#include "actionspec.h"
#include "otlpspec.h"
#include "policy.h"
#include "result.h"
#include "upstreamspec.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <string>

namespace Countersign {

// The effective configuration. Built only by parse()/load(), which refuse a bad file with its
// name, line and reason; the caller keeps its previous Config in that case.
class Config final
{
public:
    static constexpr quint16 kDefaultPort = 7331;

    Config() = default;

    // Text is JSON; // and /* */ comments are allowed. fileName only labels errors.
    static Result<Config> parse(const QByteArray &text, const QString &fileName);
    // A missing file gives the defaults; an unreadable or bad one is an error.
    static Result<Config> load(const QString &path);
    // "127.0.0.1:PORT" or "localhost:PORT" (PORT 0 picks a free port); anything else is refused,
    // since the server must never listen beyond the loopback interface.
    static Result<std::pair<QString, quint16>> parseListen(const QString &text);

    QString listenHost() const { return m_listenHost; }
    quint16 listenPort() const { return m_listenPort; }
    int ttlSeconds() const { return m_ttlSeconds; }
    int pollWindowSeconds() const { return m_pollWindowSeconds; }
    // How long a 2025-era client's gated call waits for the human before "still pending".
    int legacyHoldSeconds() const { return m_legacyHoldSeconds; }
    // How long a 2025-era call that gets progress notifications is held (every measured client
    // that sends a progress token waited 240 s on its request; Gemini CLI and Qwen Code time a
    // request out at 10 minutes and stop a run at their 5th identical call).
    int progressHoldSeconds() const { return m_progressHoldSeconds; }
    // How long an agent's own tool call is held for the human before its hook is answered "still
    // waiting" (under the clients' hook timeouts, which let a call through: the setup writes 600 s).
    int hookHoldSeconds() const { return m_hookHoldSeconds; }
    // "Approve from my phone" (key "phone", "HOST:PORT"): the phone listener's address, a LAN
    // address of this machine; empty host while it is off (the default).
    QString phoneHost() const { return m_phoneHost; }
    quint16 phonePort() const { return m_phonePort; }
    // HOST:PORT of the phone listener: an IPv4 or IPv6 address, or a host name, and a port from 1.
    static Result<std::pair<QString, quint16>> parsePhoneListen(const QString &text);
    // "mode": what the agents' own tools may do with no card when no rule decides.
    GateMode mode() const { return m_mode; }
    // "undoMegabytes" and "undoDays": how much of what agents' changes overwrote is kept for an
    // undo, and for how long (the snapshot store drops the oldest first past either).
    int undoMegabytes() const { return m_undoMegabytes; }
    int undoDays() const { return m_undoDays; }
    // "undoKeepHours": a kept copy younger than this is never dropped to make room; a quiet call
    // asks instead while the store is full of them (0: no such promise).
    int undoKeepHours() const { return m_undoKeepHours; }
    // How long a card must have been on screen before Approve is accepted (0 to 30, decimals allowed).
    double cardMinimumSeconds() const { return m_cardMinimumSeconds; }
    // A card no one has seen this long after it came is said again, with a sound (0: never).
    int cardUnseenSeconds() const { return m_cardUnseenSeconds; }
    // How long a card waits for a human who has not seen it yet: ttlSeconds count from when it is
    // first seen (the window active with the card on it, or a paired phone's page showing it), up
    // to this after it was made (when longer than ttlSeconds). 0: ttlSeconds count from when the
    // card was made, seen or not.
    int cardUnseenLimitSeconds() const { return m_cardUnseenLimitSeconds; }
    // Where a card that waits unseen is told, with no card content (CardNotifier); empty: nowhere.
    QUrl notifyUrl() const { return m_notifyUrl; }
    QStringList workspaceRoots() const { return m_workspaceRoots; }
    // Serves the conformance suite's fixture tools; only test configurations set it.
    const QList<ActionSpec> &actions() const { return m_actions; }
    const Policy &policy() const { return m_policy; }
    // The MCP servers behind the gate ("upstreams"), names and tool prefixes unique.
    const QList<UpstreamSpec> &upstreams() const { return m_upstreams; }
    // "keychain" (default: the OS keychain, a key file if it does not answer) or "file".
    bool keysInFile() const { return m_keysInFile; }
    // "person": who decides at this console, as decisions and receipts name them ("console:NAME");
    // empty for the OS account's login name (default). Read at start.
    QString person() const { return m_person; }
    // person(), or the OS account's login name when none is configured.
    QString personOrLogin() const;
    static QString osLogin();
    // "instance": this instance among a team's sharing a store, as the audit log names it; the
    // host name when none is configured. Read at start.
    QString instanceName() const;
    // "store": {"postgres": URL}: the shared PostgreSQL store; empty for the SQLite file (default).
    QString postgresUrl() const { return m_postgresUrl; }
    // Where the store is: the PostgreSQL URL, or countersign.db in the data folder. Read at start.
    QString storeLocation(const QString &dataDir) const;
    // "otlp": where each gated call is exported as a span; off (isEnabled() false) by default.
    // Read at start.
    const OtlpSpec &otlp() const { return m_otlp; }
    QString sourcePath() const { return m_sourcePath; }
    // The text it was parsed from (empty for the defaults): what the audit log keeps of a policy.
    QByteArray sourceText() const { return m_sourceText; }

    void overrideListen(const QString &host, quint16 port);

private:
    // parse() reads each top-level setting with readSetting(), which hands a group of related
    // settings to its own reader. Each stores its key's value in this Config, or refuses it with an
    // error naming fileName and the key's line in text.
    Status readSetting(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                       const QString &fileName);
    // "listen" and "phone".
    Status readAddress(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                       const QString &fileName);
    // The timeouts and holds in seconds, and "cardMinimumSeconds".
    Status readTimes(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                     const QString &fileName);
    // "undoMegabytes", "undoDays" and "undoKeepHours".
    Status readUndo(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                    const QString &fileName);
    Status readActions(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                       const QString &fileName);
    Status readUpstreams(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                         const QString &fileName);
    // "person" and "instance".
    Status readName(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                    const QString &fileName);
    Status readStore(const std::string &key, const nlohmann::json &value, const QByteArray &text,
                     const QString &fileName);

    QString m_listenHost = QStringLiteral("127.0.0.1");
    quint16 m_listenPort = kDefaultPort;
    int m_ttlSeconds = 300;
    int m_pollWindowSeconds = 20;
    int m_legacyHoldSeconds = 50;
    int m_progressHoldSeconds = 240;
    int m_hookHoldSeconds = 570;
    QString m_phoneHost;
    quint16 m_phonePort = 0;
    int m_undoMegabytes = 512;
    int m_undoDays = 14;
    int m_undoKeepHours = 24;
    GateMode m_mode = GateMode::Standard;
    double m_cardMinimumSeconds = 1.0;
    int m_cardUnseenSeconds = 60;
    int m_cardUnseenLimitSeconds = 3600;
    QUrl m_notifyUrl;
    QStringList m_workspaceRoots;
    QList<ActionSpec> m_actions;
    QList<UpstreamSpec> m_upstreams;
    Policy m_policy;
    bool m_keysInFile = false;
    QString m_postgresUrl;
    QString m_person;
    QString m_instance;
    OtlpSpec m_otlp;
    QString m_sourcePath;
    QByteArray m_sourceText;
};

} // namespace Countersign
