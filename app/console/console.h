#pragma once

#include "result.h"

#include <QString>

#include <functional>
#include <memory>

namespace Countersign {

class ApprovalQueue;
class Config;
class MainWindow;
class McpServer;
class ToolRegistry;
struct CommandLine;

// The running app for the window and --headless modes: configuration (watched), keys, the
// console's database connection and approval queue, the server in its own thread (HTTP, and the
// local socket `countersign --stdio` bridges reach) and the window. Built by start(), torn down
// in the right order by the destructor.
class Console final
{
public:
    // What a test host adds to the product's console; the app passes none.
    struct Hooks final
    {
        // Called with the server before it listens (and before it moves to its thread), after the
        // console has wired it: to observe it, as the crash tests' host does with
        // McpServer::stepRecorded (a direct connection runs in the server thread).
        std::function<void(McpServer *)> wireServer;
        // More tools beside the built-in ones (McpServer::Setup::extraTools).
        std::function<void(ToolRegistry &, const std::function<void()> &changed)> extraTools;
    };
    static Result<std::unique_ptr<Console>> start(const CommandLine &cl, const Hooks &hooks = {});
    ~Console();
    Q_DISABLE_COPY_MOVE(Console)

    // Call when the event loop has ended (Quit, a termination signal), before the
    // Console goes: new calls are refused, and the tools still running are let end and be recorded,
    // so that their outcome is known instead of "unknown" after the next start. A second Quit or
    // signal stops waiting (what still runs is then killed, its outcome unknown).
    void finishRunningTools();

    // The /mcp URL.
    QString url() const;
    ApprovalQueue &queue();
    // Null without a window.
    MainWindow *window() const;
    // Shows, raises and activates the window (another start asked for it); nothing headless.
    void showWindow();

private:
    Console();

    // The phases of start(), in the order it runs them; an error stops the start.
    // Loads the server keys (a warning about where they are kept goes to stderr).
    Status loadKeys(const Config &config, const QString &dataDir);
    // Opens the database at databasePath and restores the approval queue from it.
    Status openQueue(const Config &config, const QString &databasePath);
    // Takes the data folder over from the instance that ran on it last; gives this one's id.
    Result<QString> claimInstance(const QString &dataDir);
    // Reports the tool runs the last process never saw end; gives the warning (empty for none).
    Result<QString> warnOfInterruptedRuns();
    // Puts the configuration guard between the watched file and what is in force; gives the
    // warning about a widening still refused in the file (empty for none).
    QString startGuard(const Config &config, const CommandLine &cl);
    Status startServer(const Config &config, const CommandLine &cl, const Hooks &hooks,
                       const QString &databasePath, const QString &instanceId);
    // The window mode's window: its parts and the warnings of the start.
    void openWindow(const Config &config, const CommandLine &cl, const QString &interruptedText,
                    const QString &stillRefused);
    // Connects the window to the configuration, the phone and the server, then shows it.
    void wireWindow(const CommandLine &cl);

    struct Parts;
    std::unique_ptr<Parts> m_parts;
};

} // namespace Countersign
