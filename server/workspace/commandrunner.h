#pragma once

#include "result.h"

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

#include <functional>
#include <optional>

namespace Countersign {

// What a finished command left behind. Output beyond the limit is dropped and flagged.
struct CommandOutput final
{
    int exitCode = -1;
    QByteArray stdOut;
    QByteArray stdErr;
    bool truncated = false;
};

struct CommandSpec final
{
    QStringList argv; // argv[0] is the program, found on PATH; never run through a shell
    QString workingDirectory;
    int timeoutMs = 120'000;
    qsizetype maxOutputBytes = 1024 * 1024;         // per stream
    std::optional<QProcessEnvironment> environment; // the whole environment; the server's when unset
};

// Runs commands as child processes without blocking the thread: done is called once from the event
// loop with the output, or with an Error when the program cannot start, crashes or runs past its
// timeout (then it is killed). Deleting the runner kills what is still running and calls nothing.
class CommandRunner final : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(Result<CommandOutput>)>;

    explicit CommandRunner(QObject *parent = nullptr) : QObject(parent) {}
    Q_DISABLE_COPY_MOVE(CommandRunner)
    ~CommandRunner() override;

    void run(const CommandSpec &spec, Done done);
};

} // namespace Countersign
