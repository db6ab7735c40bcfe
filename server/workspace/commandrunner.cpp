#include "commandrunner.h"

#include <QPointer>
#include <QProcess>
#include <QTimer>

namespace Countersign {

namespace {

// One child process and its bookkeeping; deletes itself after reporting.
class RunningCommand final : public QObject
{
public:
    RunningCommand(const CommandSpec &spec, CommandRunner::Done done, QObject *parent)
        : QObject(parent), m_spec(spec), m_done(std::move(done))
    {
        m_process.setProgram(spec.argv.first());
        m_process.setArguments(spec.argv.mid(1));
        if (!spec.workingDirectory.isEmpty())
            m_process.setWorkingDirectory(spec.workingDirectory);
        if (spec.environment)
            m_process.setProcessEnvironment(*spec.environment);
        m_process.setStandardInputFile(QProcess::nullDevice());
        connect(&m_process, &QProcess::readyReadStandardOutput, this,
                [this] { take(m_process.readAllStandardOutput(), m_output.stdOut); });
        connect(&m_process, &QProcess::readyReadStandardError, this,
                [this] { take(m_process.readAllStandardError(), m_output.stdErr); });
        connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart)
                finish(failure(
                    QStringLiteral("cannot run %1: %2").arg(m_spec.argv.first(), m_process.errorString())));
        });
        connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
            take(m_process.readAllStandardOutput(), m_output.stdOut);
            take(m_process.readAllStandardError(), m_output.stdErr);
            if (m_timedOut)
                return finish(failure(QStringLiteral("%1 ran longer than %2 s and was stopped")
                                          .arg(m_spec.argv.first())
                                          .arg(m_spec.timeoutMs / 1000.0)));
            if (status == QProcess::CrashExit)
                return finish(failure(QStringLiteral("%1 crashed").arg(m_spec.argv.first())));
            m_output.exitCode = exitCode;
            finish(m_output);
        });
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            m_timedOut = true;
            m_process.kill();
        });
    }
    ~RunningCommand() override
    {
        m_process.disconnect(this);
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(1000);
        }
    }

    void start()
    {
        m_timer.start(m_spec.timeoutMs);
        m_process.start();
    }

private:
    void take(const QByteArray &bytes, QByteArray &into)
    {
        const qsizetype room = m_spec.maxOutputBytes - into.size();
        if (bytes.size() > room)
            m_output.truncated = true;
        into += bytes.left(std::max<qsizetype>(room, 0));
    }
    void finish(Result<CommandOutput> result)
    {
        if (m_finished)
            return;
        m_finished = true;
        m_timer.stop();
        auto done = std::move(m_done);
        deleteLater();
        done(std::move(result));
    }

    CommandSpec m_spec;
    CommandRunner::Done m_done;
    QProcess m_process;
    QTimer m_timer;
    CommandOutput m_output;
    bool m_timedOut = false;
    bool m_finished = false;
};

} // namespace

CommandRunner::~CommandRunner()
{
    // Children (running commands) are deleted by ~QObject and kill their processes without reporting.
}

void CommandRunner::run(const CommandSpec &spec, Done done)
{
    if (spec.argv.isEmpty()) {
        done(failure(QStringLiteral("no command given")));
        return;
    }
    auto *command = new RunningCommand(spec, std::move(done), this);
    command->start();
}

} // namespace Countersign
