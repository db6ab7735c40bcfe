// An upstream over stdio: its process started with the spec's command, environment and folder,
// its stdout read as one JSON-RPC message a line, its stderr logged a line at a time. The session
// over it is in upstreamlink.cpp.
#include "upstreamlink.h"

#include "jsonbody.h"
#include "upstreaminternal.h"

#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>

namespace Countersign {

using json = nlohmann::json;
using UpstreamInternal::kMaxErrLineBytes;

void UpstreamLink::startProcess()
{
    m_process = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = m_spec.env.cbegin(); it != m_spec.env.cend(); ++it)
        env.insert(it.key(), it.value());
    m_process->setProcessEnvironment(env);
    m_process->setWorkingDirectory(m_spec.cwd.isEmpty() ? QDir::homePath() : m_spec.cwd);
    m_process->setProgram(m_spec.command.first());
    m_process->setArguments(m_spec.command.mid(1));
    QProcess *process = m_process;
    connect(process, &QProcess::readyReadStandardOutput, this, &UpstreamLink::readOutput);
    connect(process, &QProcess::readyReadStandardError, this, &UpstreamLink::readErrors);
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (process != m_process)
            return;
        if (error == QProcess::FailedToStart)
            fail(QStringLiteral("cannot start %1: %2").arg(m_spec.command.first(), process->errorString()));
    });
    connect(process, &QProcess::finished, this, [this, process](int code, QProcess::ExitStatus status) {
        if (process != m_process)
            return;
        readOutput();
        fail(status == QProcess::CrashExit
                 ? QStringLiteral("the upstream's process crashed")
                 : QStringLiteral("the upstream's process exited with %1").arg(code));
    });
    qCInfo(lcUpstream) << "starting upstream" << m_spec.name << m_spec.command;
    m_process->start(QIODevice::ReadWrite);
}

void UpstreamLink::readOutput()
{
    if (!m_process)
        return;
    m_out += m_process->readAllStandardOutput();
    for (;;) {
        const qsizetype end = m_out.indexOf('\n');
        if (end < 0)
            break;
        const QByteArray line = m_out.left(end).trimmed();
        m_out.remove(0, end + 1);
        if (line.isEmpty())
            continue;
        // Depth-limited: a deeply nested line would otherwise exhaust the stack when copied.
        auto parsed = JsonBody::parse(line);
        const json message = parsed ? std::move(parsed).value() : json();
        if (!message.is_object()) {
            qCWarning(lcUpstream) << "upstream" << m_spec.name
                                  << "wrote a line that is not a JSON-RPC message:" << line.left(200);
            continue;
        }
        handle(message);
        if (!m_process)
            return; // the message ended the link
    }
    if (m_out.size() > kMaxLineBytes)
        fail(QStringLiteral("the upstream wrote a message over %1 MiB").arg(kMaxLineBytes / (1024 * 1024)));
}

void UpstreamLink::readErrors()
{
    if (!m_process)
        return;
    m_err += m_process->readAllStandardError();
    const qint64 second = QDateTime::currentSecsSinceEpoch();
    for (;;) {
        const qsizetype end = m_err.indexOf('\n');
        if (end < 0 && m_err.size() < kMaxErrLineBytes)
            break;
        const qsizetype cut = end < 0 ? kMaxErrLineBytes : end;
        const QByteArray line = m_err.left(cut);
        m_err.remove(0, end < 0 ? cut : cut + 1);
        if (line.trimmed().isEmpty())
            continue;
        if (second != m_errSecond) {
            if (m_errDropped > 0)
                qCWarning(lcUpstream) << "upstream" << m_spec.name << "wrote" << m_errDropped
                                      << "more lines to stderr, not logged";
            m_errSecond = second;
            m_errLines = 0;
            m_errDropped = 0;
        }
        if (++m_errLines > kMaxErrLinesPerSecond) {
            ++m_errDropped;
            continue;
        }
        // Control characters shown as escapes: a line cannot move the cursor or fake another.
        QString shown;
        for (const QChar c : QString::fromUtf8(line)) {
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                shown += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
            else
                shown += c;
        }
        qCInfo(lcUpstream).noquote() << QStringLiteral("[%1] %2").arg(m_spec.name, shown);
    }
}

} // namespace Countersign
