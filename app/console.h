#pragma once

#include "result.h"

#include <QString>

#include <memory>

namespace Countersign {

class ApprovalQueue;
class MainWindow;
struct CommandLine;

// The running app for the window, --headless and --stdio modes: configuration (watched), keys,
// the console's database connection and approval queue, the server (in its own thread, or on
// stdio) and the window. Built by start(), torn down in the right order by the destructor.
class Console final
{
public:
    static Result<std::unique_ptr<Console>> start(const CommandLine &cl);
    ~Console();
    Q_DISABLE_COPY_MOVE(Console)

    // The /mcp URL (empty on stdio).
    QString url() const;
    ApprovalQueue &queue();
    // Null without a window.
    MainWindow *window() const;

private:
    Console();
    struct Parts;
    std::unique_ptr<Parts> m_parts;
};

} // namespace Countersign
