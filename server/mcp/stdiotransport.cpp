#include "stdiotransport.h"

#include "dispatcher.h"
#include "jsonbody.h"
#include "jsonrpc.h"

#include <QThread>

#include <cerrno>
#include <cstdio>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace Countersign {

namespace {

const QString kRefusal = QStringLiteral(
    "Unauthorized: this connection's token is unknown or has been revoked; the stdio server stops");

} // namespace

StdioTransport::StdioTransport(const Dispatcher &dispatcher, Authenticator authenticate, QObject *parent)
    : QObject(parent), m_dispatcher(dispatcher), m_authenticate(std::move(authenticate))
{
}

StdioTransport::~StdioTransport()
{
    // The reader may be waiting on a stdin that stays open (a revoked peer, a termination signal):
    // it polls the wake pipe beside stdin, so it ends now instead of being destroyed while it runs.
    if (m_reader) {
        const char stop = 1;
        while (::write(m_wakeWrite, &stop, 1) < 0 && errno == EINTR) {
        }
        m_reader->wait();
    }
    for (const int fd : {m_wakeRead, m_wakeWrite}) {
        if (fd >= 0)
            ::close(fd);
    }
}

void StdioTransport::handleLine(const QByteArray &line, std::function<void(QByteArray)> write)
{
    if (m_refused || line.trimmed().isEmpty())
        return;
    const auto encode = [](const nlohmann::json &reply) {
        return QByteArray::fromStdString(
                   reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
               '\n';
    };
    if (line.size() > kMaxLineBytes)
        return write(
            encode(JsonRpc::error(nullptr, JsonRpc::kInvalidRequest,
                                  QStringLiteral("message larger than %1 bytes").arg(kMaxLineBytes))));
    auto parsed = JsonBody::parse(line);
    // Asked for every line, so a token revoked while this process runs is refused from the next one.
    const std::optional<Principal> principal = m_authenticate();
    if (!principal) {
        m_refused = true;
        nlohmann::json id;
        if (parsed && parsed.value().is_object()) {
            const auto it = parsed.value().find("id");
            if (it != parsed.value().end() && JsonRpc::isValidId(*it))
                id = *it;
        }
        write(encode(JsonRpc::error(id, JsonRpc::kServerError, kRefusal)));
        Q_EMIT refused(kRefusal);
        return;
    }
    if (!parsed)
        return write(encode(JsonRpc::error(nullptr, JsonRpc::kParseError,
                                           QStringLiteral("Parse error: %1").arg(parsed.error()))));
    m_dispatcher.dispatch(parsed.value(), CallContext{*principal, Transport::Stdio},
                          [write = std::move(write), encode](Reply reply) {
                              if (reply.body)
                                  write(encode(*reply.body));
                          });
}

void StdioTransport::start()
{
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "countersign: cannot make the stdio reader's pipe (errno %d)\n", errno);
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT finished(); }, Qt::QueuedConnection);
        return;
    }
    m_wakeRead = wake[0];
    m_wakeWrite = wake[1];
    m_reader = QThread::create([this, wakeFd = m_wakeRead] {
        const auto deliver = [this](QByteArray bytes) {
            QMetaObject::invokeMethod(
                this,
                [this, bytes] {
                    handleLine(bytes, [](const QByteArray &out) {
                        std::fwrite(out.constData(), 1, static_cast<size_t>(out.size()), stdout);
                        std::fflush(stdout);
                    });
                },
                Qt::QueuedConnection);
        };
        std::string line;
        bool tooLong = false;
        const auto endLine = [&] {
            QByteArray bytes = QByteArray::fromStdString(line);
            if (tooLong)
                bytes.append(' '); // keeps it over the limit so it is refused, not truncated
            deliver(std::move(bytes));
            line.clear();
            tooLong = false;
        };
        char buffer[64 * 1024];
        while (true) {
            pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wakeFd, POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR)
                    continue;
                break;
            }
            if (fds[1].revents != 0)
                return; // the transport is going: nothing more is delivered
            if (fds[0].revents == 0)
                continue;
            const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0)
                break; // EOF, or stdin unusable
            for (ssize_t i = 0; i < got; ++i) {
                if (buffer[i] == '\n')
                    endLine();
                else if (static_cast<qsizetype>(line.size()) <= kMaxLineBytes)
                    line.push_back(buffer[i]);
                else
                    tooLong = true;
            }
        }
        if (!line.empty())
            endLine();
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (!m_refused)
                    Q_EMIT finished();
            },
            Qt::QueuedConnection);
    });
    m_reader->setParent(this);
    m_reader->start();
}

} // namespace Countersign
