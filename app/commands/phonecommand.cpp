#include "phonecommand.h"

#include "auditstore.h"
#include "commandline.h"
#include "commandstore.h"
#include "phonedevices.h"
#include "visibletext.h"

#include <QDateTime>

#include <cstdio>

namespace Countersign {

namespace {

QString phoneTime(qint64 ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(ms).toString(Qt::ISODate) : QStringLiteral("never");
}

} // namespace

int runPhoneCommand(const CommandLine &cl)
{
    const QString verb = cl.command.value(1);
    auto opened = CommandStore::open(cl, QStringLiteral(": no phone was ever paired here"));
    if (!opened)
        return commandFailed(opened.error());
    PhoneDevices devices(PhoneDevices::pathIn(cl.dataDir), opened.value()->clock, *opened.value()->store);
    if (auto loaded = devices.load(); !loaded)
        return commandFailed(loaded.error());
    if (verb == QLatin1String("list")) {
        if (devices.all().isEmpty())
            std::printf("No phone is paired.\n");
        for (const PhoneDevice &d : devices.all()) {
            // What the listener would do with it: the chain's word, not the file's alone.
            const QString state = d.revoked() ? QStringLiteral("revoked %1").arg(phoneTime(d.revokedMs))
                                  : devices.vouched(d.id)
                                      ? QStringLiteral("may decide")
                                      : QStringLiteral("refused (the audit log does not vouch for it)");
            std::printf("%s  %s  paired %s, last used %s, %s\n", qPrintable(visibleText(d.id)),
                        qPrintable(visibleText(d.name)), qPrintable(phoneTime(d.pairedMs)),
                        qPrintable(phoneTime(d.lastUsedMs)), qPrintable(state));
        }
        return 0;
    }
    const QString id = cl.command.value(2);
    const auto device = devices.find(id);
    if (!device)
        return commandFailed(QStringLiteral("no paired phone %1 (countersign phone list shows their ids)")
                                 .arg(visibleText(id.left(40))));
    if (auto revoked = devices.revoke(id); !revoked)
        return commandFailed(revoked.error());
    std::printf(
        "Revoked %s (%s): it can no longer see or decide cards; a console running now refuses its next "
        "request.\n",
        qPrintable(visibleText(device->name)), qPrintable(id));
    return 0;
}

} // namespace Countersign
