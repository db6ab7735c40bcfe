#include "nodetools.h"

#include <QHash>

#include "argtools.h"
#include "projecttools.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace Countersign::Shell::NodeTools {

using namespace ArgTools;

namespace {

// Whether the package.json that npm would read from cwd (the nearest one up) defines script.
bool scriptDefined(const QString &cwd, const QString &script)
{
    if (cwd.isEmpty())
        return false;
    for (QDir dir(cwd);;) {
        QFile file(dir.filePath(QStringLiteral("package.json")));
        if (file.open(QIODevice::ReadOnly)) {
            const QJsonObject scripts = QJsonDocument::fromJson(file.read(1 << 20))
                                            .object()
                                            .value(QLatin1String("scripts"))
                                            .toObject();
            return scripts.contains(script);
        }
        if (!dir.cdUp())
            return false;
    }
}

// Names of the files that pin what an install fetches: one of them must be here ("!name").
QStringList pinned(const QStringList &names)
{
    QStringList out;
    for (const QString &n : names)
        out.append(QLatin1Char('!') + n);
    return out;
}

// The project's packages as its lock file pins them (npm ci, npm install, yarn, pnpm install
// with no package named and no option that leaves the project): the project's own command,
// while the manifest and the lock are as committed.
bool nodeInstallFromLock(CommandCatalog &c, const QString &program, const QList<Arg> &args, int at,
                         const QString &sub)
{
    static const QStringList harmless =
        words({"--frozen-lockfile", "--immutable", "--prefer-offline", "--offline", "--no-audit", "--no-fund",
               "--silent", "-s", "-q", "--quiet", "--ignore-scripts", "--legacy-peer-deps", "--no-progress",
               "--production", "--omit=dev", "--include=dev", "--check-files", "--pure-lockfile"});
    for (qsizetype k = 1; k < args.size(); ++k) {
        if (k == at)
            continue;
        const Arg &a = args.at(k);
        if (!a.known || (!harmless.contains(a.text) && !a.text.startsWith(QLatin1String("--loglevel"))))
            return false;
    }
    static const QHash<QString, QStringList> locks = {
        {QStringLiteral("npm"), words({"package-lock.json", "npm-shrinkwrap.json"})},
        {QStringLiteral("yarn"), words({"yarn.lock"})},
        {QStringLiteral("pnpm"), words({"pnpm-lock.yaml"})},
        {QStringLiteral("bun"), words({"bun.lockb", "bun.lock"})}};
    if (!locks.contains(program))
        return false;
    // Workspaces: the packages' own manifests (their install scripts) are pins no lock names.
    QFile manifest(c.how().cwd + QStringLiteral("/package.json"));
    if (c.how().cwd.isEmpty() ||
        (manifest.open(QIODevice::ReadOnly) && manifest.read(1 << 20).contains("\"workspaces\"")))
        return false;
    c.project(QStringLiteral("installs the project's packages as its lock file pins them (%1 %2)")
                  .arg(program, sub.isEmpty() ? QStringLiteral("install") : sub),
              words({"package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"}) +
                  pinned(locks.value(program)));
    return true;
}

// npm exec -c LINE / npm exec -- CMD: read the command; else a package from the registry
bool nodeExec(CommandCatalog &c, const QString &program, const QList<Arg> &args, int at, const QString &sub)
{
    for (qsizetype k = at + 1; k < args.size(); ++k) {
        if ((args.at(k).text == QLatin1String("-c") || args.at(k).text == QLatin1String("--call")) &&
            k + 1 < args.size()) {
            c.readLine(args.at(k + 1).text, c.how().cwd);
            return true;
        }
        if (args.at(k).text == QLatin1String("--")) {
            return ProjectTools::read(c, QStringLiteral("npx"),
                                      QList<Arg>{Arg{QStringLiteral("npx"), true, false, {}}} +
                                          args.mid(k + 1)),
                   true;
        }
    }
    c.add(Effect::Kind::Installs, QStringLiteral("fetches and runs a package (%1 %2)").arg(program, sub));
    return true;
}

// A subcommand that installs packages (their install scripts run) or sends to the package
// registry: read (true), or not one of those (false).
bool nodeInstallsOrPublishes(CommandCatalog &c, const QString &program, const QString &sub,
                             const QStringList &rest)
{
    static const QStringList installs = words({"install",
                                               "i",
                                               "in",
                                               "ins",
                                               "inst",
                                               "insta",
                                               "instal",
                                               "isnt",
                                               "isntall",
                                               "add",
                                               "ci",
                                               "clean-install",
                                               "install-clean",
                                               "update",
                                               "up",
                                               "upgrade",
                                               "dedupe",
                                               "rebuild",
                                               "link",
                                               "ln",
                                               "dlx",
                                               "create",
                                               "init",
                                               "exec",
                                               "x",
                                               "global",
                                               "import",
                                               "install-test",
                                               "it"});
    static const QStringList publishes =
        words({"publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "login", "logout",
               "adduser", "token", "team", "org", "star", "hook"});
    if (installs.contains(sub)) {
        c.add(Effect::Kind::Installs,
              rest.isEmpty()
                  ? QStringLiteral("installs the project's packages and runs their install scripts (%1 %2)")
                        .arg(program, sub)
                  : QStringLiteral("installs %1 (%2 %3)").arg(rest.join(QLatin1Char(' ')), program, sub));
        return true;
    }
    if (publishes.contains(sub)) {
        c.add(Effect::Kind::Network, QStringLiteral("%1 %2 sends to the package registry").arg(program, sub));
        return true;
    }
    return false;
}

// A subcommand that removes packages, reads the project (or asks the registry), or changes the
// settings or the version: read (true), or not one of those (false).
bool nodeReadsOrChanges(CommandCatalog &c, const QString &program, const QList<Arg> &args, int at,
                        const QString &sub, const QStringList &rest)
{
    static const QStringList reads =
        words({"ls",      "list",   "ll",     "la",   "outdated", "view",   "info",    "show",    "why",
               "explain", "config", "get",    "root", "bin",      "prefix", "help",    "version", "-v",
               "doctor",  "audit",  "search", "pack", "query",    "fund",   "licenses"});
    static const QStringList removes = words({"uninstall", "remove", "rm", "r", "un", "unlink", "prune"});
    if (removes.contains(sub)) {
        c.add(Effect::Kind::Writes,
              QStringLiteral("removes packages from the project (%1 %2)").arg(program, sub), c.how().cwd,
              !c.how().cwd.isEmpty());
        return true;
    }
    if (reads.contains(sub) &&
        !(sub == QLatin1String("config") && operandsAfter(args, at + 1).value(0) != QLatin1String("get") &&
          operandsAfter(args, at + 1).value(0) != QLatin1String("list") && !rest.isEmpty())) {
        if (sub == QLatin1String("view") || sub == QLatin1String("info") ||
            sub == QLatin1String("outdated") || sub == QLatin1String("show") ||
            (sub == QLatin1String("pack") && !rest.isEmpty()) || sub == QLatin1String("audit") ||
            sub == QLatin1String("search") || sub == QLatin1String("doctor"))
            c.add(Effect::Kind::Network, QStringLiteral("%1 %2 asks the package registry").arg(program, sub));
        else
            c.add(Effect::Kind::Reads, QStringLiteral("%1 %2 reads the project").arg(program, sub),
                  c.how().cwd, !c.how().cwd.isEmpty());
        return true;
    }
    if (sub == QLatin1String("config") || sub == QLatin1String("set")) {
        c.add(Effect::Kind::Environment,
              QStringLiteral("%1 %2 changes the package manager's settings").arg(program, sub));
        return true;
    }
    if (sub == QLatin1String("version")) {
        c.add(Effect::Kind::Writes,
              QStringLiteral("%1 version changes package.json and commits").arg(program), c.how().cwd,
              !c.how().cwd.isEmpty());
        return true;
    }
    return false;
}

// test, run X, start, build, X (yarn and pnpm run scripts by name): a package.json script, one
// the project's package.json defines, with no option that changes how it runs.
bool nodeScript(CommandCatalog &c, const QString &program, const QList<Arg> &args, const QString &sub,
                const QStringList &rest)
{
    QString script = sub;
    if (sub == QLatin1String("run") || sub == QLatin1String("run-script") || sub == QLatin1String("rum") ||
        sub == QLatin1String("urn"))
        script = rest.value(0);
    else if (sub == QLatin1String("t") || sub == QLatin1String("tst"))
        script = QStringLiteral("test");
    for (qsizetype k = 1; k < args.size(); ++k) {
        const QString t = args.at(k).text;
        if (t == QLatin1String("--"))
            break; // what follows goes to the script
        static const QStringList harmless =
            words({"--silent", "-s", "--if-present", "--quiet", "-q", "--loglevel=silent", "--no-color",
                   "--color=false", "--verbose"});
        if (t.startsWith(QLatin1Char('-')) && !harmless.contains(t)) {
            c.unknown(QStringLiteral("%1 %2 may change how the script runs").arg(program, t));
            return true;
        }
    }
    if (!script.isEmpty() && !scriptDefined(c.how().cwd, script)) {
        c.unknown(QStringLiteral("%1 %2: \"%3\" is not a script of the project's package.json")
                      .arg(program, sub, script));
        return true;
    }
    if (script.isEmpty()) {
        c.add(Effect::Kind::Reads, QStringLiteral("%1 run lists the scripts").arg(program), c.how().cwd,
              !c.how().cwd.isEmpty());
        return true;
    }
    if (publishing(script) || script == QLatin1String("prepublish") ||
        script == QLatin1String("prepublishOnly")) {
        c.unknown(QStringLiteral("the script \"%1\" may publish or install").arg(script));
        return true;
    }
    c.project(QStringLiteral("runs the project's \"%1\" script (%2, from package.json)").arg(script, program),
              ProjectTools::nodeDefinitions());
    return true;
}

bool nodeManager(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const int at = subcommandIndex(args, words({"--prefix", "-C", "--cwd", "--filter", "-w", "--workspace"}));
    const QString sub = at < 0 ? QString() : args.at(at).text;
    const QStringList rest = at < 0 ? QStringList() : operandsAfter(args, at + 1);
    if (at >= 0 && !args.at(at).known) {
        c.unknown(QStringLiteral("%1's command expands (%2)").arg(program, sub));
        return true;
    }
    if (sub.isEmpty()) {
        if (program == QLatin1String("yarn") || program == QLatin1String("bun")) { // bare yarn installs
            if (!nodeInstallFromLock(c, program, args, at, sub))
                c.add(Effect::Kind::Installs,
                      QStringLiteral("installs the project's packages (%1)").arg(program));
        } else {
            c.add(Effect::Kind::Reads, QStringLiteral("%1 prints its help").arg(program));
        }
        return true;
    }
    if (sub == QLatin1String("exec") || sub == QLatin1String("x") || sub == QLatin1String("dlx"))
        return nodeExec(c, program, args, at, sub);
    static const QStringList lockInstalls = words({"install", "i", "ci", "clean-install", "install-clean"});
    if (lockInstalls.contains(sub) && rest.isEmpty() && nodeInstallFromLock(c, program, args, at, sub))
        return true;
    if (nodeInstallsOrPublishes(c, program, sub, rest))
        return true;
    if (nodeReadsOrChanges(c, program, args, at, sub, rest))
        return true;
    return nodeScript(c, program, args, sub, rest);
}

// npx NAME: a tool installed in the project (node_modules/.bin) runs as the project's; anything
// else is fetched from the registry first.
bool npx(CommandCatalog &c, const QList<Arg> &args)
{
    qsizetype k = 1;
    while (k < args.size() && CommandCatalog::isOption(args.at(k))) {
        const QString o = args.at(k).text;
        if ((o == QLatin1String("-c") || o == QLatin1String("--call")) && k + 1 < args.size()) {
            c.readLine(args.at(k + 1).text, c.how().cwd);
            return true;
        }
        if (o == QLatin1String("-p") || o.startsWith(QLatin1String("--package"))) {
            c.add(Effect::Kind::Installs,
                  QStringLiteral("fetches and runs a package (npx %1)").arg(args.value(k + 1).text));
            return true;
        }
        ++k;
    }
    if (k >= args.size()) {
        c.unknown(QStringLiteral("npx with no command"));
        return true;
    }
    const Arg &tool = args.at(k);
    bool local = false;
    if (tool.known && !tool.text.contains(QLatin1Char('/')) && !tool.text.contains(QLatin1Char('@')) &&
        !c.how().cwd.isEmpty()) {
        for (QDir dir(c.how().cwd);;) {
            if (QFileInfo::exists(dir.filePath(QStringLiteral("node_modules/.bin/") + tool.text))) {
                local = true;
                break;
            }
            if (dir.exists(QStringLiteral(".git")) || !dir.cdUp())
                break;
        }
    }
    if (!local) {
        c.add(Effect::Kind::Installs,
              QStringLiteral("fetches %1 from the package registry and runs it (npx)").arg(tool.text));
        return true;
    }
    QList<Arg> inner = args.mid(k);
    if (!ProjectTools::read(c, tool.text, inner))
        c.unknown(QStringLiteral("npx %1 is not a tool Countersign knows").arg(tool.text));
    return true;
}

} // namespace

bool read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QStringList managers = words({"npm", "pnpm", "yarn", "bun"});
    if (managers.contains(program))
        return nodeManager(c, program, args);
    if (program == QLatin1String("npx") || program == QLatin1String("pnpx") ||
        program == QLatin1String("bunx"))
        return npx(c, args);
    return false;
}

} // namespace Countersign::Shell::NodeTools
