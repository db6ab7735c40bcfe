// What each git subcommand does (GitCommand::read picks the reader by the subcommand's name).
#include "gitcommand.h"

#include "gitoptions.h"
#include "patchcommands.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace Countersign::Shell::GitCommand::Detail {

// The subcommands that only read the repository.
const QStringList &readOnlyCommands()
{
    static const QStringList readOnly =
        words({"status",       "diff",        "log",           "show",         "blame",         "annotate",
               "shortlog",     "describe",    "rev-parse",     "rev-list",     "ls-files",      "ls-tree",
               "cat-file",     "grep",        "show-ref",      "for-each-ref", "name-rev",      "merge-base",
               "cherry",       "whatchanged", "count-objects", "fsck",         "verify-commit", "verify-tag",
               "check-ignore", "check-attr",  "var",           "help",         "version",       "range-diff",
               "difftool",     "show-branch"});
    return readOnly;
}

// The subcommands that change the repository's own records.
const QStringList &historyCommands()
{
    static const QStringList history = words(
        {"gc", "prune", "filter-branch", "filter-repo", "update-ref", "replace", "repack", "symbolic-ref",
         "commit-tree", "read-tree", "checkout-index", "update-index", "hash-object", "maintenance"});
    return history;
}

void gitReadOnly(GitCall &g)
{
    if (g.sub == QLatin1String("var") && std::any_of(g.rest.cbegin(), g.rest.cend(), [](const Arg &a) {
            return a.text == QLatin1String("-l");
        })) {
        g.c.add(
            Effect::Kind::Secret,
            QStringLiteral("git var -l lists every setting, ~/.gitconfig's tokens and credentials included"));
        return;
    }
    CommandCatalog &c = g.c;
    const QString &sub = g.sub;
    const QList<Arg> &rest = g.rest;
    for (const Arg &a : rest) {
        if (!a.known || a.text.startsWith(QLatin1String("--out")) ||
            a.text.startsWith(QLatin1String("--ext")) || (sub == QLatin1String("difftool")) ||
            a.text.startsWith(QLatin1String("--open")) || a.text.startsWith(QLatin1String("--no-index")) ||
            a.text.startsWith(QLatin1String("--textconv")) ||
            (sub == QLatin1String("grep") &&
             (a.text.startsWith(QLatin1String("-O")) || a.text.startsWith(QLatin1String("--no-index")))) ||
            (sub == QLatin1String("cat-file") && a.text.startsWith(QLatin1String("--filters")))) {
            c.unknown(
                QStringLiteral("git %1 %2 writes a file, runs a program or reads outside the repository")
                    .arg(sub, a.text));
            return;
        }
        // A path given as an option's value (git blame --contents=FILE prints FILE) too.
        if (a.text.startsWith(QLatin1String("--")) && a.text.contains(QLatin1Char('='))) {
            const QString value = a.text.section(QLatin1Char('='), 1);
            if (value.startsWith(QLatin1Char('/')) || value.startsWith(QLatin1String("..")) ||
                value.startsWith(QLatin1Char('~')))
                c.addPath(Effect::Kind::Reads, QStringLiteral("git %1 reads %2").arg(sub, value),
                          Arg{value, a.known, false, {}});
        }
        // A path it is given is read like any other (a secret or a file in the home folder asks).
        if (!a.text.startsWith(QLatin1Char('-')) &&
            (a.text.startsWith(QLatin1Char('/')) || a.text.startsWith(QLatin1String("..")) ||
             a.text.contains(QLatin1String("/../"))))
            c.addPath(Effect::Kind::Reads, QStringLiteral("git %1 reads %2").arg(sub, a.text), a);
    }
    g.reads(QStringLiteral("git %1 reads the repository").arg(sub));
}

void gitPatch(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QString &sub = g.sub;
    const QList<Arg> &rest = g.rest;
    const QString &cwd = g.cwd;
    PatchCommands::gitApply(c, sub, rest, cwd);
}

void gitCommitting(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QString &sub = g.sub;
    const QList<Arg> &rest = g.rest;
    const Parsed p = parse(rest,
                           words({"--amend",
                                  "--all",
                                  "--message",
                                  "--file",
                                  "--fixup",
                                  "--squash",
                                  "--no-verify",
                                  "--abort",
                                  "--continue",
                                  "--quit",
                                  "--skip",
                                  "--signoff",
                                  "--allow-empty",
                                  "--patch",
                                  "--interactive",
                                  "--no-edit",
                                  "--edit",
                                  "--output",
                                  "--reuse-message",
                                  "--template",
                                  "--exec",
                                  "--strategy",
                                  "--author",
                                  "--date",
                                  "--force",
                                  "--update",
                                  "--intent-to-add",
                                  "--dry-run",
                                  "--verbose",
                                  "--quiet",
                                  "--ff",
                                  "--ff-only",
                                  "--no-ff",
                                  "--commit",
                                  "--no-commit",
                                  "--stat",
                                  "--no-stat",
                                  "--log",
                                  "--signoff",
                                  "--gpg-sign",
                                  "--mainline",
                                  "--keep-redundant-commits",
                                  "--allow-unrelated-histories",
                                  "--renormalize",
                                  "--ignore-errors",
                                  "--chmod",
                                  "--only",
                                  "--include",
                                  "--reset-author",
                                  "--no-gpg-sign",
                                  "--cleanup",
                                  "--trailer",
                                  "--porcelain",
                                  "--short",
                                  "--branch",
                                  "--long"}),
                           words({"m", "F", "C", "c", "o", "s", "X"}),
                           words({"--message", "--file", "--reuse-message", "--template", "--author",
                                  "--date", "--output", "--exec", "--strategy", "--fixup", "--squash"}));
    if (has(p, nullptr, "--amend")) {
        g.rewrites(QStringLiteral("git commit --amend replaces the last commit"));
        return;
    }
    if (has(p, nullptr, "--exec") || has(p, nullptr, "--template") || has(p, nullptr, "--file") ||
        has(p, "F") || has(p, "t") || has(p, "C") || has(p, "c") ||
        (sub == QLatin1String("add") && has(p, "f", "--force")) ||
        (sub == QLatin1String("mv") && has(p, "f", "--force")) || p.unknownOption) {
        c.unknown(QStringLiteral("git %1 with an option that reads a file or runs a program").arg(sub));
        return;
    }
    if (has(p, "o", "--output") || sub == QLatin1String("archive") || sub == QLatin1String("format-patch"))
        c.unknown(QStringLiteral("git %1 writes its output where it is told").arg(sub));
    if (sub == QLatin1String("init") || sub == QLatin1String("mv")) {
        for (const Arg &o : p.operands) // where the repository or the file lands
            c.addPath(Effect::Kind::Writes, QStringLiteral("git %1 writes %2").arg(sub, o.text), o);
    }
    if (sub == QLatin1String("bisect") && rest.value(0).text == QLatin1String("run")) {
        c.runInner(rest.mid(1));
        return;
    }
    g.writes(QStringLiteral("git %1 (the repository keeps what it had)").arg(sub));
}

void gitCheckout(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QString &sub = g.sub;
    const QList<Arg> &rest = g.rest;
    const QString &cwd = g.cwd;
    const bool cwdKnown = g.cwdKnown;
    const Parsed p =
        parse(rest,
              words({"--force", "--discard-changes", "--merge", "--detach", "--orphan", "--track",
                     "--no-track", "--create", "--force-create", "--guess", "--no-guess", "--quiet",
                     "--patch", "--ours", "--theirs", "--recurse-submodules", "--overwrite-ignore",
                     "--ignore-other-worktrees", "--pathspec-from-file"}),
              words({"b", "B", "c", "C"}),
              words({"--orphan", "--create", "--force-create", "--pathspec-from-file"}));
    if (p.unknownOption) {
        c.unknown(QStringLiteral("git %1 %2 is not an option Countersign knows").arg(sub, p.unknownText));
        return;
    }
    if (has(p, "f", "--force") || has(p, nullptr, "--discard-changes") || has(p, "m", "--merge") ||
        has(p, nullptr, "--pathspec-from-file") || has(p, "p", "--patch") || has(p, nullptr, "--ours") ||
        has(p, nullptr, "--theirs")) {
        g.discards(QStringLiteral("git %1 with --force or paths discards uncommitted changes").arg(sub));
        return;
    }
    if (has(p, "B") || has(p, "C") || has(p, nullptr, "--force-create")) {
        g.rewrites(QStringLiteral("git %1 -B moves an existing branch (its commits may be lost)").arg(sub));
        return;
    }
    const bool creates =
        has(p, "b") || has(p, "c") || has(p, nullptr, "--create") || has(p, nullptr, "--orphan");
    if (sub == QLatin1String("checkout") && !creates) {
        // checkout REV -- PATHS, checkout PATHS, checkout .: the paths' uncommitted changes are
        // discarded.
        bool paths = p.dashDash && p.dashDashAt < p.operands.size();
        for (qsizetype i = 0; i < p.operands.size() && !paths; ++i) {
            const Arg &o = p.operands.at(i);
            if (!o.known || o.glob) {
                paths = true;
                break;
            }
            if (i > 0 || o.text == QLatin1String(".") || o.text.contains(QLatin1Char('/')) ||
                (cwdKnown && QFileInfo::exists(QDir(cwd).filePath(o.text))))
                paths = true;
        }
        if (paths) {
            g.discards(QStringLiteral("git checkout of paths discards their uncommitted changes"));
            return;
        }
    }
    g.writes(QStringLiteral("git %1 changes branch (uncommitted changes are kept)").arg(sub));
}

void gitRestore(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QList<Arg> &rest = g.rest;
    const Parsed p =
        parse(rest,
              words({"--staged", "--worktree", "--source", "--patch", "--ours", "--theirs", "--merge",
                     "--ignore-unmerged", "--quiet", "--progress", "--overlay", "--no-overlay"}),
              words({"s"}), words({"--source"}));
    if (p.unknownOption) {
        c.unknown(QStringLiteral("git restore %1 is not an option Countersign knows").arg(p.unknownText));
        return;
    }
    const bool staged = has(p, "S", "--staged");
    const bool worktree = has(p, "W", "--worktree") || !staged;
    if (worktree)
        g.discards(QStringLiteral("git restore discards the uncommitted changes of the paths it names"));
    else
        g.writes(QStringLiteral("git restore --staged unstages (the files keep their changes)"));
}

void gitReset(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QList<Arg> &rest = g.rest;
    const QString &cwd = g.cwd;
    const Parsed p = parse(
        rest,
        words({"--soft", "--mixed", "--hard", "--merge", "--keep", "--quiet", "--patch", "--intent-to-add",
               "--no-refresh", "--refresh", "--recurse-submodules", "--pathspec-from-file"}),
        {}, words({"--pathspec-from-file"}));
    if (p.unknownOption) {
        c.unknown(QStringLiteral("git reset %1 is not an option Countersign knows").arg(p.unknownText));
        return;
    }
    if (has(p, nullptr, "--hard") || has(p, nullptr, "--merge") || has(p, nullptr, "--keep") ||
        has(p, nullptr, "--recurse-submodules")) {
        g.discards(QStringLiteral("git reset --hard discards every uncommitted change"));
        return;
    }
    for (const QString &f : p.shortFlags) {
        if (f != QLatin1String("q") && f != QLatin1String("N")) {
            c.unknown(QStringLiteral("git reset -%1 is not an option Countersign knows").arg(f));
            return;
        }
    }
    // A commit named (not HEAD itself, not a path: those only unstage) moves the branch there:
    // the commits after it leave the branch (git reset --soft HEAD~1 drops the last one).
    // With paths after "--" it only sets the index from that commit.
    const bool withPaths = p.dashDash && p.dashDashAt < p.operands.size();
    const qsizetype revisions = withPaths ? 0 : p.dashDash ? p.dashDashAt : p.operands.size();
    for (qsizetype at = 0; at < revisions; ++at) {
        const Arg &o = p.operands.at(at);
        const bool isPath = o.known && !cwd.isEmpty() && QFileInfo::exists(QDir(cwd).filePath(o.text));
        if (!isPath && o.text != QLatin1String("HEAD") && o.text != QLatin1String("@")) {
            g.rewrites(QStringLiteral("git reset %1 moves the branch to another commit: the commits after it "
                                      "leave the branch")
                           .arg(o.text.left(80)));
            return;
        }
    }
    g.writes(QStringLiteral("git reset moves the branch and the index; the files keep their changes"));
}

void gitClean(GitCall &g)
{
    const QList<Arg> &rest = g.rest;
    const Parsed p = parse(rest, words({"--dry-run", "--force", "--interactive", "--quiet", "--exclude"}),
                           words({"e"}), words({"--exclude"}));
    if (has(p, "n", "--dry-run") && !has(p, "f", "--force")) {
        g.reads(QStringLiteral("git clean -n lists what it would delete"));
        return;
    }
    g.discards(QStringLiteral("git clean deletes untracked files%1")
                   .arg(has(p, "x") ? QStringLiteral(" and ignored ones") : QString()));
}

void gitStash(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QList<Arg> &rest = g.rest;
    const QString action = rest.isEmpty() || rest.first().text.startsWith(QLatin1Char('-'))
                               ? QStringLiteral("push")
                               : rest.first().text;
    if (action == QLatin1String("list") || action == QLatin1String("show")) {
        g.reads(QStringLiteral("git stash %1").arg(action));
    } else if (action == QLatin1String("drop") || action == QLatin1String("clear")) {
        g.discards(QStringLiteral("git stash %1 deletes stashed work").arg(action));
    } else if (std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
                   return a.text == QLatin1String("-a") || a.text.startsWith(QLatin1String("--all")) ||
                          a.text.startsWith(QLatin1String("--only-untracked")) ||
                          a.text == QLatin1String("-u") ||
                          a.text.startsWith(QLatin1String("--include-untracked"));
               })) {
        c.unknown(QStringLiteral(
            "git stash with untracked or ignored files (.env among them) moves or prints them"));
    } else if (action == QLatin1String("push") || action == QLatin1String("save") ||
               action == QLatin1String("pop") || action == QLatin1String("apply") ||
               action == QLatin1String("branch") || action == QLatin1String("create") ||
               action == QLatin1String("store")) {
        g.writes(QStringLiteral("git stash %1 (the work is kept in the stash or the tree)").arg(action));
    } else {
        c.unknown(QStringLiteral("git stash %1 is not a form Countersign knows").arg(action));
    }
}

void gitBranch(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QString &sub = g.sub;
    const QList<Arg> &rest = g.rest;
    const Parsed p = parse(rest,
                           words({"--delete",
                                  "--force",
                                  "--move",
                                  "--copy",
                                  "--list",
                                  "--all",
                                  "--remotes",
                                  "--verbose",
                                  "--show-current",
                                  "--merged",
                                  "--no-merged",
                                  "--contains",
                                  "--no-contains",
                                  "--points-at",
                                  "--sort",
                                  "--format",
                                  "--track",
                                  "--no-track",
                                  "--set-upstream-to",
                                  "--unset-upstream",
                                  "--edit-description",
                                  "--annotate",
                                  "--sign",
                                  "--message",
                                  "--column",
                                  "--quiet",
                                  "--color",
                                  "--no-color",
                                  "--abbrev"}),
                           words({"m", "M", "u", "n"}),
                           words({"--sort", "--format", "--set-upstream-to", "--message", "--contains",
                                  "--merged", "--no-merged", "--points-at", "--no-contains"}));
    if (p.unknownOption) {
        c.unknown(QStringLiteral("git %1 %2 is not an option Countersign knows").arg(sub, p.unknownText));
        return;
    }
    if (has(p, "D") ||
        ((has(p, "d", "--delete")) && (has(p, "f", "--force") || sub == QLatin1String("tag")))) {
        g.rewrites(QStringLiteral("git %1 -D deletes %2 and the commits only it holds").arg(sub, sub));
        return;
    }
    if (has(p, "M") || has(p, "C") || (has(p, "f", "--force") && !p.operands.isEmpty())) {
        g.rewrites(QStringLiteral("git %1 --force overwrites an existing %1").arg(sub));
        return;
    }
    if (has(p, nullptr, "--edit-description") || has(p, "F") ||
        std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
            return a.text.startsWith(QLatin1String("--file")) || a.text.startsWith(QLatin1String("-F"));
        })) {
        c.unknown(QStringLiteral("git branch --edit-description opens an editor"));
        return;
    }
    if (p.operands.isEmpty() || has(p, "l", "--list") || has(p, "a", "--all") || has(p, "r", "--remotes") ||
        has(p, nullptr, "--show-current"))
        g.reads(QStringLiteral("git %1 lists").arg(sub));
    else
        g.writes(QStringLiteral("git %1 makes or renames a %1").arg(sub));
}

void gitRm(GitCall &g)
{
    const QList<Arg> &rest = g.rest;
    const Parsed p = parse(rest, words({"--cached", "--force", "--recursive", "--dry-run", "--quiet",
                                        "--ignore-unmatch", "--pathspec-from-file"}));
    if (has(p, "n", "--dry-run"))
        g.reads(QStringLiteral("git rm -n lists what it would remove"));
    else if (has(p, "f", "--force"))
        g.discards(QStringLiteral("git rm -f deletes files with their uncommitted changes"));
    else
        g.writes(
            QStringLiteral("git rm removes files git keeps (it refuses files with uncommitted changes)"));
}

void gitRebase(GitCall &g)
{
    const QList<Arg> &rest = g.rest;
    const Parsed p =
        parse(rest, words({"--continue", "--abort", "--quit", "--skip", "--show-current-patch"}));
    if (has(p, nullptr, "--continue") || has(p, nullptr, "--abort") || has(p, nullptr, "--quit") ||
        has(p, nullptr, "--skip") || has(p, nullptr, "--show-current-patch"))
        g.writes(QStringLiteral("git rebase goes on with or ends a rebase"));
    else
        g.rewrites(QStringLiteral("git rebase rewrites the branch's commits"));
}

void gitRemoteTalk(GitCall &g)
{
    const QString &sub = g.sub;
    g.network(sub == QLatin1String("push") ? QStringLiteral("git push sends commits to a remote")
                                           : QStringLiteral("git %1 talks to a remote").arg(sub));
}

void gitRemote(GitCall &g)
{
    const QString first = g.rest.value(0).text;
    if (first == QLatin1String("update") || first == QLatin1String("prune") || first == QLatin1String("show"))
        return gitRemoteTalk(g);
    CommandCatalog &c = g.c;
    const QList<Arg> &rest = g.rest;
    const QString &cwd = g.cwd;
    const bool cwdKnown = g.cwdKnown;
    const QString action =
        rest.isEmpty() || rest.first().text.startsWith(QLatin1Char('-')) ? QString() : rest.first().text;
    if (action.isEmpty() || action == QLatin1String("get-url"))
        g.reads(QStringLiteral("git remote lists the remotes"));
    else
        c.add(Effect::Kind::Writes,
              QStringLiteral("git remote %1 changes the repository's settings").arg(action),
              cwdKnown ? cwd + QStringLiteral("/.git/config") : QString(), cwdKnown);
}

void gitConfig(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QList<Arg> &rest = g.rest;
    const QString &cwd = g.cwd;
    config(c, rest, cwd);
}

void gitReflog(GitCall &g)
{
    const QList<Arg> &rest = g.rest;
    const QString action = rest.value(0).text;
    if (action.isEmpty() || action == QLatin1String("show") || action.startsWith(QLatin1Char('-')) ||
        action == QLatin1String("exists"))
        g.reads(QStringLiteral("git reflog shows"));
    else
        g.rewrites(QStringLiteral("git reflog %1 drops the record of old commits").arg(action));
}

void gitWorktree(GitCall &g)
{
    CommandCatalog &c = g.c;
    const QList<Arg> &rest = g.rest;
    const QString action = rest.value(0).text;
    if (action == QLatin1String("list"))
        g.reads(QStringLiteral("git worktree list"));
    else if (action == QLatin1String("add")) {
        for (const Arg &o : rest.mid(1)) {
            if (!o.text.startsWith(QLatin1Char('-'))) {
                c.addPath(Effect::Kind::Writes, QStringLiteral("git worktree add writes %1").arg(o.text), o);
                break;
            }
        }
        g.writes(QStringLiteral("git worktree add"));
    } else if (action == QLatin1String("lock") || action == QLatin1String("unlock"))
        g.writes(QStringLiteral("git worktree %1").arg(action));
    else
        g.discards(QStringLiteral("git worktree %1 deletes a work tree").arg(action));
}

void gitHistory(GitCall &g)
{
    const QString &sub = g.sub;
    g.rewrites(QStringLiteral("git %1 changes the repository's own records").arg(sub));
}

} // namespace Countersign::Shell::GitCommand::Detail
