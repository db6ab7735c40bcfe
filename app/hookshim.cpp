#include "hookshim.h"

#include "consoleinstance.h"
#include "hookcall.h"
#include "localendpoint.h"

#include <QCoreApplication>
#include <QFile>
#include <QLocalSocket>
#include <QStandardPaths>

#include <cstdio>
#include <cstring>
#include <optional>

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr int kConnectMs = 2000;
// The answer may wait for the human up to the console's hold (HookService::Settings::holdMs), under
// the client's own hook timeout; a console that says nothing for longer than this is gone.
constexpr int kAnswerMs = 620'000;

void write(FILE *to, const QByteArray &bytes)
{
    if (!bytes.isEmpty())
        std::fwrite(bytes.constData(), 1, size_t(bytes.size()), to);
}

int print(const HookAnswer &answer)
{
    write(stdout, answer.stdoutText);
    write(stderr, answer.stderrText);
    std::fflush(stdout);
    std::fflush(stderr);
    return answer.exitCode;
}

// A deny every client reads as one, in its own format when the client is known: that format;
// otherwise exit 2 with the reason on stderr (which Claude Code, Codex, Qwen Code and Gemini CLI
// all take as a block).
int deny(std::optional<HookClient> client, HookCall::Event event, const QString &reason)
{
    if (!client) {
        std::fprintf(stderr, "Countersign: %s\n", qPrintable(reason));
        return 2;
    }
    return print(HookAnswer::deny(*client, event, QStringLiteral("Countersign: ") + reason));
}

QByteArray readStdin()
{
    QByteArray all;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
        all.append(buffer, qsizetype(n));
        if (all.size() > HookCall::kMaxPayloadBytes)
            break;
    }
    return all;
}

} // namespace

int runHookShim(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign"));
    const QString clientName = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QString();
    QString dataDir;
    QString tokenFile;
    for (int i = 3; i + 1 < argc; ++i) {
        if (!std::strcmp(argv[i], "--data-dir"))
            dataDir = QString::fromLocal8Bit(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--token-file"))
            tokenFile = QString::fromLocal8Bit(argv[i + 1]);
    }
    if (dataDir.isEmpty())
        dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const std::optional<HookClient> client = HookClients::parse(clientName);
    if (!client)
        return deny(std::nullopt, HookCall::Event::Pre,
                    QStringLiteral("usage: countersign hook claude-code|codex|gemini|qwen [--data-dir DIR] "
                                   "(\"%1\" is none of them), so nothing is allowed")
                        .arg(clientName.left(64)));

    const QByteArray input = readStdin();
    HookCall::Event event = HookCall::Event::Pre;
    if (input.size() > HookCall::kMaxPayloadBytes)
        return deny(client, event,
                    QStringLiteral("the hook payload is larger than 4 MiB; nothing is allowed"));
    json payload = json::parse(input.constData(), input.constData() + input.size(), nullptr, false);
    if (payload.is_discarded() || !payload.is_object())
        return deny(client, event,
                    QStringLiteral("the hook payload is not a JSON object; nothing is allowed"));
    if (payload.value("hook_event_name", json()) == "PermissionRequest")
        event = HookCall::Event::Permission;
    // COUNTERSIGN_TOKEN, else the file `hooks install` wrote (some clients strip *TOKEN* variables
    // from their hooks' environment: Gemini CLI with its redaction on).
    QByteArray token = qgetenv("COUNTERSIGN_TOKEN");
    if (token.isEmpty() && !tokenFile.isEmpty()) {
        QFile file(tokenFile);
        if (file.open(QIODevice::ReadOnly))
            token = file.read(4096).trimmed();
    }
    if (token.isEmpty())
        return deny(client, event,
                    QStringLiteral("COUNTERSIGN_TOKEN is not set for this hook, so nothing is allowed (run: "
                                   "countersign hooks install %1)")
                        .arg(HookClients::name(*client)));

    QLocalSocket socket;
    socket.connectToServer(ConsoleInstance::bridgePath(dataDir));
    if (!socket.waitForConnected(kConnectMs))
        return deny(
            client, event,
            QStringLiteral("Countersign is not running, so nothing is allowed. Start it, then call again."));
    const json hello = {{"countersign", LocalEndpoint::kHookHelloVersion},
                        {"token", token.toStdString()},
                        {"client", HookClients::name(*client).toStdString()}};
    socket.write(QByteArray::fromStdString(hello.dump()) + '\n');
    socket.write(QByteArray::fromStdString(payload.dump(-1, ' ', false, json::error_handler_t::replace)) +
                 '\n');
    socket.flush();
    QByteArray answer;
    while (!answer.contains('\n')) {
        if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(kAnswerMs))
            break;
        answer += socket.readAll();
    }
    const qsizetype end = answer.indexOf('\n');
    if (end < 0)
        return deny(
            client, event,
            QStringLiteral("Countersign ended the connection without an answer, so nothing is allowed"));
    const json parsed = json::parse(answer.constData(), answer.constData() + end, nullptr, false);
    if (parsed.is_object() && parsed.value("ok", json()) == false)
        return deny(client, event,
                    QStringLiteral("%1; nothing is allowed")
                        .arg(QString::fromStdString(parsed.value("error", std::string("refused")))));
    const auto decoded = HookAnswer::fromJson(parsed);
    if (!decoded)
        return deny(client, event, QStringLiteral("Countersign's answer was unreadable; nothing is allowed"));
    return print(*decoded);
}

} // namespace Countersign
