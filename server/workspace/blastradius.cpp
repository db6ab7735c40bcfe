#include "blastradius.h"

#include "git.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Countersign {

using Shell::Effect;
using json = nlohmann::json;

namespace {

QString sizeText(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

QString plural(qsizetype n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

// The files (and folders) at path, as rm -r would meet them: links not followed, at most max.
struct Walk final
{
    QStringList files;
    int folders = 0;
    qint64 bytes = 0;
    bool atLeast = false;
};

Walk walk(const QString &path, int max)
{
    Walk w;
    const QFileInfo top(path);
    if (!top.isDir() || top.isSymLink()) {
        if (top.exists() || top.isSymLink()) {
            w.files.append(path);
            w.bytes = top.isSymLink() ? 0 : top.size();
        }
        return w;
    }
    w.folders = 1;
    QDirIterator it(path, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString entry = it.next();
        const QFileInfo info = it.fileInfo();
        if (info.isDir() && !info.isSymLink()) {
            ++w.folders;
            continue;
        }
        if (w.files.size() >= max) {
            w.atLeast = true;
            break;
        }
        w.files.append(entry);
        w.bytes += info.isSymLink() ? 0 : info.size();
    }
    return w;
}

QStringList listed(const QStringList &files, const QString &base)
{
    QStringList out;
    for (const QString &f : files.mid(0, BlastRadius::kListed))
        out.append(QDir(base).relativeFilePath(f));
    if (files.size() > BlastRadius::kListed)
        out.append(QStringLiteral("and %1 more").arg(files.size() - BlastRadius::kListed));
    return out;
}

void measureDeletion(BlastRadius &r, const Effect &e, const QString &home)
{
    Q_UNUSED(home)
    if (!e.pathKnown || e.path.isEmpty() || e.glob) {
        r.unmeasured = true;
        r.deletesAll = false;
        r.sentences.append(QStringLiteral("%1: what it deletes is only known when it runs.").arg(e.what));
        return;
    }
    const Walk w = walk(e.path, BlastRadius::kMaxFiles);
    if (w.files.isEmpty() && w.folders == 0) {
        r.sentences.append(QStringLiteral("%1: nothing is there now.").arg(QDir::toNativeSeparators(e.path)));
        r.detail.push_back({{"kind", "delete"}, {"path", e.path.toStdString()}, {"files", 0}});
        return;
    }
    // Which of them git can bring back: tracked and unchanged (checked for the first 500).
    const QStringList checked = w.files.mid(0, 500);
    const Git::LossReport loss = Git::lossReport(checked);
    const qsizetype gone = loss.inWorkTree ? loss.untracked.size() + loss.uncommitted.size() : checked.size();
    const qsizetype restorable = checked.size() - gone;
    const bool partial = w.atLeast || checked.size() < w.files.size();
    QString sentence =
        QStringLiteral("Deletes %1: %2%3%4 (%5)")
            .arg(QDir::toNativeSeparators(e.path), partial ? QStringLiteral("at least ") : QString(),
                 plural(w.files.size(), "file", "files"),
                 w.folders > 0 ? QStringLiteral(" in %1").arg(plural(w.folders, "folder", "folders"))
                               : QString(),
                 sizeText(w.bytes));
    if (checked.size() < w.files.size())
        sentence += QStringLiteral("; of the first %1 checked,").arg(checked.size());
    else
        sentence += QLatin1Char(';');
    sentence +=
        gone > 0 ? QStringLiteral(" %1 git cannot bring back (%2 untracked or ignored, %3 with uncommitted "
                                  "changes)")
                       .arg(gone)
                       .arg(loss.inWorkTree ? loss.untracked.size() : checked.size())
                       .arg(loss.uncommitted.size())
                 : QStringLiteral(" git can bring %1 back")
                       .arg(restorable == 1 ? QStringLiteral("it") : QStringLiteral("them all"));
    if (partial && gone == 0)
        sentence += QStringLiteral(" (of those checked)");
    r.sentences.append(sentence + QLatin1Char('.'));
    r.lost = r.lost || gone > 0 || partial;
    r.deletes += w.files;
    r.deletesAll = r.deletesAll && !w.atLeast;
    json first = json::array();
    for (const QString &f : listed(w.files, e.path.section(QLatin1Char('/'), 0, -2)))
        first.push_back(f.toStdString());
    r.detail.push_back({{"kind", "delete"},
                        {"path", e.path.toStdString()},
                        {"files", w.files.size()},
                        {"folders", w.folders},
                        {"bytes", w.bytes},
                        {"atLeast", partial},
                        {"lostForGood", gone},
                        {"restorable", restorable},
                        {"first", first}});
}

void measureDiscard(BlastRadius &r, const Effect &e, const QStringList &paths)
{
    const Git::Uncommitted changes = Git::uncommitted(e.cwd, paths);
    if (!changes.error.isEmpty()) {
        r.unmeasured = true;
        r.deletesAll = false;
        r.sentences.append(QStringLiteral("%1: not measured (%2).").arg(e.what, changes.error));
        return;
    }
    int added = 0, removed = 0;
    QStringList names;
    json files = json::array();
    for (const Git::FileChange &f : changes.files) {
        added += f.added;
        removed += f.removed;
        names.append(QStringLiteral("%1 (+%2 −%3)").arg(f.path).arg(f.added).arg(f.removed));
        files.push_back({{"path", f.path.toStdString()}, {"added", f.added}, {"removed", f.removed}});
        r.deletes.append(QDir(changes.workTree).filePath(f.path)); // what it holds now is discarded
    }
    if (changes.files.isEmpty()) {
        r.sentences.append(QStringLiteral("Discards nothing: no uncommitted change is there now."));
    } else {
        r.lost = true;
        r.sentences.append(
            QStringLiteral("Discards the uncommitted changes in %1 (+%2 −%3 lines), which git cannot "
                           "bring back: %4.")
                .arg(plural(changes.files.size(), "file", "files"))
                .arg(added)
                .arg(removed)
                .arg(names.mid(0, BlastRadius::kListed).join(QStringLiteral(", ")) +
                     (names.size() > BlastRadius::kListed
                          ? QStringLiteral(" and %1 more").arg(names.size() - BlastRadius::kListed)
                          : QString())));
    }
    r.diff += changes.diff;
    if (changes.truncated)
        r.diff += QStringLiteral("\n(the diff goes on; only its first part is shown)\n");
    r.detail.push_back({{"kind", "discard"}, {"folder", e.cwd.toStdString()}, {"files", files}});
}

void measureClean(BlastRadius &r, const Effect &e, bool ignoredToo)
{
    const Walk w = walk(e.cwd, BlastRadius::kMaxFiles);
    QStringList candidates;
    for (const QString &f : w.files) {
        if (!f.contains(QLatin1String("/.git/")))
            candidates.append(f);
    }
    const Git::LossReport loss = Git::lossReport(candidates.mid(0, 500));
    QStringList deleted;
    for (const QString &f : loss.untracked) {
        if (ignoredToo || !loss.ignored.contains(f))
            deleted.append(f);
    }
    r.deletes += deleted;
    r.deletesAll = r.deletesAll && !w.atLeast && candidates.size() <= 500;
    r.lost = r.lost || !deleted.isEmpty();
    r.sentences.append(deleted.isEmpty()
                           ? QStringLiteral("Deletes no file: nothing untracked is there now.")
                           : QStringLiteral("Deletes %1 git does not keep: %2.")
                                 .arg(plural(deleted.size(), "untracked file", "untracked files"),
                                      listed(deleted, e.cwd).join(QStringLiteral(", "))));
    json files = json::array();
    for (const QString &f : deleted)
        files.push_back(QDir(e.cwd).relativeFilePath(f).toStdString());
    r.detail.push_back({{"kind", "clean"}, {"folder", e.cwd.toStdString()}, {"files", files}});
}

void measureStash(BlastRadius &r, const Effect &e)
{
    const Git::Stashes all = Git::stashes(e.cwd);
    if (!all.error.isEmpty()) {
        r.unmeasured = true;
        r.sentences.append(QStringLiteral("%1: not measured (%2).").arg(e.what, all.error));
        return;
    }
    // drop [stash@{N}] drops one (the newest when none is named); clear drops them all.
    QList<Git::Stash> dropped = all.stashes;
    if (e.argv.contains(QStringLiteral("drop")) || e.argv.contains(QStringLiteral("pop"))) {
        int index = 0;
        for (const QString &a : e.argv) {
            static const QRegularExpression named(QStringLiteral("^(?:stash@\\{)?(\\d+)\\}?$"));
            if (const auto m = named.match(a); m.hasMatch())
                index = m.captured(1).toInt();
        }
        dropped.clear();
        for (const Git::Stash &s : all.stashes) {
            if (s.index == index)
                dropped.append(s);
        }
    }
    json detail = json::array();
    QStringList said;
    for (const Git::Stash &s : dropped) {
        said.append(QStringLiteral("stash@{%1} \"%2\" (%3, +%4 −%5)")
                        .arg(s.index)
                        .arg(s.message, plural(s.files, "file", "files"))
                        .arg(s.added)
                        .arg(s.removed));
        detail.push_back({{"index", s.index},
                          {"message", s.message.toStdString()},
                          {"files", s.files},
                          {"added", s.added},
                          {"removed", s.removed}});
    }
    r.lost = r.lost || !dropped.isEmpty();
    r.lostBeyondFiles = r.lostBeyondFiles || !dropped.isEmpty();
    r.sentences.append(dropped.isEmpty()
                           ? QStringLiteral("Drops no stash: there is none to drop.")
                           : QStringLiteral("Drops %1 for good: %2.")
                                 .arg(plural(dropped.size(), "stash", "stashes"),
                                      said.mid(0, BlastRadius::kListed).join(QStringLiteral(", "))));
    r.detail.push_back({{"kind", "stash"}, {"folder", e.cwd.toStdString()}, {"stashes", detail}});
}

void measureBranch(BlastRadius &r, const Effect &e)
{
    // The branch named: the last operand after the options.
    QString branch;
    for (const QString &a : e.argv.mid(2)) {
        if (!a.startsWith(QLatin1Char('-')))
            branch = a;
    }
    const Git::BranchLoss loss = Git::branchLoss(e.cwd, branch);
    if (!loss.error.isEmpty()) {
        r.unmeasured = true;
        r.sentences.append(QStringLiteral("%1: not measured (%2).").arg(e.what, loss.error));
        return;
    }
    r.lost = r.lost || loss.count > 0;
    r.lostBeyondFiles = r.lostBeyondFiles || loss.count > 0;
    r.sentences.append(
        loss.count == 0
            ? QStringLiteral("Deletes the branch %1; every commit of it is on another branch.").arg(branch)
            : QStringLiteral("Deletes the branch %1 and %2 no other branch holds: %3.")
                  .arg(branch, plural(loss.count, "commit", "commits"),
                       loss.subjects.join(QStringLiteral("; "))));
    json subjects = json::array();
    for (const QString &s : loss.subjects)
        subjects.push_back(s.toStdString());
    r.detail.push_back({{"kind", "branch"},
                        {"branch", branch.toStdString()},
                        {"commits", loss.count},
                        {"subjects", subjects}});
}

// One destination of a push: the local revision pushed (empty for a deletion) and the remote
// branch it lands on, and whether it may overwrite what is there.
struct PushTarget final
{
    QString source;
    QString branch;
    bool forced = false;
    bool deleting = false;
};

QString shortBranch(QString ref)
{
    for (const char *prefix : {"refs/heads/", "heads/"}) {
        if (ref.startsWith(QLatin1String(prefix)))
            return ref.mid(int(qstrlen(prefix)));
    }
    return ref;
}

// git push [options] [remote [refspec...]]: what a forced push (--force, -f, --force-with-lease,
// --force-if-includes, a +refspec) would overwrite on the remote, and what a deletion (--delete,
// :branch) would delete, from the remote-tracking branches and when they were last fetched. A
// push that cannot overwrite anything (not forced, nothing deleted) loses nothing.
void measurePush(BlastRadius &r, const Effect &e)
{
    const qsizetype at = e.argv.indexOf(QStringLiteral("push"));
    bool forced = false;
    bool deleting = false;
    bool everything = false;
    QStringList operands;
    static const QStringList valued = {QStringLiteral("--repo"), QStringLiteral("-o"),
                                       QStringLiteral("--push-option"), QStringLiteral("--receive-pack"),
                                       QStringLiteral("--exec")};
    const QStringList args = e.argv.mid(at + 1);
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--")) {
            operands += args.mid(i + 1);
            break;
        }
        if (valued.contains(a)) {
            ++i;
        } else if (a == QLatin1String("--force") || a.startsWith(QLatin1String("--force-with-lease")) ||
                   a == QLatin1String("--force-if-includes")) {
            forced = true;
        } else if (a == QLatin1String("--delete")) {
            deleting = true;
        } else if (a == QLatin1String("--all") || a == QLatin1String("--mirror") ||
                   a == QLatin1String("--prune") || a == QLatin1String("--branches")) {
            everything = true;
        } else if (a.startsWith(QLatin1String("--"))) {
            continue;
        } else if (a.startsWith(QLatin1Char('-')) && a.size() > 1) {
            forced = forced || a.contains(QLatin1Char('f'));
            deleting = deleting || a.contains(QLatin1Char('d'));
        } else {
            operands.append(a);
        }
    }
    const Git::Current here = Git::current(e.cwd);
    const QString remote = operands.isEmpty() ? here.remote : operands.first();
    QList<PushTarget> targets;
    const QStringList refspecs = operands.mid(1);
    for (const QString &spec : refspecs) {
        PushTarget t;
        QString rest = spec;
        t.forced = forced || rest.startsWith(QLatin1Char('+'));
        if (rest.startsWith(QLatin1Char('+')))
            rest = rest.mid(1);
        const qsizetype colon = rest.indexOf(QLatin1Char(':'));
        t.source = colon < 0 ? rest : rest.left(colon);
        t.branch = shortBranch(colon < 0 ? rest : rest.mid(colon + 1));
        if (t.source == QLatin1String("HEAD") && colon < 0)
            t.branch = here.branch;
        t.deleting = deleting || (colon >= 0 && t.source.isEmpty());
        if (t.deleting)
            t.branch = shortBranch(colon < 0 ? rest : rest.mid(colon + 1));
        targets.append(t);
    }
    if (refspecs.isEmpty() && !everything) // push.default: the current branch, to its namesake
        targets.append({here.branch, here.branch, forced, deleting});
    if (everything && (forced || deleting)) {
        r.unmeasured = true;
        r.sentences.append(QStringLiteral("%1: a forced push of every branch is not measured.").arg(e.what));
        return;
    }
    json detail = json::array();
    for (const PushTarget &t : targets) {
        if (!t.forced && !t.deleting)
            continue;
        if (t.branch.isEmpty() || (!t.deleting && t.source.isEmpty())) {
            r.unmeasured = true;
            r.sentences.append(
                QStringLiteral("%1: which remote branch it overwrites is not known.").arg(e.what));
            continue;
        }
        const QString tracking = remote + QLatin1Char('/') + t.branch;
        const Git::RemoteLoss loss = Git::remoteLoss(e.cwd, remote, t.branch, t.source, t.deleting);
        if (!loss.error.isEmpty() || !loss.known) {
            r.unmeasured = true;
            r.sentences.append(
                loss.known ? QStringLiteral("%1: not measured (%2).").arg(e.what, loss.error)
                           : QStringLiteral("%1 on %2, which was never fetched here: what the remote holds "
                                            "there cannot be measured.")
                                 .arg(t.deleting ? QStringLiteral("Deletes %1").arg(t.branch)
                                                 : QStringLiteral("Overwrites %1").arg(t.branch),
                                      remote));
            continue;
        }
        const QString fetched =
            loss.fetchedMs > 0 ? QStringLiteral("%1 as last fetched %2 UTC")
                                     .arg(tracking, QDateTime::fromMSecsSinceEpoch(loss.fetchedMs, Qt::UTC)
                                                        .toString(QStringLiteral("yyyy-MM-dd HH:mm")))
                               : QStringLiteral("%1 (when it was last fetched is not known)").arg(tracking);
        r.lost = r.lost || loss.count > 0;
        r.lostBeyondFiles = r.lostBeyondFiles || loss.count > 0;
        if (loss.count == 0)
            r.sentences.append(
                t.deleting ? QStringLiteral("Deletes %1; every commit of it is on a local branch (%2).")
                                 .arg(tracking, fetched)
                           : QStringLiteral("Overwrites %1 with %2; nothing there is lost: %2 holds "
                                            "every commit of %3.")
                                 .arg(tracking, t.source, fetched));
        else
            r.sentences.append(QStringLiteral("%1 %2 and %3 that %4: %5.")
                                   .arg(t.deleting ? QStringLiteral("Deletes") : QStringLiteral("Overwrites"),
                                        fetched, plural(loss.count, "commit", "commits"),
                                        t.deleting ? QStringLiteral("no local branch holds")
                                                   : QStringLiteral("%1 does not hold").arg(t.source),
                                        loss.subjects.join(QStringLiteral("; "))));
        json subjects = json::array();
        for (const QString &subject : loss.subjects)
            subjects.push_back(subject.toStdString());
        detail.push_back({{"remote", remote.toStdString()},
                          {"branch", t.branch.toStdString()},
                          {"source", t.source.toStdString()},
                          {"deleting", t.deleting},
                          {"commits", loss.count},
                          {"subjects", subjects},
                          {"fetchedMs", loss.fetchedMs}});
    }
    if (!detail.empty())
        r.detail.push_back({{"kind", "push"}, {"folder", e.cwd.toStdString()}, {"targets", detail}});
}

// A write the card asks about (outside the roots, or a file that changes what runs later): what
// the file holds now, and whether the write replaces it (>, cp onto it, sed -i) or adds to it (>>).
// What a replacement loses is shown as the lines it removes, and counted lost unless git holds
// the file as it is.
void measureWrite(BlastRadius &r, const Effect &e)
{
    if (!e.pathKnown || e.path.isEmpty() || e.glob) {
        r.unmeasured = true;
        r.sentences.append(
            QStringLiteral("%1: which file it writes is only known when it runs.").arg(e.what));
        return;
    }
    const QString shown = QDir::toNativeSeparators(e.path);
    const QFileInfo info(e.path);
    // Only a redirection with >> is known to add; any other writer (rsync, a decoder's -o) may
    // replace what is there, and is measured as a replacement.
    const bool appends = !e.replaces && e.what.endsWith(QLatin1String("(>>)"));
    json detail = {{"kind", "write"}, {"path", e.path.toStdString()}, {"replaces", !appends}};
    if (info.isSymLink()) {
        r.unmeasured = true;
        r.sentences.append(QStringLiteral("Writes %1, a link to %2: the write goes there.")
                               .arg(shown, QDir::toNativeSeparators(info.symLinkTarget())));
        r.detail.push_back(detail);
        return;
    }
    if (!info.exists()) {
        r.sentences.append(QStringLiteral("Creates %1; nothing is there now.").arg(shown));
        detail["exists"] = false;
        r.detail.push_back(detail);
        return;
    }
    if (!info.isFile()) {
        r.unmeasured = true;
        r.sentences.append(QStringLiteral("Writes %1, which is not a regular file.").arg(shown));
        r.detail.push_back(detail);
        return;
    }
    constexpr qint64 kShownBytes = 64 * 1024;
    // Read as it is now, never through a link nor blocking on a FIFO swapped in since the check.
    QByteArray before;
    if (const int fd =
            ::open(QFile::encodeName(e.path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        fd >= 0) {
        struct stat st;
        QFile file;
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle))
            before = file.read(kShownBytes + 1);
        else
            ::close(fd);
    }
    const qsizetype lines = before.count('\n') + (before.isEmpty() || before.endsWith('\n') ? 0 : 1);
    const QString holds = QStringLiteral("%1%2, %3")
                              .arg(info.size() > kShownBytes ? QStringLiteral("at least ") : QString(),
                                   plural(lines, "line", "lines"), sizeText(info.size()));
    detail["bytes"] = info.size();
    detail["lines"] = lines;
    if (appends) {
        r.sentences.append(
            QStringLiteral("Adds to %1 (it holds %2 now); nothing in it is lost.").arg(shown, holds));
        r.detail.push_back(detail);
        return;
    }
    const Git::LossReport loss = Git::lossReport({e.path});
    const bool restorable = loss.inWorkTree && loss.untracked.isEmpty() && loss.uncommitted.isEmpty();
    const bool lost = !restorable && info.size() > 0;
    r.lost = r.lost || lost;
    r.deletes.append(e.path);
    r.sentences.append(
        restorable ? QStringLiteral("Replaces what %1 holds (%2); git can bring it back.").arg(shown, holds)
        : lost     ? QStringLiteral("Replaces what %1 holds (%2), which git cannot bring back: "
                                        "the lines it loses are in the diff.")
                     .arg(shown, holds)
               : QStringLiteral("Replaces %1, which is empty now.").arg(shown));
    if (lost) {
        r.diff += QStringLiteral("--- %1 (what it holds now, which the write replaces)\n").arg(shown);
        if (Git::looksBinary(before)) {
            r.diff += QStringLiteral("(binary, %1)\n").arg(sizeText(info.size()));
        } else {
            const QString text = QString::fromUtf8(before.left(kShownBytes));
            for (const QString &line : text.split(QLatin1Char('\n')).mid(0, lines))
                r.diff += QLatin1Char('-') + line + QLatin1Char('\n');
            if (info.size() > kShownBytes)
                r.diff += QStringLiteral("… and the rest of its %1\n").arg(sizeText(info.size()));
        }
    }
    detail["restorable"] = restorable;
    r.detail.push_back(detail);
}

} // namespace

BlastRadius BlastRadius::of(const QList<Effect> &effects, const QString &home, const QStringList &writesAsked)
{
    BlastRadius r;
    for (const Effect &e : effects) {
        const bool git = e.argv.value(0) == QLatin1String("git");
        // A write the card asks about, or one whose file is a pattern or only known when it runs
        // in a line that asks about a write.
        if (e.kind == Effect::Kind::Writes &&
            (writesAsked.contains(e.path) || (!writesAsked.isEmpty() && (e.glob || !e.pathKnown)))) {
            measureWrite(r, e);
        } else if (e.kind == Effect::Kind::Deletes && !git) {
            measureDeletion(r, e, home);
        } else if (e.kind == Effect::Kind::Deletes && git && !e.cwd.isEmpty()) {
            const QStringList argv = e.argv;
            if (argv.contains(QStringLiteral("stash"))) {
                measureStash(r, e);
            } else if (argv.contains(QStringLiteral("clean"))) {
                measureClean(r, e, std::any_of(argv.cbegin(), argv.cend(), [](const QString &a) {
                                 return a.startsWith(QLatin1Char('-')) &&
                                        !a.startsWith(QLatin1String("--")) && a.contains(QLatin1Char('x'));
                             }));
            } else if (argv.contains(QStringLiteral("reset")) || argv.contains(QStringLiteral("checkout")) ||
                       argv.contains(QStringLiteral("restore")) || argv.contains(QStringLiteral("switch"))) {
                // The paths it names (after "--", or operands that are there), or every file.
                QStringList paths;
                const qsizetype dashes = argv.indexOf(QStringLiteral("--"));
                const QStringList tail = dashes >= 0 ? argv.mid(dashes + 1) : argv.mid(2);
                for (const QString &a : tail) {
                    if (!a.startsWith(QLatin1Char('-')) &&
                        (dashes >= 0 || QFileInfo::exists(QDir(e.cwd).filePath(a))) &&
                        a != QLatin1String("."))
                        paths.append(a);
                }
                measureDiscard(r, e, paths);
            } else {
                r.unmeasured = true;
                r.sentences.append(QStringLiteral("%1: not measured yet.").arg(e.what));
            }
        } else if (e.kind == Effect::Kind::Network && git && e.argv.contains(QStringLiteral("push")) &&
                   !e.cwd.isEmpty()) {
            measurePush(r, e);
        } else if (e.kind == Effect::Kind::History && git && e.argv.contains(QStringLiteral("branch")) &&
                   !e.cwd.isEmpty()) {
            measureBranch(r, e);
        } else if (e.kind == Effect::Kind::History) {
            r.unmeasured = true;
            r.sentences.append(QStringLiteral("%1: not measured yet.").arg(e.what));
        }
    }
    return r;
}

} // namespace Countersign
