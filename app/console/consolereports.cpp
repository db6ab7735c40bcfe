#include "consolereports.h"

#include "configguard.h"
#include "mcpserver.h"
#include "policychange.h"

#include <QSet>

#include <cstdio>
#include <memory>

namespace Countersign {

namespace {

// What a change widens, on one line.
QString wideningText(const PolicyChange &change)
{
    QStringList items;
    for (const PolicyChangeItem &item : change.widening())
        items.append(item.text());
    return items.join(QStringLiteral("; "));
}

} // namespace

// One line for stderr: the file's text may hold line breaks and control characters.
QString oneLine(QString text)
{
    for (QChar &c : text) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator ||
            c == QChar::ParagraphSeparator)
            c = QLatin1Char('?');
    }
    return text;
}

// At start, a widening the human refused is still in the file, in words (stderr and the window).
QString stillRefusedText(const PolicyChange &change, const QString &sourcePath)
{
    return QStringLiteral(
               "%1 still holds a change you kept out in the window (%2); the configuration accepted "
               "before it stays in force. Change the file again to be asked again.")
        .arg(sourcePath, wideningText(change));
}

// What the console says on stderr as configurations are read and judged.
void reportConfigChanges(ConfigGuard *guard)
{
    QObject::connect(guard, &ConfigGuard::applied, guard, [](const Config &applied) {
        std::fprintf(stderr, "countersign: configuration reloaded from %s\n",
                     qPrintable(applied.sourcePath()));
        std::fflush(stderr);
    });
    QObject::connect(guard, &ConfigGuard::pendingChanged, guard, [guard] {
        if (!guard->hasPending())
            return;
        std::fprintf(stderr,
                     "countersign: the configuration in %s widens what runs without you; it waits for you "
                     "to accept it in the window, the previous configuration stays in force\n",
                     qPrintable(oneLine(guard->pendingSource())));
        std::fflush(stderr);
    });
    QObject::connect(
        guard, &ConfigGuard::heldForWindow, guard, [](const PolicyChange &change, const QString &sourcePath) {
            std::fprintf(stderr,
                         "countersign: the configuration in %s widens what runs without a human "
                         "(%s); with no window to accept it in, it is held, and the configuration "
                         "accepted last stays in force until it is accepted in Countersign's window\n",
                         qPrintable(oneLine(sourcePath)), qPrintable(oneLine(wideningText(change))));
            std::fflush(stderr);
        });
    QObject::connect(guard, &ConfigGuard::refusedStillInFile, guard,
                     [](const PolicyChange &change, const QString &sourcePath) {
                         std::fprintf(stderr, "countersign: %s\n",
                                      qPrintable(oneLine(stillRefusedText(change, sourcePath))));
                         std::fflush(stderr);
                     });
    QObject::connect(guard, &ConfigGuard::storeError, guard, [](const QString &error) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(oneLine(error)));
        std::fflush(stderr);
    });
}

// What the console says on stderr of an upstream's change of its tools that is held for the human
// (once per change; context: an object of the console's thread).
void reportUpstreamChanges(McpServer *server, QObject *context)
{
    auto said = std::make_shared<QSet<QString>>();
    QObject::connect(server, &McpServer::upstreamWideningHeld, context,
                     [said](const QString &upstream, const QStringList &widening, const QString &) {
                         const QString line =
                             QStringLiteral("upstream %1 changed its tools in a way that widens what runs "
                                            "without a human (%2); held: its tools keep what was accepted (a "
                                            "new one asks) until it is accepted in Countersign's window")
                                 .arg(upstream, widening.join(QStringLiteral("; ")));
                         if (said->contains(line))
                             return;
                         said->insert(line);
                         std::fprintf(stderr, "countersign: %s\n", qPrintable(oneLine(line)));
                         std::fflush(stderr);
                     });
}

} // namespace Countersign
