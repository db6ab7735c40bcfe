#include "gitcommand.h"

#include "gitoptions.h"

#include <QHash>

namespace Countersign::Shell::GitCommand {

using namespace Detail;

namespace {

// Each subcommand's reader (gitsubcommands.cpp): git takes no other, and an alias runs anything.
const QHash<QString, void (*)(GitCall &)> &gitReaders()
{
    static const QHash<QString, void (*)(GitCall &)> readers = [] {
        QHash<QString, void (*)(GitCall &)> r;
        const auto add = [&r](std::initializer_list<const char *> names, void (*reader)(GitCall &)) {
            for (const char *name : names)
                r.insert(QLatin1String(name), reader);
        };
        for (const QString &name : readOnlyCommands())
            r.insert(name, gitReadOnly);
        for (const QString &name : historyCommands())
            r.insert(name, gitHistory);
        add({"apply", "am"}, gitPatch);
        add({"add", "mv", "init", "commit", "merge", "cherry-pick", "revert", "notes", "format-patch",
             "bisect", "archive", "stage", "sparse-checkout"},
            gitCommitting);
        add({"checkout", "switch"}, gitCheckout);
        add({"restore"}, gitRestore);
        add({"reset"}, gitReset);
        add({"clean"}, gitClean);
        add({"stash"}, gitStash);
        add({"branch", "tag"}, gitBranch);
        add({"rm"}, gitRm);
        add({"rebase"}, gitRebase);
        add({"push", "fetch", "pull", "clone", "ls-remote", "submodule", "send-email", "request-pull", "lfs"},
            gitRemoteTalk);
        add({"remote"}, gitRemote);
        add({"config"}, gitConfig);
        add({"reflog"}, gitReflog);
        add({"worktree"}, gitWorktree);
        return r;
    }();
    return readers;
}

} // namespace

void read(CommandCatalog &c, const QList<Arg> &args)
{
    QString cwd = c.how().cwd;
    qsizetype k = 1;
    // Global options.
    for (; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            c.unknown(
                QStringLiteral("git is given an argument that expands before its command (%1)").arg(a.text));
            return;
        }
        if (!a.text.startsWith(QLatin1Char('-')))
            break;
        if (a.text == QLatin1String("-C") && k + 1 < args.size()) {
            cwd = CommandCatalog::absolute(args.at(++k), cwd);
            continue;
        }
        if (a.text == QLatin1String("-c") || a.text.startsWith(QLatin1String("--config-env")) ||
            a.text.startsWith(QLatin1String("--exec-path")) ||
            a.text.startsWith(QLatin1String("--git-dir")) ||
            a.text.startsWith(QLatin1String("--work-tree")) ||
            a.text.startsWith(QLatin1String("--namespace")) ||
            a.text.startsWith(QLatin1String("--super-prefix"))) {
            c.add(Effect::Kind::Environment,
                  QStringLiteral("git %1 changes which repository git uses or what it runs").arg(a.text));
            return;
        }
        static const QStringList harmless = words({"--no-pager",
                                                   "-P",
                                                   "--paginate",
                                                   "-p",
                                                   "--no-replace-objects",
                                                   "--literal-pathspecs",
                                                   "--glob-pathspecs",
                                                   "--noglob-pathspecs",
                                                   "--icase-pathspecs",
                                                   "--no-optional-locks",
                                                   "--bare",
                                                   "--version",
                                                   "-v",
                                                   "--help",
                                                   "-h",
                                                   "--html-path",
                                                   "--man-path",
                                                   "--info-path",
                                                   "--no-lazy-fetch",
                                                   "--no-advice"});
        if (!harmless.contains(a.text)) {
            c.unknown(QStringLiteral("git %1 is not a global option Countersign knows").arg(a.text));
            return;
        }
    }
    c.setCwd(cwd);
    if (k >= args.size()) {
        c.add(Effect::Kind::Reads, QStringLiteral("git prints its help"));
        return;
    }
    const QString sub = args.at(k).text;
    const QList<Arg> rest = args.mid(k + 1);
    const bool cwdKnown = !cwd.isEmpty();

    GitCall g{c, sub, rest, cwd, cwdKnown};
    if (const auto reader = gitReaders().value(sub))
        return reader(g);
    c.unknown(
        QStringLiteral("git %1 is not a git command Countersign knows (an alias runs anything)").arg(sub));
}

} // namespace Countersign::Shell::GitCommand
