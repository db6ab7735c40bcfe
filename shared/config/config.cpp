#include "config.h"

#include "filepath.h"
#include "postgresurl.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSysInfo>

#include <algorithm>

#include <pwd.h>
#include <unistd.h>

namespace Countersign {

namespace {

using json = nlohmann::json;

// nlohmann reports a byte offset; people read lines.
int lineOfOffset(const QByteArray &text, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, text.size());
    return 1 + static_cast<int>(std::count(text.cbegin(), text.cbegin() + offset, '\n'));
}

// The line where a top-level key is written, found by a plain scan (good enough to point a human).
int lineOfKey(const QByteArray &text, const std::string &key)
{
    const QByteArray needle = QByteArray("\"") + QByteArray::fromStdString(key) + "\"";
    const qsizetype at = text.indexOf(needle);
    return at < 0 ? 1 : lineOfOffset(text, at);
}

Error fieldError(const QString &file, const QByteArray &text, const std::string &key, const QString &reason)
{
    return failure(QStringLiteral("%1:%2: %3: %4")
                       .arg(file)
                       .arg(lineOfKey(text, key))
                       .arg(QString::fromStdString(key), reason));
}

// The error for a text nlohmann refused, with the line where it broke when nlohmann can say.
Error invalidJson(const QByteArray &text, const QString &fileName)
{
    // Re-run with exceptions to learn where it broke; the exception stays inside this function.
    try {
        const json again = json::parse(text.cbegin(), text.cend(), nullptr, true, true);
        Q_UNUSED(again)
    } catch (const json::parse_error &e) {
        return failure(QStringLiteral("%1:%2: invalid JSON: %3")
                           .arg(fileName)
                           .arg(lineOfOffset(text, static_cast<qsizetype>(e.byte) - 1))
                           .arg(QString::fromUtf8(e.what())));
    } catch (const json::exception &e) {
        // A number too large for a double (found by fuzz_config) is out_of_range, not parse_error.
        return failure(QStringLiteral("%1: invalid JSON: %2").arg(fileName, QString::fromUtf8(e.what())));
    }
    return failure(QStringLiteral("%1: invalid JSON").arg(fileName));
}

} // namespace

Result<std::pair<QString, quint16>> Config::parseListen(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return failure(QStringLiteral("listen address \"%1\" must be HOST:PORT").arg(text));
    const QString host = text.left(colon);
    bool okPort = false;
    const uint port = text.mid(colon + 1).toUInt(&okPort);
    if (!okPort || port > 65535)
        return failure(QStringLiteral("listen address \"%1\" has an invalid port").arg(text));
    if (host != QLatin1String("127.0.0.1") && host != QLatin1String("localhost"))
        return failure(
            QStringLiteral("listen address \"%1\" is not on 127.0.0.1: Countersign only listens on the "
                           "loopback interface")
                .arg(text));
    return std::pair{QStringLiteral("127.0.0.1"), static_cast<quint16>(port)};
}

Result<std::pair<QString, quint16>> Config::parsePhoneListen(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    QString host = text.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool okPort = false;
    const uint port = text.mid(colon + 1).toUInt(&okPort);
    // An IPv4 or IPv6 address: a host name could stand for every interface (a name QTcpServer cannot
    // read binds 0.0.0.0), or for another machine tomorrow.
    static const QRegularExpression v4(
        QStringLiteral(R"(^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$)"));
    static const QRegularExpression v6(QStringLiteral(R"(^[0-9A-Fa-f:.]{2,45}$)"));
    if (colon <= 0 || !okPort || port < 1 || port > 65535)
        return failure(
            QStringLiteral("the phone's address \"%1\" must be HOST:PORT, with a port from 1 to 65535")
                .arg(text));
    const bool isV6 = host.contains(QLatin1Char(':'));
    if (!(isV6 ? v6 : v4).match(host).hasMatch())
        return failure(
            QStringLiteral("the phone's address \"%1\" must be an IP address of this machine (not a "
                           "name), and a port")
                .arg(text));
    static const QRegularExpression anyV6(QStringLiteral(R"(^[0:]+$)"));
    if (host == QLatin1String("0.0.0.0") || (isV6 && anyV6.match(host).hasMatch()))
        return failure(QStringLiteral("the phone's address \"%1\" would listen on every interface: name the "
                                      "one your phone reaches this machine on")
                           .arg(text));
    return std::pair{host, static_cast<quint16>(port)};
}

Result<Config> Config::parse(const QByteArray &text, const QString &fileName)
{
    const json doc = json::parse(text.cbegin(), text.cend(), nullptr, false, true);
    if (doc.is_discarded())
        return invalidJson(text, fileName);
    if (!doc.is_object())
        return failure(QStringLiteral("%1:1: the configuration must be a JSON object").arg(fileName));

    Config config;
    config.m_sourcePath = fileName;
    config.m_sourceText = text;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        if (Status read = config.readSetting(it.key(), it.value(), text, fileName); !read)
            return failure(read.error());
    }
    auto policy = Policy::fromJson(doc.value("rules", json()), doc.value("approval", json()),
                                   doc.value("review", json()));
    if (!policy) {
        const std::string where = policy.error().startsWith(QLatin1String("approval")) ? "approval"
                                  : policy.error().startsWith(QLatin1String("review")) ? "review"
                                                                                       : "rules";
        return failure(
            QStringLiteral("%1:%2: %3").arg(fileName).arg(lineOfKey(text, where)).arg(policy.error()));
    }
    config.m_policy = std::move(policy).value();
    // The promise cannot outlast the copies: a copy past undoDays goes whatever its age promised.
    if (config.m_undoKeepHours > config.m_undoDays * 24)
        return fieldError(fileName, text, "undoKeepHours",
                          QStringLiteral("must be at most undoDays × 24 (%1): a copy older than undoDays is "
                                         "dropped whatever undoKeepHours promised")
                              .arg(config.m_undoDays * 24));
    return config;
}

Status Config::readSetting(const std::string &key, const json &value, const QByteArray &text,
                           const QString &fileName)
{
    if (key == "listen" || key == "phone") {
        return readAddress(key, value, text, fileName);
    } else if (key == "ttlSeconds" || key == "pollWindowSeconds" || key == "legacyHoldSeconds" ||
               key == "progressHoldSeconds" || key == "hookHoldSeconds" || key == "cardMinimumSeconds" ||
               key == "cardUnseenSeconds" || key == "cardUnseenLimitSeconds") {
        return readTimes(key, value, text, fileName);
    } else if (key == "undoMegabytes" || key == "undoDays" || key == "undoKeepHours") {
        return readUndo(key, value, text, fileName);
    } else if (key == "mode") {
        const auto mode = value.is_string() ? parseGateMode(QString::fromStdString(value.get<std::string>()))
                                            : std::nullopt;
        if (!mode)
            return fieldError(fileName, text, key, QStringLiteral("must be \"standard\" or \"strict\""));
        m_mode = *mode;
    } else if (key == "workspaceRoots") {
        if (!value.is_array())
            return fieldError(fileName, text, key, QStringLiteral("must be an array of absolute paths"));
        for (const json &root : value) {
            if (!root.is_string() || !FilePath::isAbsolute(QString::fromStdString(root.get<std::string>())))
                return fieldError(fileName, text, key, QStringLiteral("every root must be an absolute path"));
            m_workspaceRoots.append(QString::fromStdString(root.get<std::string>()));
        }
    } else if (key == "actions") {
        return readActions(key, value, text, fileName);
    } else if (key == "upstreams") {
        return readUpstreams(key, value, text, fileName);
    } else if (key == "rules" || key == "approval" || key == "review") {
        return success(); // parsed together in parse(), after every other setting
    } else if (key == "keyStore") {
        if (value != "keychain" && value != "file")
            return fieldError(fileName, text, key, QStringLiteral("must be \"keychain\" or \"file\""));
        m_keysInFile = value == "file";
    } else if (key == "person" || key == "instance") {
        return readName(key, value, text, fileName);
    } else if (key == "store") {
        return readStore(key, value, text, fileName);
    } else if (key == "otlp") {
        auto otlp = OtlpSpec::fromJson(value);
        if (!otlp)
            return failure(
                QStringLiteral("%1:%2: %3").arg(fileName).arg(lineOfKey(text, key)).arg(otlp.error()));
        m_otlp = std::move(otlp).value();
    } else if (key == "notifyUrl") {
        const QUrl url(value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString(),
                       QUrl::StrictMode);
        if (!url.isValid() ||
            (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")) ||
            url.host().isEmpty() || !url.userInfo().isEmpty())
            return fieldError(
                fileName, text, key,
                QStringLiteral("must be an http or https URL with a host and no user or password "
                               "(a self-hosted ntfy topic, for one)"));
        m_notifyUrl = url;
    } else if (key == "$schema") {
        return success();
    } else {
        return fieldError(fileName, text, key, QStringLiteral("unknown setting"));
    }
    return success();
}

Status Config::readAddress(const std::string &key, const json &value, const QByteArray &text,
                           const QString &fileName)
{
    if (key == "listen") {
        if (!value.is_string())
            return fieldError(fileName, text, key,
                              QStringLiteral("must be a string like \"127.0.0.1:7331\""));
        auto listen = parseListen(QString::fromStdString(value.get<std::string>()));
        if (!listen)
            return fieldError(fileName, text, key, listen.error());
        m_listenHost = listen.value().first;
        m_listenPort = listen.value().second;
    } else { // phone
        if (!value.is_string())
            return fieldError(fileName, text, key,
                              QStringLiteral("must be a string like \"192.168.1.20:8443\" (or \"\": off)"));
        const QString phone = QString::fromStdString(value.get<std::string>());
        if (!phone.isEmpty()) {
            auto listen = parsePhoneListen(phone);
            if (!listen)
                return fieldError(fileName, text, key, listen.error());
            m_phoneHost = listen.value().first;
            m_phonePort = listen.value().second;
        }
    }
    return success();
}

Status Config::readTimes(const std::string &key, const json &value, const QByteArray &text,
                         const QString &fileName)
{
    if (key == "ttlSeconds" || key == "pollWindowSeconds") {
        const int max = key == "ttlSeconds" ? 86400 : 300;
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > max)
            return fieldError(fileName, text, key,
                              QStringLiteral("must be an integer from 1 to %1").arg(max));
        (key == "ttlSeconds" ? m_ttlSeconds : m_pollWindowSeconds) = value.get<int>();
    } else if (key == "legacyHoldSeconds" || key == "progressHoldSeconds") {
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 600)
            return fieldError(fileName, text, key, QStringLiteral("must be an integer from 1 to 600"));
        (key == "legacyHoldSeconds" ? m_legacyHoldSeconds : m_progressHoldSeconds) = value.get<int>();
    } else if (key == "hookHoldSeconds") {
        // Under the 600 s `hooks install` gives the clients' hooks: a client that times its hook
        // out first runs the tool (Codex, Gemini CLI, Qwen Code).
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 570)
            return fieldError(fileName, text, key,
                              QStringLiteral("must be an integer from 1 to 570 (the clients' hook timeouts "
                                             "are 600 s, and a client that times out runs the tool)"));
        m_hookHoldSeconds = value.get<int>();
    } else if (key == "cardUnseenSeconds") {
        if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 3600)
            return fieldError(fileName, text, key,
                              QStringLiteral("must be an integer from 0 (never) to 3600 seconds"));
        m_cardUnseenSeconds = value.get<int>();
    } else if (key == "cardUnseenLimitSeconds") {
        if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 86400)
            return fieldError(
                fileName, text, key,
                QStringLiteral("must be an integer from 0 (ttlSeconds count from when a card is "
                               "made) to 86400 seconds"));
        m_cardUnseenLimitSeconds = value.get<int>();
    } else { // cardMinimumSeconds
        if (!value.is_number() || value.get<double>() < 0.0 || value.get<double>() > 30.0)
            return fieldError(fileName, text, key,
                              QStringLiteral("must be a number of seconds from 0 to 30"));
        m_cardMinimumSeconds = value.get<double>();
    }
    return success();
}

Status Config::readUndo(const std::string &key, const json &value, const QByteArray &text,
                        const QString &fileName)
{
    if (key == "undoMegabytes" || key == "undoDays") {
        const int max = key == "undoMegabytes" ? 65536 : 365;
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > max)
            return fieldError(fileName, text, key,
                              QStringLiteral("must be an integer from 1 to %1").arg(max));
        (key == "undoMegabytes" ? m_undoMegabytes : m_undoDays) = value.get<int>();
    } else { // undoKeepHours
        if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 720)
            return fieldError(fileName, text, key, QStringLiteral("must be an integer from 0 to 720"));
        m_undoKeepHours = value.get<int>();
    }
    return success();
}

Status Config::readActions(const std::string &key, const json &value, const QByteArray &text,
                           const QString &fileName)
{
    if (!value.is_array())
        return fieldError(fileName, text, key, QStringLiteral("must be an array of actions"));
    for (size_t i = 0; i < value.size(); ++i) {
        auto action = ActionSpec::fromJson(value[i], QStringLiteral("actions[%1]").arg(i));
        if (!action) {
            const std::string anchor = value[i].is_object() && value[i].value("name", json()).is_string()
                                           ? value[i]["name"].get<std::string>()
                                           : key;
            return failure(
                QStringLiteral("%1:%2: %3").arg(fileName).arg(lineOfKey(text, anchor)).arg(action.error()));
        }
        for (const ActionSpec &other : std::as_const(m_actions)) {
            if (other.name == action.value().name)
                return fieldError(fileName, text, value[i]["name"].get<std::string>(),
                                  QStringLiteral("a second action with this name"));
        }
        m_actions.append(std::move(action).value());
    }
    return success();
}

Status Config::readUpstreams(const std::string &key, const json &value, const QByteArray &text,
                             const QString &fileName)
{
    if (!value.is_array())
        return fieldError(fileName, text, key, QStringLiteral("must be an array of MCP servers"));
    for (size_t i = 0; i < value.size(); ++i) {
        auto upstream = UpstreamSpec::fromJson(value[i], QStringLiteral("upstreams[%1]").arg(i));
        if (!upstream)
            return failure(
                QStringLiteral("%1:%2: %3").arg(fileName).arg(lineOfKey(text, key)).arg(upstream.error()));
        for (const UpstreamSpec &other : std::as_const(m_upstreams)) {
            if (other.name == upstream.value().name)
                return fieldError(fileName, text, key,
                                  QStringLiteral("a second upstream named %1").arg(other.name));
            // One prefix starting another would let one upstream serve names that read as
            // the other's ("gh_" + "ent_secret" and "gh_ent_" + "secret").
            const QString &a = other.prefix, &b = upstream.value().prefix;
            if (a.startsWith(b) || b.startsWith(a))
                return fieldError(fileName, text, key,
                                  QStringLiteral("upstreams %1 and %2 have tool prefixes \"%3\" and \"%4\": "
                                                 "neither may start the other")
                                      .arg(other.name, upstream.value().name, a, b));
        }
        m_upstreams.append(std::move(upstream).value());
    }
    return success();
}

Status Config::readName(const std::string &key, const json &value, const QByteArray &text,
                        const QString &fileName)
{
    const QString name =
        value.is_string() ? QString::fromStdString(value.get<std::string>()).trimmed() : QString();
    const bool printable = std::all_of(name.cbegin(), name.cend(), [](QChar c) { return c.isPrint(); });
    if (name.isEmpty() || name.size() > 64 || !printable)
        return fieldError(fileName, text, key,
                          key == "person"
                              ? QStringLiteral("must be a name of 1 to 64 printable characters (who "
                                               "decides at this console; the OS account by default)")
                              : QStringLiteral("must be a name of 1 to 64 printable characters (this "
                                               "instance among a team's; the host name by default)"));
    (key == "person" ? m_person : m_instance) = name;
    return success();
}

Status Config::readStore(const std::string &key, const json &value, const QByteArray &text,
                         const QString &fileName)
{
    if (!value.is_object())
        return fieldError(fileName, text, key,
                          QStringLiteral("must be an object: {\"postgres\": \"postgresql://...\"}"));
    for (const auto &[storeKey, storeValue] : value.items()) {
        if (storeKey != "postgres")
            return fieldError(fileName, text, storeKey,
                              QStringLiteral("store takes only \"postgres\" (the default store is "
                                             "countersign.db in the data folder)"));
        const QString url =
            storeValue.is_string() ? QString::fromStdString(storeValue.get<std::string>()) : QString();
        // The store's own parser: what is accepted here is what the store opens. Its reason
        // shows no password and no text that is not a URL.
        if (auto parsed = PostgresUrl::parse(url); !parsed)
            return fieldError(fileName, text, storeKey,
                              QStringLiteral("must be a URL postgresql://user@host:port/database (a password "
                                             "may come from ~/.pgpass or PGPASSWORD instead): %1")
                                  .arg(parsed.error()));
        m_postgresUrl = url;
    }
    return success();
}

Result<Config> Config::load(const QString &path)
{
    QFile file(path);
    if (!file.exists()) {
        Config defaults;
        defaults.m_sourcePath = path;
        return defaults;
    }
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("%1: cannot read: %2").arg(path, file.errorString()));
    if (file.size() > 4 * 1024 * 1024)
        return failure(QStringLiteral("%1: larger than 4 MiB, refused").arg(path));
    return parse(file.readAll(), path);
}

QString Config::storeLocation(const QString &dataDir) const
{
    return m_postgresUrl.isEmpty() ? QDir(dataDir).filePath(QStringLiteral("countersign.db")) : m_postgresUrl;
}

QString Config::osLogin()
{
    // The account, not $USER: a desktop session or service manager may start the app without it.
    QString user;
    if (const passwd *account = ::getpwuid(::getuid()); account && account->pw_name)
        user = QString::fromLocal8Bit(account->pw_name);
    if (user.isEmpty())
        user = qEnvironmentVariable("USER", QStringLiteral("uid-%1").arg(::getuid()));
    return user;
}

QString Config::personOrLogin() const
{
    return m_person.isEmpty() ? osLogin() : m_person;
}

QString Config::instanceName() const
{
    return m_instance.isEmpty() ? QSysInfo::machineHostName() : m_instance;
}

void Config::overrideListen(const QString &host, quint16 port)
{
    m_listenHost = host;
    m_listenPort = port;
}

} // namespace Countersign
