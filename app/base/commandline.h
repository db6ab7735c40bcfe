#pragma once

#include <QString>
#include <QStringList>

#include <optional>

class QCoreApplication;

namespace Countersign {

// What the command line asks for. Parsed once, in main(), and passed on; nothing else reads argv.
struct CommandLine final
{
    enum class Mode { Window, Headless, Stdio, Command };

    Mode mode = Mode::Window;
    QString configPath;
    QString dataDir;
    std::optional<QString> listen;
    // For Mode::Command: ["token", "add", NAME] (with setup: and each client's setup) | ["token", "list"] |
    // ["token", "revoke", NAME] |
    // ["receipt", "verify", FILE] | ["audit", "verify"] | ["audit", "export"]
    QStringList command;
    QString format = QStringLiteral("csv"); // audit export
    QString output;                         // audit export: a file instead of stdout
    QString publicKey;    // receipt verify, audit verify: trust this key (base64) instead of the local one
    QStringList receipts; // audit verify: receipts whose signed head the log must hold
    QString show;         // window: the tab to open on (approvals, audit, connections, settings)
    bool setup = false;   // token add: print every client's setup as well
    bool yes = false;     // undo: revert without asking on the terminal
    bool turn = false;    // undo OPERATION --turn: the whole turn of its agent session
    QString session;      // undo --session ID: that session's last turn
    qint64 sinceMs = 0;   // undo --session ID --since TIME: all it changed since
    bool check = false;   // setup: only report
    bool remove = false;  // setup: take it all out again
    bool all = false;     // setup: every agent on this machine
    // What `countersign --stdio` needs to reach this console: the folders given on this command
    // line (absolute), without the program.
    QStringList stdioArguments;

    // Which kind of application object the mode needs, decided before one exists.
    static bool needsWidgets(int argc, char **argv);
    // Prints help, version or a usage error and exits the process for those; otherwise returns.
    static CommandLine parse(const QCoreApplication &app);
};

// A one-shot command's failure: "countersign: MESSAGE" on stderr; returns exit status 1.
int commandFailed(const QString &message);

} // namespace Countersign
