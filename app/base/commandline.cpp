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

namespace {

// The commands, for --help.
QString commandsHelp()
{
    return QCoreApplication::translate(
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
        "  phone list          the phones paired to approve from, and whether each may decide\n"
        "  phone revoke ID     revoke one (its id from phone list): it can no longer see or decide cards\n"
        "  doctor [CLIENT]     the same as setup --check\n"
        "  selftest CLIENT     run the installed agent headless against a scripted model, in a sandbox\n"
        "                      of its own: does the gate hold its shell (and MCP) call for a card, and\n"
        "                      block it with the console down? Your settings are not touched");
}

// Every option countersign takes.
struct CommandLineOptions final
{
    QCommandLineOption config{QStringLiteral("config"),
                              QStringLiteral("Configuration file (JSON, comments allowed)."),
                              QStringLiteral("FILE")};
    QCommandLineOption dataDir{QStringLiteral("data-dir"),
                               QStringLiteral("Folder for the database and keys."), QStringLiteral("DIR")};
    QCommandLineOption listen{QStringLiteral("listen"),
                              QStringLiteral("Listen address, 127.0.0.1:PORT (0 picks a free port)."),
                              QStringLiteral("ADDR")};
    QCommandLineOption headless{QStringLiteral("headless"),
                                QStringLiteral("Run the server without a window.")};
    QCommandLineOption stdio{
        QStringLiteral("stdio"),
        QStringLiteral("Serve MCP on stdin/stdout (for IDEs that spawn servers), as the connection whose "
                       "token is in the environment variable COUNTERSIGN_TOKEN (see token add).")};
    QCommandLineOption format{QStringLiteral("format"),
                              QStringLiteral("audit export: csv (default) or json."),
                              QStringLiteral("FORMAT")};
    QCommandLineOption output{QStringLiteral("output"), QStringLiteral("audit export: write to FILE."),
                              QStringLiteral("FILE")};
    QCommandLineOption publicKey{
        QStringLiteral("public-key"),
        QStringLiteral("receipt verify, audit verify: the signer's public key (base64); default: "
                       "this installation's key."),
        QStringLiteral("KEY")};
    QCommandLineOption receipt{
        QStringLiteral("receipt"),
        QStringLiteral("audit verify: a receipt (or a whole tool result) whose signed audit head the log "
                       "must still hold; repeatable."),
        QStringLiteral("FILE")};
    QCommandLineOption show{
        QStringLiteral("show"),
        QStringLiteral(
            "Open the window on a tab: approvals (default), audit, declines, connections, settings."),
        QStringLiteral("TAB")};
    QCommandLineOption setup{
        QStringLiteral("setup"),
        QStringLiteral("token add: also print how to point each client at Countersign (HTTP and stdio), "
                       "as the Connections tab shows it.")};
    QCommandLineOption yes{QStringLiteral("yes"),
                           QStringLiteral("undo: revert without asking (the diff is still printed).")};
    QCommandLineOption turn{QStringLiteral("turn"),
                            QStringLiteral("undo OPERATION: the whole turn of its agent session.")};
    QCommandLineOption session{QStringLiteral("session"),
                               QStringLiteral("undo: the last turn of this agent session."),
                               QStringLiteral("ID")};
    QCommandLineOption since{
        QStringLiteral("since"),
        QStringLiteral("undo --session: everything the session changed since TIME (ISO 8601, UTC unless "
                       "it names a zone)."),
        QStringLiteral("TIME")};
    QCommandLineOption check{QStringLiteral("check"),
                             QStringLiteral("setup: only report whether each agent will use Countersign.")};
    QCommandLineOption remove{QStringLiteral("remove"),
                              QStringLiteral("setup: take an agent's set-up out again.")};
    QCommandLineOption all{QStringLiteral("all"), QStringLiteral("setup: every agent found on PATH.")};
};

// A usage error ends the process with status 2.
[[noreturn]] void usageError(const QString &message)
{
    std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
    std::exit(2);
}

// A command with the wrong number of words, or a mode of setup or undo that does not go with the
// others given, is a usage error; so is an unknown command.
void checkCommandShape(const QCommandLineParser &parser, const CommandLineOptions &opt, const QString &noun,
                       const QString &verb, qsizetype n)
{
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
    else if (noun == QLatin1String("phone"))
        okShape = (verb == QLatin1String("list") && n == 2) || (verb == QLatin1String("revoke") && n == 3);
    else if (noun == QLatin1String("undo"))
        okShape = parser.isSet(opt.session) ? n == 1 && !parser.isSet(opt.turn)
                                            : n == 2 && !parser.isSet(opt.since);
    else if (noun == QLatin1String("setup")) {
        const int modes =
            int(parser.isSet(opt.check)) + int(parser.isSet(opt.remove)) + int(parser.isSet(opt.all));
        okShape = modes <= 1 && (parser.isSet(opt.all) ? n == 1 : parser.isSet(opt.check) ? n <= 2 : n == 2);
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
            "undo --session ID [--since TIME] [--yes] | phone list | phone revoke ID | "
            "setup CLIENT | setup --all | setup --check [CLIENT] | setup --remove CLIENT | doctor "
            "[CLIENT] | selftest CLIENT"));
}

// The options of a one-shot command, each refused with a usage error where it does not go with the command.
void readCommandOptions(CommandLine &cl, const QCommandLineParser &parser, const CommandLineOptions &opt,
                        const QString &noun, const QString &verb)
{
    if (parser.isSet(opt.format)) {
        cl.format = parser.value(opt.format);
        if (cl.format != QLatin1String("csv") && cl.format != QLatin1String("json"))
            usageError(QStringLiteral("--format must be csv or json"));
    }
    cl.output = parser.value(opt.output);
    cl.publicKey = parser.value(opt.publicKey);
    cl.receipts = parser.values(opt.receipt);
    cl.setup = parser.isSet(opt.setup);
    cl.yes = parser.isSet(opt.yes);
    cl.turn = parser.isSet(opt.turn);
    cl.session = parser.value(opt.session);
    if (parser.isSet(opt.since)) {
        QDateTime at = QDateTime::fromString(parser.value(opt.since), Qt::ISODateWithMs);
        if (!at.isValid())
            usageError(QStringLiteral("--since must be a time in ISO 8601 (2026-12-07T09:30:00Z)"));
        if (at.timeSpec() == Qt::LocalTime && !parser.value(opt.since).contains(QLatin1Char('+')))
            at.setTimeSpec(Qt::UTC);
        cl.sinceMs = std::max<qint64>(1, at.toMSecsSinceEpoch()); // 0 means "no time given"
    }
    if ((cl.turn || !cl.session.isEmpty() || cl.sinceMs > 0) && noun != QLatin1String("undo"))
        usageError(QStringLiteral("--turn, --session and --since go with undo"));
    cl.check = parser.isSet(opt.check);
    cl.remove = parser.isSet(opt.remove);
    cl.all = parser.isSet(opt.all);
    if ((cl.check || cl.remove || cl.all) && noun != QLatin1String("setup"))
        usageError(QStringLiteral("--check, --remove and --all go with setup"));
    if (cl.yes && noun != QLatin1String("undo"))
        usageError(QStringLiteral("--yes goes with undo OPERATION"));
    if (cl.setup && !(noun == QLatin1String("token") && verb == QLatin1String("add")) &&
        !(noun == QLatin1String("hooks") && verb == QLatin1String("install")))
        usageError(QStringLiteral("--setup goes with token add NAME or hooks install CLIENT"));
}

} // namespace

CommandLine CommandLine::parse(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(commandsHelp());
    parser.addHelpOption();
    parser.addVersionOption();
    const CommandLineOptions opt;
    parser.addOptions({opt.config, opt.dataDir, opt.listen, opt.headless, opt.stdio, opt.format, opt.output,
                       opt.publicKey, opt.receipt, opt.show, opt.setup, opt.yes, opt.turn, opt.session,
                       opt.since, opt.check, opt.remove, opt.all});
    parser.addPositionalArgument(
        QStringLiteral("command"),
        QStringLiteral(
            "Optional: token add|list|revoke, receipt verify, audit verify|export, undo OPERATION."),
        QStringLiteral("[command]"));
    parser.process(app);

    CommandLine cl;
    cl.configPath = parser.isSet(opt.config)
                        ? parser.value(opt.config)
                        : QDir(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation))
                              .filePath(QStringLiteral("config.json"));
    cl.dataDir = parser.isSet(opt.dataDir)
                     ? parser.value(opt.dataDir)
                     : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (parser.isSet(opt.listen))
        cl.listen = parser.value(opt.listen);
    cl.stdioArguments = QStringList{QStringLiteral("--stdio")};
    if (parser.isSet(opt.config))
        cl.stdioArguments << QStringLiteral("--config") << QFileInfo(cl.configPath).absoluteFilePath();
    if (parser.isSet(opt.dataDir))
        cl.stdioArguments << QStringLiteral("--data-dir") << QDir(cl.dataDir).absolutePath();
    cl.show = parser.value(opt.show);
    const QStringList positional = parser.positionalArguments();
    if (!positional.isEmpty()) {
        cl.mode = Mode::Command;
        cl.command = positional;
        const QString noun = positional.first();
        const QString verb = positional.value(1);
        const qsizetype n = positional.size();
        checkCommandShape(parser, opt, noun, verb, n);
        readCommandOptions(cl, parser, opt, noun, verb);
    } else if (!cl.show.isEmpty() &&
               !QStringList{"approvals", "audit", "declines", "connections", "settings"}.contains(cl.show)) {
        usageError(QStringLiteral("--show must be approvals, audit, declines, connections or settings"));
    } else if (parser.isSet(opt.stdio)) {
        cl.mode = Mode::Stdio;
    } else if (parser.isSet(opt.headless)) {
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
