#include "git.h"

#include <git2.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>

#include <memory>
#include <vector>

namespace Countersign::Git {

namespace {

// libgit2 keeps a process-wide reference count; one per process is enough.
void ensureInit()
{
    static const int initialised = git_libgit2_init();
    Q_UNUSED(initialised)
}

struct RepoDeleter
{
    void operator()(git_repository *r) const { git_repository_free(r); }
};
using Repo = std::unique_ptr<git_repository, RepoDeleter>;

} // namespace

bool looksBinary(const QByteArray &bytes)
{
    return bytes.left(8000).contains('\0');
}

QString unifiedDiff(const QString &path, const QByteArray &before, const QByteArray &after)
{
    ensureInit();
    git_diff_options options;
    git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION); // the INIT macro leaves fields to the compiler
    options.context_lines = 3;
    git_patch *patch = nullptr;
    const QByteArray oldPath = path.toUtf8(); // libgit2 adds the a/ and b/ prefixes
    const QByteArray newPath = path.toUtf8();
    if (git_patch_from_buffers(&patch, before.isNull() ? nullptr : before.constData(), size_t(before.size()),
                               oldPath.constData(), after.isNull() ? nullptr : after.constData(),
                               size_t(after.size()), newPath.constData(), &options) != 0)
        return QStringLiteral("(no diff: %1)")
            .arg(QString::fromUtf8(git_error_last() ? git_error_last()->message : "libgit2 error"));
    git_buf buf = GIT_BUF_INIT;
    QString text;
    if (patch && git_patch_to_buf(&buf, patch) == 0)
        text = QString::fromUtf8(buf.ptr, qsizetype(buf.size));
    git_buf_dispose(&buf);
    git_patch_free(patch);
    return text;
}

LossReport lossReport(const QStringList &absoluteFiles)
{
    ensureInit();
    LossReport report;
    // The repository of each folder, opened once; then one status walk per repository over the
    // files it holds (git_status_file walks the index once per file: 500 files took 0.4 s).
    QHash<QString, std::shared_ptr<git_repository>> repos;
    struct Held final
    {
        std::shared_ptr<git_repository> repo;
        QStringList files;
        QList<QByteArray> relative;
    };
    QHash<git_repository *, Held> byRepo;
    for (const QString &file : absoluteFiles) {
        const QString folder = QFileInfo(file).absolutePath();
        auto found = repos.find(folder);
        if (found == repos.end()) {
            git_repository *raw = nullptr;
            if (git_repository_open_ext(&raw, QFile::encodeName(folder).constData(), 0, nullptr) != 0)
                raw = nullptr;
            found = repos.insert(folder, std::shared_ptr<git_repository>(raw, [](git_repository *r) {
                                     if (r)
                                         git_repository_free(r);
                                 }));
        }
        const std::shared_ptr<git_repository> &repo = found.value();
        if (!repo || !git_repository_workdir(repo.get()))
            continue;
        report.inWorkTree = true;
        const QString root =
            QFileInfo(QString::fromUtf8(git_repository_workdir(repo.get()))).canonicalFilePath();
        Held &held = byRepo[repo.get()];
        held.repo = repo;
        held.files.append(file);
        // Where the file really is (its folder resolved; the file itself may be a link, which is
        // what is deleted), relative to the work tree.
        const QString realFolder = QFileInfo(folder).canonicalFilePath();
        const QString real =
            realFolder.isEmpty() ? file : realFolder + QLatin1Char('/') + QFileInfo(file).fileName();
        held.relative.append(QDir(root).relativeFilePath(real).toUtf8());
    }
    for (const Held &held : std::as_const(byRepo)) {
        std::vector<char *> specs;
        for (const QByteArray &r : held.relative)
            specs.push_back(const_cast<char *>(r.constData()));
        git_status_options options;
        git_status_options_init(&options, GIT_STATUS_OPTIONS_VERSION);
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
        options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_INCLUDE_IGNORED |
                        GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS |
                        GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
        options.pathspec = {specs.data(), specs.size()};
        git_status_list *rawList = nullptr;
        if (git_status_list_new(&rawList, held.repo.get(), &options) != 0)
            continue;
        std::unique_ptr<git_status_list, void (*)(git_status_list *)> list(rawList, git_status_list_free);
        QHash<QByteArray, unsigned int> status; // relative path -> flags; absent: tracked, unchanged
        for (size_t i = 0; i < git_status_list_entrycount(list.get()); ++i) {
            const git_status_entry *entry = git_status_byindex(list.get(), i);
            const git_diff_delta *delta =
                entry->index_to_workdir ? entry->index_to_workdir : entry->head_to_index;
            if (!delta)
                continue;
            for (const char *path : {delta->old_file.path, delta->new_file.path}) {
                if (path)
                    status[QByteArray(path)] |= entry->status;
            }
        }
        // A file the status list does not name is unchanged only if the index holds it: outside
        // the work tree, in .git/, or missing from both, git cannot bring it back.
        git_index *rawIndex = nullptr;
        const bool indexed = git_repository_index(&rawIndex, held.repo.get()) == 0;
        std::unique_ptr<git_index, void (*)(git_index *)> index(rawIndex, git_index_free);
        for (qsizetype i = 0; i < held.files.size(); ++i) {
            const QByteArray &relative = held.relative[i];
            unsigned int flags = status.value(relative);
            const bool outside = relative.startsWith("../") || relative == ".." || relative == ".git" ||
                                 relative.startsWith(".git/");
            const git_index_entry *entry =
                indexed && !outside ? git_index_get_bypath(index.get(), relative.constData(), 0) : nullptr;
            if (outside || (flags == 0 && !entry))
                flags |= GIT_STATUS_WT_NEW;
            // Marked assume-unchanged or skip-worktree, git does not look at the file: whatever it
            // holds is not known to be what git keeps.
            if (entry && ((entry->flags & GIT_INDEX_ENTRY_VALID) ||
                          (entry->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE)))
                flags |= GIT_STATUS_WT_MODIFIED;
            const QString &file = held.files[i];
            if (flags & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)) { // not in git: gone for good
                report.untracked.append(file);
                if (flags & GIT_STATUS_IGNORED)
                    report.ignored.append(file);
            } else if (flags &
                       (GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_TYPECHANGE |
                        GIT_STATUS_WT_RENAMED | GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED |
                        GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_RENAMED | GIT_STATUS_INDEX_TYPECHANGE)) {
                report.uncommitted.append(file);
            }
        }
    }
    return report;
}

Uncommitted uncommitted(const QString &folder, const QStringList &paths, qsizetype maxDiffBytes)
{
    ensureInit();
    Uncommitted out;
    git_repository *raw = nullptr;
    if (git_repository_open_ext(&raw, QFile::encodeName(folder).constData(), 0, nullptr) != 0) {
        out.error = QStringLiteral("no git repository holds %1").arg(folder);
        return out;
    }
    Repo repo(raw);
    const char *workdir = git_repository_workdir(repo.get());
    if (!workdir) {
        out.error = QStringLiteral("the repository has no work tree");
        return out;
    }
    const QString root = QFileInfo(QString::fromUtf8(workdir)).canonicalFilePath();
    out.workTree = root;
    git_object *treeObject = nullptr;
    if (git_revparse_single(&treeObject, repo.get(), "HEAD^{tree}") != 0) {
        out.error = QStringLiteral("the repository has no commit yet");
        return out;
    }
    std::unique_ptr<git_object, void (*)(git_object *)> tree(treeObject, git_object_free);
    git_diff_options options;
    git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
    options.context_lines = 3;
    QList<QByteArray> specs;
    const QString canonicalFolder = QFileInfo(folder).canonicalFilePath();
    for (const QString &p : paths)
        specs.append(QDir(root).relativeFilePath(QDir(canonicalFolder).filePath(p)).toUtf8());
    std::vector<char *> specPointers;
    for (QByteArray &s : specs)
        specPointers.push_back(s.data());
    if (!specPointers.empty()) {
        options.pathspec.strings = specPointers.data();
        options.pathspec.count = specPointers.size();
    }
    git_diff *rawDiff = nullptr;
    if (git_diff_tree_to_workdir_with_index(&rawDiff, repo.get(), reinterpret_cast<git_tree *>(tree.get()),
                                            &options) != 0) {
        out.error = QString::fromUtf8(git_error_last() ? git_error_last()->message : "libgit2 error");
        return out;
    }
    std::unique_ptr<git_diff, void (*)(git_diff *)> diff(rawDiff, git_diff_free);
    const size_t deltas = git_diff_num_deltas(diff.get());
    for (size_t i = 0; i < deltas; ++i) {
        git_patch *rawPatch = nullptr;
        if (git_patch_from_diff(&rawPatch, diff.get(), i) != 0 || !rawPatch)
            continue;
        std::unique_ptr<git_patch, void (*)(git_patch *)> patch(rawPatch, git_patch_free);
        size_t added = 0, removed = 0;
        git_patch_line_stats(nullptr, &added, &removed, patch.get());
        const git_diff_delta *delta = git_patch_get_delta(patch.get());
        out.files.append(
            {QString::fromUtf8(delta->new_file.path ? delta->new_file.path : delta->old_file.path),
             int(added), int(removed)});
        if (out.diff.size() >= maxDiffBytes) {
            out.truncated = true;
            continue;
        }
        git_buf buf = GIT_BUF_INIT;
        if (git_patch_to_buf(&buf, patch.get()) == 0)
            out.diff += QString::fromUtf8(buf.ptr, qsizetype(buf.size));
        git_buf_dispose(&buf);
    }
    return out;
}

namespace {

Repo openRepo(const QString &folder, QString *error)
{
    ensureInit();
    git_repository *raw = nullptr;
    if (git_repository_open_ext(&raw, QFile::encodeName(folder).constData(), 0, nullptr) != 0) {
        *error = QStringLiteral("no git repository holds %1").arg(folder);
        return Repo(nullptr);
    }
    return Repo(raw);
}

struct StashWalk final
{
    git_repository *repo = nullptr;
    QList<Stash> *out = nullptr;
};

int eachStash(size_t index, const char *message, const git_oid *id, void *payload)
{
    auto *walk = static_cast<StashWalk *>(payload);
    Stash s;
    s.index = int(index);
    s.message = QString::fromUtf8(message ? message : "");
    git_commit *commit = nullptr;
    git_commit *parent = nullptr;
    git_tree *tree = nullptr;
    git_tree *base = nullptr;
    git_diff *diff = nullptr;
    git_diff_stats *stats = nullptr;
    if (git_commit_lookup(&commit, walk->repo, id) == 0 && git_commit_parent(&parent, commit, 0) == 0 &&
        git_commit_tree(&tree, commit) == 0 && git_commit_tree(&base, parent) == 0 &&
        git_diff_tree_to_tree(&diff, walk->repo, base, tree, nullptr) == 0 &&
        git_diff_get_stats(&stats, diff) == 0) {
        s.files = int(git_diff_stats_files_changed(stats));
        s.added = int(git_diff_stats_insertions(stats));
        s.removed = int(git_diff_stats_deletions(stats));
    }
    git_diff_stats_free(stats);
    git_diff_free(diff);
    git_tree_free(base);
    git_tree_free(tree);
    git_commit_free(parent);
    git_commit_free(commit);
    walk->out->append(s);
    return 0;
}

} // namespace

Stashes stashes(const QString &folder)
{
    Stashes out;
    Repo repo = openRepo(folder, &out.error);
    if (!repo)
        return out;
    StashWalk walk{repo.get(), &out.stashes};
    if (git_stash_foreach(repo.get(), eachStash, &walk) != 0)
        out.error = QString::fromUtf8(git_error_last() ? git_error_last()->message : "libgit2 error");
    return out;
}

namespace {

// Hides from the walk every branch of that kind but except: it then yields what none of them reaches.
void hideBranches(git_repository *repo, git_revwalk *walk, git_branch_t kind,
                  const git_reference *except = nullptr)
{
    git_branch_iterator *rawIt = nullptr;
    if (git_branch_iterator_new(&rawIt, repo, kind) != 0)
        return;
    std::unique_ptr<git_branch_iterator, void (*)(git_branch_iterator *)> it(rawIt, git_branch_iterator_free);
    git_reference *ref = nullptr;
    git_branch_t type;
    while (git_branch_next(&ref, &type, it.get()) == 0) {
        if ((!except || git_reference_cmp(ref, except) != 0) && git_reference_target(ref))
            git_revwalk_hide(walk, git_reference_target(ref));
        git_reference_free(ref);
    }
}

// Counts the commits the walk yields (at most 10000), keeping the subjects of the first max.
void countWalk(git_repository *repo, git_revwalk *walk, int max, int *count, QStringList *subjects)
{
    git_oid id;
    while (*count < 10000 && git_revwalk_next(&id, walk) == 0) {
        if (subjects->size() < max) {
            git_commit *commit = nullptr;
            if (git_commit_lookup(&commit, repo, &id) == 0) {
                subjects->append(QString::fromUtf8(git_commit_summary(commit)));
                git_commit_free(commit);
            }
        }
        ++*count;
    }
}

} // namespace

RemoteLoss remoteLoss(const QString &folder, const QString &remote, const QString &branch,
                      const QString &source, bool deleting, int max)
{
    RemoteLoss out;
    Repo repo = openRepo(folder, &out.error);
    if (!repo)
        return out;
    const QByteArray tracking = ("refs/remotes/" + remote + QLatin1Char('/') + branch).toUtf8();
    git_oid tip;
    if (git_reference_name_to_id(&tip, repo.get(), tracking.constData()) != 0)
        return out; // never fetched: not known
    out.known = true;
    git_reflog *reflog = nullptr;
    if (git_reflog_read(&reflog, repo.get(), tracking.constData()) == 0) {
        if (git_reflog_entrycount(reflog) > 0) {
            const git_signature *who = git_reflog_entry_committer(git_reflog_entry_byindex(reflog, 0));
            if (who)
                out.fetchedMs = qint64(who->when.time) * 1000;
        }
        git_reflog_free(reflog);
    }
    if (out.fetchedMs == 0) {
        const QFileInfo fetchHead(
            QDir(QFile::decodeName(git_repository_path(repo.get()))).filePath(QStringLiteral("FETCH_HEAD")));
        if (fetchHead.exists())
            out.fetchedMs = fetchHead.lastModified().toMSecsSinceEpoch();
    }
    git_revwalk *rawWalk = nullptr;
    if (git_revwalk_new(&rawWalk, repo.get()) != 0) {
        out.error = QStringLiteral("cannot walk the history");
        return out;
    }
    std::unique_ptr<git_revwalk, void (*)(git_revwalk *)> walk(rawWalk, git_revwalk_free);
    if (git_revwalk_push(walk.get(), &tip) != 0) {
        out.error = QStringLiteral("cannot walk %1").arg(QString::fromUtf8(tracking));
        return out;
    }
    if (deleting) {
        hideBranches(repo.get(), walk.get(), GIT_BRANCH_LOCAL);
    } else {
        git_object *pushed = nullptr;
        if (git_revparse_single(&pushed, repo.get(), source.toUtf8().constData()) != 0) {
            out.error = QStringLiteral("%1 names no commit here").arg(source);
            return out;
        }
        git_object *commit = nullptr;
        const int peeled = git_object_peel(&commit, pushed, GIT_OBJECT_COMMIT);
        git_object_free(pushed);
        if (peeled != 0) {
            out.error = QStringLiteral("%1 names no commit here").arg(source);
            return out;
        }
        git_revwalk_hide(walk.get(), git_object_id(commit));
        git_object_free(commit);
    }
    countWalk(repo.get(), walk.get(), max, &out.count, &out.subjects);
    return out;
}

Current current(const QString &folder)
{
    Current out;
    out.remote = QStringLiteral("origin");
    Repo repo = openRepo(folder, &out.error);
    if (!repo)
        return out;
    git_reference *head = nullptr;
    if (git_repository_head(&head, repo.get()) != 0) {
        out.error = QStringLiteral("HEAD names no branch");
        return out;
    }
    if (git_reference_is_branch(head)) {
        const char *name = nullptr;
        if (git_branch_name(&name, head) == 0)
            out.branch = QString::fromUtf8(name);
        git_buf remote = GIT_BUF_INIT;
        if (git_branch_upstream_remote(&remote, repo.get(), git_reference_name(head)) == 0)
            out.remote = QString::fromUtf8(remote.ptr, qsizetype(remote.size));
        git_buf_dispose(&remote);
    }
    git_reference_free(head);
    return out;
}

BranchLoss branchLoss(const QString &folder, const QString &branch, int max)
{
    BranchLoss out;
    Repo repo = openRepo(folder, &out.error);
    if (!repo)
        return out;
    git_reference *ref = nullptr;
    if (git_branch_lookup(&ref, repo.get(), branch.toUtf8().constData(), GIT_BRANCH_LOCAL) != 0) {
        out.error = QStringLiteral("there is no branch %1").arg(branch);
        return out;
    }
    std::unique_ptr<git_reference, void (*)(git_reference *)> branchRef(ref, git_reference_free);
    git_revwalk *rawWalk = nullptr;
    if (git_revwalk_new(&rawWalk, repo.get()) != 0) {
        out.error = QStringLiteral("cannot walk the history");
        return out;
    }
    std::unique_ptr<git_revwalk, void (*)(git_revwalk *)> walk(rawWalk, git_revwalk_free);
    const git_oid *tip = git_reference_target(branchRef.get());
    if (!tip || git_revwalk_push(walk.get(), tip) != 0) {
        out.error = QStringLiteral("the branch %1 points at no commit").arg(branch);
        return out;
    }
    hideBranches(repo.get(), walk.get(), GIT_BRANCH_ALL, branchRef.get());
    countWalk(repo.get(), walk.get(), max, &out.count, &out.subjects);
    return out;
}

namespace {

// The repository-level keys a read-only git command may meet: layout, identity, where remotes
// are and which branches track them. Anything else (filter drivers, include, core.worktree,
// extensions such as partialClone, a promisor remote, protocol.*, gpg.*, ...) could make a reading
// command run a program, fetch, or read outside the repository: it asks.
bool risky(const QString &key)
{
    static const QStringList kExact = {
        QStringLiteral("core.repositoryformatversion"),
        QStringLiteral("core.filemode"),
        QStringLiteral("core.bare"),
        QStringLiteral("core.logallrefupdates"),
        QStringLiteral("core.ignorecase"),
        QStringLiteral("core.precomposeunicode"),
        QStringLiteral("core.symlinks"),
        QStringLiteral("core.autocrlf"),
        QStringLiteral("core.eol"),
        QStringLiteral("core.safecrlf"),
        QStringLiteral("user.name"),
        QStringLiteral("user.email"),
        QStringLiteral("init.defaultbranch"),
        QStringLiteral("pull.rebase"),
        QStringLiteral("pull.ff"),
        QStringLiteral("push.default"),
        QStringLiteral("fetch.prune"),
    };
    const QString k = key.toLower();
    if (kExact.contains(k))
        return false;
    const QStringList parts = k.split(QLatin1Char('.'));
    if (parts.size() < 3)
        return true;
    const QString section = parts.first();
    const QString field = parts.last();
    if (section == QLatin1String("remote"))
        return !QStringList{QStringLiteral("url"), QStringLiteral("fetch"), QStringLiteral("pushurl")}
                    .contains(field);
    if (section == QLatin1String("branch"))
        return !QStringList{QStringLiteral("remote"), QStringLiteral("merge"), QStringLiteral("rebase")}
                    .contains(field);
    return true;
}

QString lastError()
{
    return QString::fromUtf8(git_error_last() ? git_error_last()->message : "libgit2 error");
}

} // namespace

RepositoryCheck inspectRepository(const QString &folder, const QStringList &ceilings)
{
    ensureInit();
    RepositoryCheck check;
    git_repository *raw = nullptr;
    const QByteArray start = QFile::encodeName(folder);
    const QByteArray ceiling = QFile::encodeName(ceilings.join(QLatin1Char(GIT_PATH_LIST_SEPARATOR)));
    const int opened = git_repository_open_ext(&raw, start.constData(), 0, ceiling.constData());
    if (opened == GIT_ENOTFOUND)
        return check;
    check.found = true;
    if (opened != 0) {
        check.error = lastError();
        return check;
    }
    Repo repo(raw);
    for (const char *path : {git_repository_path(repo.get()), git_repository_commondir(repo.get()),
                             git_repository_workdir(repo.get())}) {
        if (path)
            check.folders.append(QString::fromUtf8(path));
    }
    const QDir common(QString::fromUtf8(git_repository_commondir(repo.get())));
    const QDir own(QString::fromUtf8(git_repository_path(repo.get())));
    for (const QString &inside :
         {common.filePath(QStringLiteral("objects")), common.filePath(QStringLiteral("refs")),
          common.filePath(QStringLiteral("packed-refs")), own.filePath(QStringLiteral("HEAD"))}) {
        const QFileInfo info(inside);
        if (info.exists() || info.isSymLink())
            check.folders.append(info.canonicalFilePath().isEmpty() ? inside : info.canonicalFilePath());
    }
    check.borrowsObjects = QFileInfo::exists(common.filePath(QStringLiteral("objects/info/alternates"))) ||
                           QFileInfo::exists(common.filePath(QStringLiteral("objects/info/http-alternates")));
    git_config *config = nullptr;
    if (git_repository_config_snapshot(&config, repo.get()) != 0) {
        check.error = lastError();
        return check;
    }
    git_config_iterator *it = nullptr;
    if (git_config_iterator_new(&it, config) != 0) {
        check.error = lastError();
        git_config_free(config);
        return check;
    }
    git_config_entry *entry = nullptr;
    while (git_config_next(&entry, it) == 0) {
        if (entry->level >= GIT_CONFIG_LEVEL_LOCAL && risky(QString::fromUtf8(entry->name)))
            check.riskyKeys.append(QString::fromUtf8(entry->name));
    }
    git_config_iterator_free(it);
    git_config_free(config);
    return check;
}

QString configValue(const QString &configFile, const QString &key)
{
    ensureInit();
    git_config *config = nullptr;
    if (git_config_open_ondisk(&config, QFile::encodeName(configFile).constData()) != 0)
        return {};
    git_buf buf = GIT_BUF_INIT;
    QString value;
    if (git_config_get_string_buf(&buf, config, key.toUtf8().constData()) == 0)
        value = QString::fromUtf8(buf.ptr, qsizetype(buf.size));
    git_buf_dispose(&buf);
    git_config_free(config);
    return value;
}

} // namespace Countersign::Git
