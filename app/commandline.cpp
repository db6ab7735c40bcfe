#include "commandline.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

#include <cstdio>
#include <cstring>

namespace Countersign {

bool CommandLine::needsWidgets(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!std::strcmp(a, "--headless") || !std::strcmp(a, "--stdio") || !std::strcmp(a, "token") ||
            !std::strcmp(a, "--help") || !std::strcmp(a, "-h") || !std::strcmp(a, "--version") ||
            !std::strcmp(a, "-v"))
            return false;
    }
    return true;
}

CommandLine CommandLine::parse(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate(
        "main", "Countersign: an approval console for the destructive tool calls of coding agents (MCP 2026-07-28).\n"
                "\nCommands:\n"
                "  token add NAME      create a client connection; prints its bearer token once\n"
                "  token list          list client connections\n"
                "  token revoke NAME   revoke a client connection"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption config(QStringLiteral("config"), QStringLiteral("Configuration file (JSON, comments allowed)."),
                                    QStringLiteral("FILE"));
    const QCommandLineOption dataDir(QStringLiteral("data-dir"), QStringLiteral("Folder for the database and keys."),
                                     QStringLiteral("DIR"));
    const QCommandLineOption listen(QStringLiteral("listen"),
                                    QStringLiteral("Listen address, 127.0.0.1:PORT (0 picks a free port)."),
                                    QStringLiteral("ADDR"));
    const QCommandLineOption headless(QStringLiteral("headless"), QStringLiteral("Run the server without a window."));
    const QCommandLineOption stdio(QStringLiteral("stdio"), QStringLiteral("Serve MCP on stdin/stdout (for IDEs that spawn servers)."));
    parser.addOptions({config, dataDir, listen, headless, stdio});
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("Optional: token add|list|revoke."),
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
    const QStringList positional = parser.positionalArguments();
    auto usageError = [&](const QString &message) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
        std::exit(2);
    };
    if (!positional.isEmpty()) {
        if (positional.first() != QLatin1String("token"))
            usageError(QStringLiteral("unknown command \"%1\" (see --help)").arg(positional.first()));
        cl.mode = Mode::Token;
        cl.command = positional.mid(1);
        const QString verb = cl.command.value(0);
        const bool okShape = (verb == QLatin1String("list") && cl.command.size() == 1) ||
                             ((verb == QLatin1String("add") || verb == QLatin1String("revoke")) && cl.command.size() == 2);
        if (!okShape)
            usageError(QStringLiteral("usage: countersign token add NAME | token list | token revoke NAME"));
    } else if (parser.isSet(stdio)) {
        cl.mode = Mode::Stdio;
    } else if (parser.isSet(headless)) {
        cl.mode = Mode::Headless;
    }
    return cl;
}

} // namespace Countersign
