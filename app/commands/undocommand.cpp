#include "undocommand.h"

#include "auditstore.h"
#include "commandline.h"
#include "commandstore.h"
#include "fileundo.h"
#include "snapshotstore.h"
#include "visibletext.h"

#include <QRegularExpression>

#include <cstdio>
#include <iostream>
#include <string>

namespace Countersign {

int runUndoCommand(const CommandLine &cl)
{
    const QString nonce = cl.command.value(1).toLower();
    if (cl.session.isEmpty() && !QRegularExpression(QStringLiteral("^[0-9a-f]{32}$")).match(nonce).hasMatch())
        return commandFailed(
            QStringLiteral("\"%1\" is not an operation id (32 hex digits, as the audit view and "
                           "audit export show it)")
                .arg(cl.command.value(1).left(80)));
    // The revert is recorded in the chain under a signed checkpoint, as the window's is.
    auto opened = CommandStore::open(cl);
    if (!opened)
        return commandFailed(opened.error());
    const Config &config = opened.value()->config;
    SnapshotStore snapshots(SnapshotStore::folderIn(cl.dataDir),
                            SnapshotStore::Limits{qint64(config.undoMegabytes()) << 20,
                                                  qint64(config.undoDays()) * 24 * 3600 * 1000,
                                                  qint64(config.undoKeepHours()) * 3600 * 1000});
    FileUndo undo(*opened.value()->store, snapshots);
    // One operation, or a whole turn of an agent session taken back as one change.
    auto nonces = !cl.session.isEmpty() ? undo.turnOfSession(cl.session, cl.sinceMs)
                  : cl.turn             ? undo.turnOf(nonce)
                                        : Result<QStringList>(QStringList{nonce});
    if (!nonces)
        return commandFailed(visibleText(nonces.error()));
    if (nonces.value().size() > 1)
        std::printf("The turn: %lld calls (%s)\n", static_cast<long long>(nonces.value().size()),
                    qPrintable(nonces.value().join(QStringLiteral(", "))));
    auto preview = undo.previewTurn(nonces.value());
    if (!preview)
        return commandFailed(visibleText(preview.error()));
    if (!preview.value().refusal.isEmpty())
        return commandFailed(
            visibleText(QStringLiteral("nothing was reverted: %1").arg(preview.value().refusal)));
    // The agent's text, with what a terminal would act on (escape sequences) shown as marks.
    std::fputs(qPrintable(visibleText(preview.value().diff)), stdout);
    if (!cl.yes) {
        std::printf("Put back what %lld file(s) held before the agent's change (the diff above)? [y/N] ",
                    static_cast<long long>(preview.value().files.size()));
        std::fflush(stdout);
        std::string answer;
        if (!std::getline(std::cin, answer) || (answer != "y" && answer != "Y" && answer != "yes")) {
            std::printf("Nothing was reverted.\n");
            return 2;
        }
    }
    const QString user = qEnvironmentVariable("USER");
    auto reverted = undo.revertTurn(nonces.value(),
                                    user.isEmpty() ? QStringLiteral("cli") : QStringLiteral("cli:") + user);
    if (!reverted)
        return commandFailed(visibleText(reverted.error()));
    // The files' names are the agent's: shown as plain text, never as terminal control.
    std::printf("%s\n", qPrintable(visibleText(reverted.value())));
    return 0;
}

} // namespace Countersign
