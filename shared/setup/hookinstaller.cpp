#include "hookinstaller.h"

#include "agentplugins.h"
#include "hookclients.h"
#include "hooksetup.h"
#include "privatefile.h"
#include "tokenstore.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

namespace Countersign {

namespace {

// Key order kept, as the agent's settings file had it.
using OrderedJson = nlohmann::ordered_json;

// The file as JSON (null when it does not exist). A file with comments is refused: writing it back
// would lose them.
Result<OrderedJson> readSettings(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return Result<OrderedJson>(OrderedJson());
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray bytes = file.readAll();
    if (bytes.trimmed().isEmpty())
        return Result<OrderedJson>(OrderedJson());
    OrderedJson parsed =
        OrderedJson::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (!parsed.is_discarded())
        return Result<OrderedJson>(std::move(parsed));
    const OrderedJson lenient =
        OrderedJson::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false, true);
    if (!lenient.is_discarded())
        return failure(QStringLiteral("%1 has comments, which writing it would lose: add the hooks by hand "
                                      "(countersign hooks install CLIENT --setup prints them)")
                           .arg(path));
    return failure(QStringLiteral("%1 is not valid JSON; nothing was changed").arg(path));
}

// A copy beside it first, then the new text in place at once.
Status writeSettings(const QString &path, const OrderedJson &settings, QString *backup)
{
    if (QFile::exists(path)) {
        const QString stem = path + QStringLiteral(".countersign-backup-") +
                             QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        *backup = stem;
        for (int n = 2; QFile::exists(*backup); ++n) // an earlier backup is never overwritten
            *backup = stem + QStringLiteral("-%1").arg(n);
        if (!QFile::copy(path, *backup))
            return failure(QStringLiteral("cannot back %1 up to %2; nothing was changed").arg(path, *backup));
    }
    return writePrivate(path, QByteArray::fromStdString(settings.dump(2)) + '\n');
}

QString tokenFile(const QString &dataDir, const QString &client)
{
    return QDir(dataDir).absoluteFilePath(QStringLiteral("hooks/%1.token").arg(client));
}

Status writeToken(const QString &path, const QString &token)
{
    return writePrivate(path, token.toUtf8() + '\n');
}

Status knownClient(const QString &client)
{
    if (HookSetup::clients().contains(client))
        return success();
    return failure(
        QStringLiteral("the client must be one of %1").arg(HookSetup::clients().join(QLatin1String(", "))));
}

bool isPlugin(const QString &client)
{
    const auto named = hookClientNamed(client.toStdString());
    return named && hookClientSpec(*named).pluginFile;
}

// A plugin file's state: whether it is there and Countersign's; fails when it is someone else's.
Result<bool> pluginInstalled(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return false;
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    if (!AgentPlugins::isOurs(file.read(4096)))
        return failure(QStringLiteral("%1 is not Countersign's plugin; nothing was changed").arg(path));
    return true;
}

QString backupNote(const QString &backup)
{
    return backup.isEmpty() ? QString() : QStringLiteral(" (backup: %1)").arg(backup);
}

} // namespace

HookInstaller::HookInstaller(TokenStore &tokens, Place place) : m_tokens(tokens), m_place(std::move(place)) {}

QString HookInstaller::connectionName(const QString &client)
{
    return client + QStringLiteral("-hooks");
}

QString HookInstaller::displayName(const QString &client)
{
    const auto named = hookClientNamed(client.toStdString());
    if (!named)
        return client;
    const std::string_view title = hookClientSpec(*named).title;
    return QString::fromUtf8(title.data(), qsizetype(title.size()));
}

QString HookInstaller::afterwards(const QString &client)
{
    const auto named = hookClientNamed(client.toStdString());
    if (!named)
        return {};
    const std::string_view words = hookClientSpec(*named).afterwards;
    return QString::fromUtf8(words.data(), qsizetype(words.size()));
}

QString HookInstaller::settingsPath(const Place &place, const QString &client)
{
    return HookSetup::settingsPath(client, place.home, place.codexHome);
}

HookSetup::Target HookInstaller::targetOf(const Place &place, const QString &client)
{
    HookSetup::Target target;
    target.client = client;
    target.hookUrl = place.consoleBase + QStringLiteral("/hooks/") + client;
    target.shim = place.shim + QStringList{client, QStringLiteral("--socket"), place.socket,
                                           QStringLiteral("--token-file"), tokenFile(place.dataDir, client)};
    return target;
}

HookInstaller::State HookInstaller::stateAt(const Place &place, const QString &client)
{
    State s;
    s.client = client;
    s.path = settingsPath(place, client);
    if (isPlugin(client)) {
        auto installed = pluginInstalled(s.path);
        if (!installed)
            s.problem = installed.error();
        else
            s.installed = installed.value();
        return s;
    }
    auto current = readSettings(s.path);
    if (!current)
        s.problem = current.error();
    else
        s.installed = HookSetup::installed(current.value(), client);
    return s;
}

Result<QString> HookInstaller::setupText(const Place &place, const QString &client)
{
    if (auto known = knownClient(client); !known)
        return failure(known.error());
    HookSetup::Target target = targetOf(place, client);
    if (isPlugin(client))
        return QStringLiteral("== %1: save as %2 ==\n%3\n%4")
            .arg(client, settingsPath(place, client),
                 AgentPlugins::text(*hookClientNamed(client.toStdString()), target.shim), afterwards(client));
    target.token = QStringLiteral("<the connection's token>");
    auto merged = HookSetup::install(OrderedJson::object(), target);
    if (!merged)
        return failure(merged.error());
    return QStringLiteral("== %1: merge into %2 ==\n%3\n%4")
        .arg(client, settingsPath(place, client), QString::fromStdString(merged.value().dump(2)),
             afterwards(client));
}

Result<QString> HookInstaller::install(const QString &client, const QString &owner)
{
    if (auto known = knownClient(client); !known)
        return failure(known.error());
    const QString path = settingsPath(m_place, client);
    if (isPlugin(client)) {
        const QStringList files = HookSetup::pluginFiles(client, m_place.home);
        for (const QString &file : files) {
            if (auto mine = pluginInstalled(file); !mine) // someone else's file there: left alone
                return failure(mine.error());
        }
        if (auto token = freshToken(client, owner); !token)
            return failure(token.error());
        const QByteArray text =
            AgentPlugins::text(*hookClientNamed(client.toStdString()), targetOf(m_place, client).shim)
                .toUtf8();
        for (const QString &file : files) {
            if (auto written = writePrivate(file, text); !written)
                return failure(written.error());
        }
        return QStringLiteral("Installed Countersign's %1 plugin as %2, as the connection %3.\n%4")
            .arg(client, path, connectionName(client), afterwards(client));
    }
    auto current = readSettings(path);
    if (!current)
        return failure(current.error());
    HookSetup::Target target = targetOf(m_place, client);
    target.token = QStringLiteral("<token>");
    if (auto trial = HookSetup::install(current.value(), target); !trial) // before any token changes
        return failure(QStringLiteral("%1: %2").arg(path, trial.error()));
    auto token = freshToken(client, owner);
    if (!token)
        return failure(token.error());
    target.token = token.value();
    auto merged = HookSetup::install(current.value(), target);
    if (!merged)
        return failure(QStringLiteral("%1: %2").arg(path, merged.error()));
    QString backup;
    if (auto written = writeSettings(path, merged.value(), &backup); !written)
        return failure(written.error());
    return QStringLiteral("Installed Countersign's %1 hooks in %2%3, as the connection %4.\n%5")
        .arg(client, path, backupNote(backup), connectionName(client), afterwards(client));
}

// A fresh token each time (only its hash is kept, so an old one cannot be handed out again), in
// DATA/hooks/CLIENT.token for the shim (an HTTP hook holds it in its header instead).
Result<QString> HookInstaller::freshToken(const QString &client, const QString &owner)
{
    const QString connection = connectionName(client);
    (void)m_tokens.revoke(connection); // none yet is fine
    auto token = m_tokens.add(connection, owner);
    if (!token)
        return failure(token.error());
    const auto named = hookClientNamed(client.toStdString());
    if (!named || !hookClientSpec(*named).httpHook)
        if (auto saved = writeToken(tokenFile(m_place.dataDir, client), token.value()); !saved)
            return failure(saved.error());
    return token;
}

void HookInstaller::dropConnection(const QString &client)
{
    (void)m_tokens.revoke(connectionName(client));
    QFile::remove(tokenFile(m_place.dataDir, client));
}

Result<QString> HookInstaller::remove(const QString &client)
{
    if (auto known = knownClient(client); !known)
        return failure(known.error());
    const QString path = settingsPath(m_place, client);
    if (isPlugin(client)) {
        for (const QString &file : HookSetup::pluginFiles(client, m_place.home)) {
            auto mine = pluginInstalled(file);
            if (!mine)
                return failure(mine.error());
            if (mine.value() && !QFile::remove(file))
                return failure(QStringLiteral("cannot delete %1").arg(file));
        }
        dropConnection(client);
        return QStringLiteral("Removed Countersign's %1 plugin %2; the connection %3 is revoked.")
            .arg(client, path, connectionName(client));
    }
    auto current = readSettings(path);
    if (!current)
        return failure(current.error());
    QString backup;
    // No file, or none of ours in it: nothing to take out, and the file is not rewritten.
    if (const OrderedJson without = HookSetup::remove(current.value(), client);
        !current.value().is_null() && without != current.value())
        if (auto written = writeSettings(path, without, &backup); !written)
            return failure(written.error());
    dropConnection(client);
    return QStringLiteral("Removed Countersign's %1 hooks from %2%3; the connection %4 is revoked.")
        .arg(client, path, backupNote(backup), connectionName(client));
}

} // namespace Countersign
