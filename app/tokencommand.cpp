#include "tokencommand.h"

#include "database.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <QDateTime>
#include <QDir>

#include <cstdio>

namespace Countersign {

namespace {
QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODate);
}
} // namespace

int runTokenCommand(const QString &dataDir, const QStringList &tokenCommand)
{
    const QStringList command = tokenCommand.mid(1); // after "token"
    if (!QDir().mkpath(dataDir)) {
        std::fprintf(stderr, "countersign: cannot create %s\n", qPrintable(dataDir));
        return 1;
    }
    auto db = Database::open(QDir(dataDir).filePath(QStringLiteral("countersign.db")));
    if (!db) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(db.error()));
        return 1;
    }
    SystemClock clock;
    TokenStore tokens(*db.value(), clock);
    const QString verb = command.value(0);
    if (verb == QLatin1String("add")) {
        auto token = tokens.add(command.value(1));
        if (!token) {
            std::fprintf(stderr, "countersign: %s\n", qPrintable(token.error()));
            return 1;
        }
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
        std::printf("%s\tcreated %s\t%s\n", qPrintable(c.name), qPrintable(isoTime(c.createdMs)),
                    c.revokedMs ? qPrintable(QStringLiteral("revoked %1").arg(isoTime(*c.revokedMs)))
                                : "active");
    }
    return 0;
}

} // namespace Countersign
