#include "commandline.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace Countersign {

bool CommandLine::needsWidgets(int argc, char **argv)
{
    // Options that take a value: their value is never a command ("--show audit").
    static const char *const kWithValue[] = {"--config", "--data-dir",   "--listen", "--format",
                                             "--output", "--public-key", "--show"};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (std::any_of(std::begin(kWithValue), std::end(kWithValue),
                        [a](const char *o) { return !std::strcmp(a, o); })) {
            ++i;
            continue;
        }
        if (!std::strcmp(a, "--headless") || !std::strcmp(a, "--stdio") || !std::strcmp(a, "--help") ||
            !std::strcmp(a, "-h") || !std::strcmp(a, "--version") || !std::strcmp(a, "-v"))
            return false;
        if (a[0] != '-') // the first positional argument is a command (token, receipt, audit, or a typo)
            return false;
    }
    return true;
}

CommandLine CommandLine::parse(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate(
        "main",
        "Countersign: an approval console for the destructive tool calls of coding agents (MCP 2026-07-28).\n"
        "\nCommands:\n"
        "  token add NAME      create a client connection; prints its bearer token once (--setup: and\n"
        "                      how to point each client at it, over HTTP and over stdio)\n"
        "  token list          list client connections\n"
        "  token revoke NAME   revoke a client connection\n"
        "  receipt verify FILE check a receipt offline, and a whole tool result against it (exit 0 when\n"
        "                      valid, 1 when not, 2 when FILE cannot be checked)\n"
        "  audit verify        check the audit log's hash chain, its signed checkpoints and the\n"
        "                      tables against it (--receipt FILE: and that the log still holds the\n"
        "                      receipt's signed head); reports the first problem\n"
        "  audit export        write every operation (--format csv|json, --output FILE)\n"
        "  hooks install CLIENT  put Countersign in the pre-tool hooks (or a plugin) of claude-code,\n"
        "                      codex, gemini, qwen, copilot, opencode, pi or cline (their own shell and\n"
        "                      edit tools then pass the gate; --setup: print what would be merged and\n"
        "                      change nothing)\n"
        "  hooks remove CLIENT take them out again\n"
        "  setup CLIENT        all of one agent's set-up: its hooks or plugin, Countersign's MCP server\n"
        "                      in its own configuration, a connection for each, then a check (claude-code,\n"
        "                      codex, gemini, qwen, copilot, opencode, pi, cline); --all: every agent on\n"
        "                      PATH; --check [CLIENT]: only say whether each is ready, needs a step or\n"
        "                      fails open, and why; --remove CLIENT: put every file back as it was\n"
        "  undo OPERATION      take back a change that kept a copy (an agent's quiet write, edit or\n"
        "                      patch, a quiet shell command the net recorded, an approved change that\n"
        "                      said so): print the diff, then ask (--yes: without asking); --turn: the\n"
        "                      whole turn of its agent session that holds it, as one change\n"
        "  undo --session ID   take back the last turn of an agent session (its calls between two\n"
        "                      pauses), or with --since TIME (ISO 8601) everything it changed since\n"
        "  doctor [CLIENT]     the same as setup --check\n"
        "  selftest CLIENT     run the installed agent headless against a scripted model, in a sandbox\n"
        "                      of its own: does the gate hold its shell (and MCP) call for a card, and\n"
        "                      block it with the console down? Your settings are not touched"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption config(QStringLiteral("config"),
                                    QStringLiteral("Configuration file (JSON, comments allowed)."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption dataDir(QStringLiteral("data-dir"),
                                     QStringLiteral("Folder for the database and keys."),
                                     QStringLiteral("DIR"));
    const QCommandLineOption listen(QStringLiteral("listen"),
                                    QStringLiteral("Listen address, 127.0.0.1:PORT (0 picks a free port)."),
                                    QStringLiteral("ADDR"));
    const QCommandLineOption headless(QStringLiteral("headless"),
                                      QStringLiteral("Run the server without a window."));
    const QCommandLineOption stdio(
        QStringLiteral("stdio"),
        QStringLiteral("Serve MCP on stdin/stdout (for IDEs that spawn servers), as the connection whose "
                       "token is in the environment variable COUNTERSIGN_TOKEN (see token add)."));
    const QCommandLineOption format(QStringLiteral("format"),
                                    QStringLiteral("audit export: csv (default) or json."),
                                    QStringLiteral("FORMAT"));
    const QCommandLineOption output(QStringLiteral("output"), QStringLiteral("audit export: write to FILE."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption publicKey(
        QStringLiteral("public-key"),
        QStringLiteral("receipt verify, audit verify: the signer's public key (base64); default: "
                       "this installation's key."),
        QStringLiteral("KEY"));
    const QCommandLineOption receipt(
        QStringLiteral("receipt"),
        QStringLiteral("audit verify: a receipt (or a whole tool result) whose signed audit head the log "
                       "must still hold; repeatable."),
        QStringLiteral("FILE"));
    const QCommandLineOption show(
        QStringLiteral("show"),
        QStringLiteral(
            "Open the window on a tab: approvals (default), audit, declines, connections, settings."),
        QStringLiteral("TAB"));
    const QCommandLineOption setup(
        QStringLiteral("setup"),
        QStringLiteral("token add: also print how to point each client at Countersign (HTTP and stdio), "
                       "as the Connections tab shows it."));
    const QCommandLineOption yes(QStringLiteral("yes"),
                                 QStringLiteral("undo: revert without asking (the diff is still printed)."));
    const QCommandLineOption turn(QStringLiteral("turn"),
                                  QStringLiteral("undo OPERATION: the whole turn of its agent session."));
    const QCommandLineOption session(QStringLiteral("session"),
                                     QStringLiteral("undo: the last turn of this agent session."),
                                     QStringLiteral("ID"));
    const QCommandLineOption since(
        QStringLiteral("since"),
        QStringLiteral("undo --session: everything the session changed since TIME (ISO 8601, UTC unless "
                       "it names a zone)."),
        QStringLiteral("TIME"));
    const QCommandLineOption check(
        QStringLiteral("check"),
        QStringLiteral("setup: only report whether each agent will use Countersign."));
    const QCommandLineOption remove(QStringLiteral("remove"),
                                    QStringLiteral("setup: take an agent's set-up out again."));
    const QCommandLineOption all(QStringLiteral("all"), QStringLiteral("setup: every agent found on PATH."));
    parser.addOptions({config, dataDir, listen, headless, stdio, format, output, publicKey, receipt, show,
                       setup, yes, turn, session, since, check, remove, all});
    parser.addPositionalArgument(
        QStringLiteral("command"),
        QStringLiteral(
            "Optional: token add|list|revoke, receipt verify, audit verify|export, undo OPERATION."),
        QStringLiteral("[command]"));
    parser.process(app);

    CommandLine cl;
    cl.configPath = parser.isSet(config)
                        ? parser.value(config)
                        : QDir(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation))
                              .filePath(QStringLiteral("config.json"));
    cl.dataDir = parser.isSet(dataDir) ? parser.value(dataDir)
                                       : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (parser.isSet(listen))
        cl.listen = parser.value(listen);
    cl.stdioArguments = QStringList{QStringLiteral("--stdio")};
    if (parser.isSet(config))
        cl.stdioArguments << QStringLiteral("--config") << QFileInfo(cl.configPath).absoluteFilePath();
    if (parser.isSet(dataDir))
        cl.stdioArguments << QStringLiteral("--data-dir") << QDir(cl.dataDir).absolutePath();
    cl.show = parser.value(show);
    const QStringList positional = parser.positionalArguments();
    auto usageError = [&](const QString &message) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
        std::exit(2);
    };
    if (!positional.isEmpty()) {
        cl.mode = Mode::Command;
        cl.command = positional;
        const QString noun = positional.first();
        const QString verb = positional.value(1);
        const qsizetype n = positional.size();
        bool okShape = false;
        if (noun == QLatin1String("token"))
            okShape = (verb == QLatin1String("list") && n == 2) ||
                      ((verb == QLatin1String("add") || verb == QLatin1String("revoke")) && n == 3);
        else if (noun == QLatin1String("receipt"))
            okShape = verb == QLatin1String("verify") && n == 3;
        else if (noun == QLatin1String("audit"))
            okShape = (verb == QLatin1String("verify") || verb == QLatin1String("export")) && n == 2;
        else if (noun == QLatin1String("hooks"))
            okShape = (verb == QLatin1String("install") || verb == QLatin1String("remove")) && n == 3;
        else if (noun == QLatin1String("undo"))
            okShape = parser.isSet(session) ? n == 1 && !parser.isSet(turn) : n == 2 && !parser.isSet(since);
        else if (noun == QLatin1String("setup")) {
            const int modes = int(parser.isSet(check)) + int(parser.isSet(remove)) + int(parser.isSet(all));
            okShape = modes <= 1 && (parser.isSet(all) ? n == 1 : parser.isSet(check) ? n <= 2 : n == 2);
        } else if (noun == QLatin1String("doctor"))
            okShape = n <= 2;
        else if (noun == QLatin1String("selftest"))
            okShape = n == 2;
        else
            usageError(QStringLiteral("unknown command \"%1\" (see --help)").arg(noun));
        if (!okShape)
            usageError(QStringLiteral(
                "usage: countersign token add NAME | token list | token revoke NAME | "
                "receipt verify FILE | audit verify | audit export [--format csv|json] | "
                "hooks install|remove claude-code|codex|gemini|qwen | undo OPERATION [--turn] [--yes] | "
                "undo --session ID [--since TIME] [--yes] | "
                "setup CLIENT | setup --all | setup --check [CLIENT] | setup --remove CLIENT | doctor "
                "[CLIENT] | selftest CLIENT"));
        if (parser.isSet(format)) {
            cl.format = parser.value(format);
            if (cl.format != QLatin1String("csv") && cl.format != QLatin1String("json"))
                usageError(QStringLiteral("--format must be csv or json"));
        }
        cl.output = parser.value(output);
        cl.publicKey = parser.value(publicKey);
        cl.receipts = parser.values(receipt);
        cl.setup = parser.isSet(setup);
        cl.yes = parser.isSet(yes);
        cl.turn = parser.isSet(turn);
        cl.session = parser.value(session);
        if (parser.isSet(since)) {
            QDateTime at = QDateTime::fromString(parser.value(since), Qt::ISODateWithMs);
            if (!at.isValid())
                usageError(QStringLiteral("--since must be a time in ISO 8601 (2026-12-07T09:30:00Z)"));
            if (at.timeSpec() == Qt::LocalTime && !parser.value(since).contains(QLatin1Char('+')))
                at.setTimeSpec(Qt::UTC);
            cl.sinceMs = std::max<qint64>(1, at.toMSecsSinceEpoch()); // 0 means "no time given"
        }
        if ((cl.turn || !cl.session.isEmpty() || cl.sinceMs > 0) && noun != QLatin1String("undo"))
            usageError(QStringLiteral("--turn, --session and --since go with undo"));
        cl.check = parser.isSet(check);
        cl.remove = parser.isSet(remove);
        cl.all = parser.isSet(all);
        if ((cl.check || cl.remove || cl.all) && noun != QLatin1String("setup"))
            usageError(QStringLiteral("--check, --remove and --all go with setup"));
        if (cl.yes && noun != QLatin1String("undo"))
            usageError(QStringLiteral("--yes goes with undo OPERATION"));
        if (cl.setup && !(noun == QLatin1String("token") && verb == QLatin1String("add")) &&
            !(noun == QLatin1String("hooks") && verb == QLatin1String("install")))
            usageError(QStringLiteral("--setup goes with token add NAME or hooks install CLIENT"));
    } else if (!cl.show.isEmpty() &&
               !QStringList{"approvals", "audit", "declines", "connections", "settings"}.contains(cl.show)) {
        usageError(QStringLiteral("--show must be approvals, audit, declines, connections or settings"));
    } else if (parser.isSet(stdio)) {
        cl.mode = Mode::Stdio;
    } else if (parser.isSet(headless)) {
        cl.mode = Mode::Headless;
    }
    return cl;
}

int commandFailed(const QString &message)
{
    std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
    return 1;
}

} // namespace Countersign
