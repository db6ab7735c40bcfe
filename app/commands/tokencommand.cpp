#include "tokencommand.h"

#include "clientsetup.h"
#include "commandline.h"
#include "config.h"
#include "consoleinstance.h"
#include "database.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>

#include <cstdio>

namespace Countersign {

namespace {
// The running console's URL; without one, the address it would listen on.
QString consoleUrl(const CommandLine &cl)
{
    if (const QString running = ConsoleInstance::runningUrl(cl.dataDir); !running.isEmpty())
        return running;
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = Config::kDefaultPort;
    if (auto config = Config::load(cl.configPath)) {
        host = config.value().listenHost();
        port = config.value().listenPort();
    }
    if (cl.listen) {
        if (auto listen = Config::parseListen(*cl.listen)) {
            host = listen.value().first;
            port = listen.value().second;
        }
    }
    return QStringLiteral("http://%1:%2/mcp").arg(host).arg(port);
}

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODate);
}
} // namespace

int runTokenCommand(const CommandLine &cl)
{
    const QString &dataDir = cl.dataDir;
    const QStringList command = cl.command.mid(1); // after "token"
    if (!QDir().mkpath(dataDir)) {
        std::fprintf(stderr, "countersign: cannot create %s\n", qPrintable(dataDir));
        return 1;
    }
    // The store the console uses: its configuration may name a shared PostgreSQL one.
    auto config = Config::load(cl.configPath);
    if (!config) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(config.error()));
        return 1;
    }
    auto db = Database::open(config.value().storeLocation(dataDir));
    if (!db) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(db.error()));
        return 1;
    }
    SystemClock clock;
    TokenStore tokens(*db.value(), clock);
    const QString verb = command.value(0);
    if (verb == QLatin1String("add")) {
        // The connection belongs to the person at this console (for a team's review rules).
        auto token = tokens.add(command.value(1), config.value().personOrLogin());
        if (!token) {
            std::fprintf(stderr, "countersign: %s\n", qPrintable(token.error()));
            return 1;
        }
        if (cl.setup)
            std::printf("%s", qPrintable(ClientSetup::document(
                                  command.value(1), consoleUrl(cl), token.value(),
                                  QStringList{QCoreApplication::applicationFilePath()} + cl.stdioArguments)));
        else
            std::printf("%s\n", qPrintable(token.value()));
        std::fprintf(stderr, "countersign: connection \"%s\" created; the token above is shown only once.\n",
                     qPrintable(command.value(1)));
        return 0;
    }
    if (verb == QLatin1String("revoke")) {
        if (auto r = tokens.revoke(command.value(1)); !r) {
            std::fprintf(stderr, "countersign: %s\n", qPrintable(r.error()));
            return 1;
        }
        std::fprintf(stderr, "countersign: connection \"%s\" revoked\n", qPrintable(command.value(1)));
        return 0;
    }
    auto list = tokens.list();
    if (!list) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(list.error()));
        return 1;
    }
    for (const auto &c : list.value()) {
        std::printf("%s\tcreated %s\t%s\towner %s\n", qPrintable(c.name), qPrintable(isoTime(c.createdMs)),
                    c.revokedMs ? qPrintable(QStringLiteral("revoked %1").arg(isoTime(*c.revokedMs)))
                                : "active",
                    c.owner.isEmpty() ? "(none on record)" : qPrintable(c.owner));
    }
    return 0;
}

} // namespace Countersign
