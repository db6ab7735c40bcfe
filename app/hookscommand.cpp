#include "hookscommand.h"

#include "commandline.h"
#include "config.h"
#include "consoleinstance.h"
#include "database.h"
#include "hooksetup.h"
#include "socketpaths.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <cstdio>

namespace Countersign {

namespace {

using json = nlohmann::json;

int fail(const QString &message)
{
    std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
    return 1;
}

QString consoleBase(const CommandLine &cl, const Config &config)
{
    QString url = ConsoleInstance::runningUrl(cl.dataDir);
    if (url.isEmpty())
        url = QStringLiteral("http://%1:%2/mcp").arg(config.listenHost()).arg(config.listenPort());
    return url.left(url.size() - 4); // without "/mcp"
}

// The file as JSON (null when it does not exist). A file with comments is refused: writing it back
// would lose them.
Result<json> readSettings(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return Result<json>(json());
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray bytes = file.readAll();
    if (bytes.trimmed().isEmpty())
        return Result<json>(json());
    json parsed = json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (!parsed.is_discarded())
        return Result<json>(std::move(parsed));
    const json lenient =
        json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false, true);
    if (!lenient.is_discarded())
        return failure(QStringLiteral("%1 has comments, which writing it would lose: add the hooks by hand "
                                      "(countersign hooks install CLIENT --setup prints them)")
                           .arg(path));
    return failure(QStringLiteral("%1 is not valid JSON; nothing was changed").arg(path));
}

// A copy beside it first, then the new text in place at once (a reader never sees half of it).
Status writeSettings(const QString &path, const json &settings, QString *backup)
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
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return failure(QStringLiteral("cannot create the folder of %1").arg(path));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    file.write(QByteArray::fromStdString(settings.dump(2)) + '\n');
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (!file.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return success();
}

QString tokenFile(const QString &dataDir, const QString &client)
{
    return QDir(dataDir).absoluteFilePath(QStringLiteral("hooks/%1.token").arg(client));
}

Status writeToken(const QString &path, const QString &token)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return failure(QStringLiteral("cannot create the folder of %1").arg(path));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(token.toUtf8() + '\n');
    if (!file.commit())
        return failure(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return success();
}

QString afterwards(const QString &client)
{
    if (client == QLatin1String("claude-code"))
        return QStringLiteral(
            "Claude Code 2.1.295 or later blocks a call when the hook fails (onFailure); an "
            "older one lets it through.");
    if (client == QLatin1String("codex"))
        return QStringLiteral("Codex runs a hook only once you trust its hash: start codex and trust the "
                              "Countersign hooks under /hooks (\"Trust all and continue\"); codex exec needs "
                              "them trusted too, or --dangerously-bypass-hook-trust.");
    if (client == QLatin1String("gemini"))
        return QStringLiteral("Gemini CLI runs settings hooks only in trusted folders.");
    return QStringLiteral("Qwen Code runs project hooks only in trusted folders; these are user-level.");
}

} // namespace

int runHooksCommand(const CommandLine &cl)
{
    const QString verb = cl.command.value(1);
    const QString client = cl.command.value(2);
    if (!HookSetup::clients().contains(client))
        return fail(QStringLiteral("hooks %1: the client must be one of %2")
                        .arg(verb, HookSetup::clients().join(QLatin1String(", "))));
    auto config = Config::load(cl.configPath);
    if (!config)
        return fail(config.error());
    const QString home = QDir::homePath();
    const QString path = HookSetup::settingsPath(client, home, qEnvironmentVariable("CODEX_HOME"));
    const QString dataDir = QDir(cl.dataDir).absolutePath();
    HookSetup::Target target;
    target.client = client;
    target.hookUrl = consoleBase(cl, config.value()) + QStringLiteral("/hooks/") + client;
    // The shim program beside this one (it starts in a few ms), else this program's hook command.
    const QString shim =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("countersign-hook"));
    target.shim = QFileInfo(shim).isExecutable()
                      ? QStringList{shim, client}
                      : QStringList{QCoreApplication::applicationFilePath(), QStringLiteral("hook"), client};
    target.shim << QStringLiteral("--socket") << SocketPaths::bridge(dataDir)
                << QStringLiteral("--token-file") << tokenFile(dataDir, client);

    auto current = readSettings(path);
    if (verb == QLatin1String("install") && cl.setup) { // what would be merged, and nothing written
        target.token = QStringLiteral("<the connection's token>");
        auto merged = HookSetup::install(json::object(), target);
        std::printf("== %s: merge into %s ==\n%s\n%s\n", qPrintable(client), qPrintable(path),
                    merged.value().dump(2).c_str(), qPrintable(afterwards(client)));
        return 0;
    }
    if (!current)
        return fail(current.error());

    if (!QDir().mkpath(dataDir))
        return fail(QStringLiteral("cannot create %1").arg(dataDir));
    auto db = Database::open(config.value().storeLocation(dataDir));
    if (!db)
        return fail(db.error());
    SystemClock clock;
    TokenStore tokens(*db.value(), clock);
    const QString connection = client + QStringLiteral("-hooks");
    QString backup;
    if (verb == QLatin1String("remove")) {
        if (auto written = writeSettings(path, HookSetup::remove(current.value(), client), &backup); !written)
            return fail(written.error());
        (void)tokens.revoke(connection); // gone already is fine
        QFile::remove(tokenFile(dataDir, client));
        std::printf("Removed Countersign's %s hooks from %s%s; the connection %s is revoked.\n",
                    qPrintable(client), qPrintable(path),
                    backup.isEmpty() ? "" : qPrintable(QStringLiteral(" (backup: %1)").arg(backup)),
                    qPrintable(connection));
        return 0;
    }
    // A fresh token each time (only its hash is kept, so an old one cannot be handed out again).
    (void)tokens.revoke(connection);
    auto token = tokens.add(connection, config.value().personOrLogin());
    if (!token)
        return fail(token.error());
    target.token = token.value();
    if (client != QLatin1String("claude-code"))
        if (auto saved = writeToken(tokenFile(dataDir, client), token.value()); !saved)
            return fail(saved.error());
    auto merged = HookSetup::install(current.value(), target);
    if (!merged)
        return fail(QStringLiteral("%1: %2").arg(path, merged.error()));
    if (auto written = writeSettings(path, merged.value(), &backup); !written)
        return fail(written.error());
    std::printf("Installed Countersign's %s hooks in %s%s, as the connection %s.\n%s\n", qPrintable(client),
                qPrintable(path),
                backup.isEmpty() ? "" : qPrintable(QStringLiteral(" (backup: %1)").arg(backup)),
                qPrintable(connection), qPrintable(afterwards(client)));
    return 0;
}

} // namespace Countersign
