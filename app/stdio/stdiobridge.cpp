#include "stdiobridge.h"

#include "commandline.h"
#include "config.h"
#include "consoleinstance.h"
#include "database.h"
#include "jsonrpc.h"
#include "linesession.h"
#include "localendpoint.h"
#include "result.h"
#include "systemclock.h"
#include "tokenstore.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

namespace Countersign {

namespace {

constexpr char kTokenVariable[] = "COUNTERSIGN_TOKEN";
constexpr int kRefusedCode = -32000; // what a LineSession answers once the token no longer works
constexpr qint64 kLogRotateBytes = 8 * 1024 * 1024;

void sayOnStderr(const QString &message)
{
    std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
    std::fflush(stderr);
}

bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

QString consoleLog(const CommandLine &cl)
{
    return QDir(cl.dataDir).absoluteFilePath(QStringLiteral("console.log"));
}

// The last line the console wrote to its log.
QString lastLogLine(const CommandLine &cl)
{
    QFile log(consoleLog(cl));
    if (!log.open(QIODevice::ReadOnly))
        return {};
    log.seek(std::max<qint64>(0, log.size() - 4096)); // the tail is enough
    const QList<QByteArray> lines = log.readAll().trimmed().split('\n');
    return QString::fromUtf8(lines.last()).remove(QRegularExpression(QStringLiteral("^countersign: ")));
}

// The data folder's console, started detached (it outlives this bridge, in a session of its own),
// with its output appended to console.log; its pid.
Result<qint64> startConsole(const CommandLine &cl)
{
    if (!QDir().mkpath(cl.dataDir))
        return failure(QStringLiteral("cannot create the data folder %1").arg(cl.dataDir));
    QStringList arguments;
    if (!hasDisplay())
        arguments << QStringLiteral("--headless");
    arguments << QStringLiteral("--data-dir") << QDir(cl.dataDir).absolutePath() << QStringLiteral("--config")
              << QFileInfo(cl.configPath).absoluteFilePath();
    if (cl.listen)
        arguments << QStringLiteral("--listen") << *cl.listen;
    // A log kept from earlier starts is rotated once it is large (one older copy is kept).
    if (QFileInfo(consoleLog(cl)).size() > kLogRotateBytes) {
        QFile::remove(consoleLog(cl) + QStringLiteral(".1"));
        QFile::rename(consoleLog(cl), consoleLog(cl) + QStringLiteral(".1"));
    }
    QProcess console;
    console.setProgram(QCoreApplication::applicationFilePath());
    // Not the IDE's folder: the console serves every client, whichever started it.
    console.setWorkingDirectory(QDir::homePath());
    console.setArguments(arguments);
    console.setStandardInputFile(QProcess::nullDevice());
    console.setStandardOutputFile(consoleLog(cl), QIODevice::Append);
    console.setStandardErrorFile(consoleLog(cl), QIODevice::Append);
    qint64 pid = 0;
    if (!console.startDetached(&pid))
        return failure(QStringLiteral("cannot start a console: %1").arg(console.errorString()));
    return pid;
}

// Whether token is an active connection of the store the folder's console would serve from: asked
// before a console is started for it, so that a bogus token starts nothing.
Status knownToken(const CommandLine &cl, const QByteArray &token)
{
    const auto unknown = [] {
        return failure(QStringLiteral("the token in %1 is unknown or revoked; --stdio serves only an active "
                                      "connection (make one, or give a revoked one a new token, with "
                                      "`countersign token add NAME`), and no console was started")
                           .arg(QLatin1String(kTokenVariable)));
    };
    auto config = Config::load(cl.configPath);
    if (!config)
        return failure(QStringLiteral("no console was started: %1").arg(config.error()));
    const QString location = config.value().storeLocation(cl.dataDir);
    if (!location.startsWith(QLatin1String("postgresql:")) && !QFileInfo::exists(location))
        return unknown(); // no store yet: no connection was ever made here
    auto db = Database::open(location, Database::Access::ReadOnly);
    if (!db)
        return failure(QStringLiteral("no console was started: %1").arg(db.error()));
    SystemClock clock;
    TokenStore tokens(*db.value(), clock);
    if (tokens.authenticate(token))
        return success();
    if (const QString why = tokens.lastError(); !why.isEmpty())
        return failure(QStringLiteral("no console was started: %1").arg(why));
    return unknown();
}

// A connection to the folder's console; one is started when none answers, and only for a token
// the store knows.
Result<std::unique_ptr<QLocalSocket>> reachConsole(const CommandLine &cl, const QByteArray &token)
{
    const QString path = ConsoleInstance::bridgePath(cl.dataDir);
    if (path.isEmpty())
        return failure(
            QStringLiteral("neither $XDG_RUNTIME_DIR nor /tmp/countersign-%1 is a folder of this user "
                           "closed to others: there is no safe place for the console's socket")
                .arg(::getuid()));
    auto socket = std::make_unique<QLocalSocket>();
    socket->connectToServer(path);
    if (socket->waitForConnected(1000))
        return socket;
    if (auto known = knownToken(cl, token); !known)
        return failure(known.error());
    auto started = startConsole(cl);
    if (!started)
        return failure(started.error());
    sayOnStderr(QStringLiteral("no console was running for %1; started one (pid %2, %3, its log in %4)")
                    .arg(QDir(cl.dataDir).absolutePath())
                    .arg(started.value())
                    .arg(hasDisplay() ? QStringLiteral("with its window") : QStringLiteral("headless"),
                         consoleLog(cl)));
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < kStartWaitMs) {
        QThread::msleep(100);
        socket->connectToServer(path);
        if (socket->waitForConnected(500))
            return socket;
        // The console it started is gone: unless it found another one starting, it failed.
        if (::kill(pid_t(started.value()), 0) != 0 && errno == ESRCH &&
            !lastLogLine(cl).contains(QLatin1String("already running")))
            return failure(QStringLiteral("the console it started exited: %1").arg(lastLogLine(cl)));
    }
    return failure(QStringLiteral("no console answered on %1 within %2 s (its log: %3)")
                       .arg(path)
                       .arg(kStartWaitMs / 1000)
                       .arg(consoleLog(cl)));
}

// The hello: the console names the connection, or says why it will not serve it. The token goes
// only to a console of this user (the socket's peer credentials), never to whoever holds the path.
Result<QString> greet(QLocalSocket &socket, const QByteArray &token)
{
    const std::optional<uid_t> owner = LocalEndpoint::peerUid(socket.socketDescriptor());
    if (!owner || *owner != ::getuid())
        return failure(
            QStringLiteral("the socket %1 is not served by a console of this user (uid %2); the token "
                           "was not sent")
                .arg(socket.fullServerName())
                .arg(owner ? QString::number(*owner) : QStringLiteral("unknown")));
    const nlohmann::json hello = {{"countersign", LocalEndpoint::kHelloVersion},
                                  {"token", token.toStdString()}};
    socket.write(QByteArray::fromStdString(hello.dump()) + '\n');
    QElapsedTimer waited;
    waited.start();
    while (!socket.canReadLine()) {
        const qint64 left = kStartWaitMs - waited.elapsed();
        if ((left <= 0 || !socket.waitForReadyRead(int(left))) && !socket.canReadLine())
            return failure(QStringLiteral("the console did not answer this bridge's hello"));
    }
    const auto answer = nlohmann::json::parse(socket.readLine().toStdString(), nullptr, false);
    if (answer.is_object() && answer.value("ok", false) == true)
        return QString::fromStdString(answer.value("connection", std::string()));
    const std::string why = answer.is_object() && answer.contains("error") && answer["error"].is_string()
                                ? answer["error"].get<std::string>()
                                : std::string("an answer it does not understand");
    if (why == "the token is unknown or revoked")
        return failure(QStringLiteral("the token in %1 is unknown or revoked; --stdio serves only an active "
                                      "connection (make one, or give a revoked one a new token, with "
                                      "`countersign token add NAME`)")
                           .arg(QLatin1String(kTokenVariable)));
    return failure(QStringLiteral("the console refused this bridge: %1").arg(QString::fromStdString(why)));
}

// Relays lines both ways and knows which requests still wait for their answer.
class Relay final : public QObject
{
public:
    Relay(std::unique_ptr<QLocalSocket> socket, QString connection)
        : m_socket(std::move(socket)), m_connection(std::move(connection))
    {
        connect(m_socket.get(), &QLocalSocket::readyRead, this, &Relay::fromConsole);
        connect(m_socket.get(), &QLocalSocket::bytesWritten, this,
                [this](qint64 written) { m_unsent -= written; });
        connect(m_socket.get(), &QLocalSocket::disconnected, this, &Relay::consoleGone);
    }
    ~Relay() override
    {
        if (m_reader) {
            const char stop = 1;
            while (::write(m_wakeWrite, &stop, 1) < 0 && errno == EINTR) {
            }
            m_reader->wait(); // it polls the wake pipe beside stdin, so it ends now
        }
        for (const int fd : {m_wakeRead, m_wakeWrite}) {
            if (fd >= 0)
                ::close(fd);
        }
    }
    Q_DISABLE_COPY_MOVE(Relay)

    Status start()
    {
        int wake[2];
        if (::pipe2(wake, O_CLOEXEC) != 0)
            return failure(QStringLiteral("cannot make the stdin reader's pipe (errno %1)").arg(errno));
        m_wakeRead = wake[0];
        m_wakeWrite = wake[1];
        m_reader.reset(QThread::create([this, wakeFd = m_wakeRead] { readStdin(wakeFd); }));
        m_reader->start();
        return success();
    }

private:
    // On the reader thread: each line of stdin (one longer than the limit is cut one byte over it,
    // so that the console refuses it whole), then the end.
    void readStdin(int wakeFd)
    {
        std::string line;
        const auto deliver = [this](QByteArray bytes, bool end) {
            m_unsent += bytes.size() + 1;
            QMetaObject::invokeMethod(
                this, [this, bytes, end] { end ? stdinEnded() : toConsole(bytes); }, Qt::QueuedConnection);
        };
        char buffer[64 * 1024];
        while (true) {
            // Backpressure: while kMaxUnsent bytes already read are not yet on their way to the
            // console (it, or the client reading our stdout, is slow), stdin is not read; the
            // client's writes wait in its pipe instead of this bridge's memory growing.
            const bool full = m_unsent.load() > kMaxUnsent;
            pollfd fds[2] = {{STDIN_FILENO, short(full ? 0 : POLLIN), 0}, {wakeFd, POLLIN, 0}};
            if (::poll(fds, 2, full ? 20 : -1) < 0) {
                if (errno == EINTR)
                    continue;
                break;
            }
            if (fds[1].revents != 0)
                return; // the bridge is going
            if (fds[0].revents == 0)
                continue;
            const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0)
                break;
            for (ssize_t i = 0; i < got; ++i) {
                if (buffer[i] == '\n') {
                    deliver(QByteArray::fromStdString(line), false);
                    line.clear();
                } else if (static_cast<qsizetype>(line.size()) <= LineSession::kMaxLineBytes) {
                    line.push_back(buffer[i]);
                }
            }
        }
        if (!line.empty())
            deliver(QByteArray::fromStdString(line), false);
        deliver({}, true);
    }

    // An id as a key ("1" and 1 are different requests).
    static QByteArray idKey(const nlohmann::json &id) { return QByteArray::fromStdString(id.dump()); }

    // Each line goes on. A request (a method and a valid id) is owed its answer by id; a line the
    // console cannot read as a message, or whose id is not valid, is owed an error with id null;
    // a notification, or the client's response to a question, is owed nothing.
    void toConsole(const QByteArray &line)
    {
        if (line.trimmed().isEmpty()) {
            m_unsent -= line.size() + 1;
            return;
        }
        const auto message = nlohmann::json::parse(line.toStdString(), nullptr, false);
        const bool object = message.is_object();
        const bool hasMethod = object && message.contains("method");
        const bool hasId = object && message.contains("id");
        if (hasMethod && hasId && JsonRpc::isValidId(message["id"]))
            m_waiting.insert(idKey(message["id"]));
        else if (!object || (hasId && !JsonRpc::isValidId(message["id"])) || (!hasMethod && !hasId))
            ++m_unreadable;
        m_socket->write(line + '\n');
    }

    void fromConsole()
    {
        while (m_socket->canReadLine()) {
            const QByteArray line = m_socket->readLine();
            std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
            std::fflush(stdout);
            const auto message = nlohmann::json::parse(line.toStdString(), nullptr, false);
            if (!message.is_object() || message.contains("method") || !message.contains("id"))
                continue; // a notification (progress)
            if (const auto error = message.find("error");
                error != message.end() && error->is_object() && error->value("code", 0) == kRefusedCode)
                m_refused = true;
            if (message["id"].is_null())
                m_unreadable = std::max(0, m_unreadable - 1);
            else
                m_waiting.remove(idKey(message["id"]));
        }
        finishIfDone();
    }

    void stdinEnded()
    {
        m_stdinEnded = true;
        finishIfDone();
    }

    void finishIfDone()
    {
        if (m_stdinEnded && m_waiting.isEmpty() && m_unreadable == 0)
            QCoreApplication::exit(0);
    }

    void consoleGone()
    {
        fromConsole(); // what arrived before the end
        if (m_stdinEnded && m_waiting.isEmpty() && m_unreadable == 0)
            return QCoreApplication::exit(0);
        sayOnStderr(
            m_refused ? QStringLiteral("the connection \"%1\" has been revoked (or its token replaced); this "
                                       "stdio bridge stops")
                            .arg(m_connection)
                      : QStringLiteral("the console for this data folder quit; this stdio bridge stops"));
        QCoreApplication::exit(1);
    }

    std::unique_ptr<QLocalSocket> m_socket;
    QString m_connection;
    bool m_refused = false; // the console answered -32000: the token no longer works
    std::unique_ptr<QThread> m_reader;
    int m_wakeRead = -1;
    int m_wakeWrite = -1;
    QSet<QByteArray> m_waiting; // ids of requests not answered yet
    int m_unreadable = 0;       // lines sent that no id names, not answered yet
    bool m_stdinEnded = false;
    // Bytes read from stdin and not yet written to the console's socket.
    static constexpr qint64 kMaxUnsent = 16 * 1024 * 1024;
    std::atomic<qint64> m_unsent{0};
};

} // namespace

int runStdioBridge(const CommandLine &cl)
{
    // Read once and removed at once: a console this bridge starts never inherits it.
    const QByteArray token = qgetenv(kTokenVariable).trimmed();
    qunsetenv(kTokenVariable);
    if (token.isEmpty()) {
        sayOnStderr(
            QStringLiteral("--stdio needs the connection's token in the environment variable %1 (make one "
                           "with `countersign token add NAME`)")
                .arg(QLatin1String(kTokenVariable)));
        return 1;
    }
    auto socket = reachConsole(cl, token);
    if (!socket) {
        sayOnStderr(socket.error());
        return 1;
    }
    auto greeted = greet(*socket.value(), token);
    if (!greeted) {
        sayOnStderr(greeted.error());
        return 1;
    }
    Relay relay(std::move(socket).value(), greeted.value());
    if (auto started = relay.start(); !started) {
        sayOnStderr(started.error());
        return 1;
    }
    return QCoreApplication::exec();
}

} // namespace Countersign
