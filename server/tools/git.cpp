#include "git.h"

#include <git2.h>

#include <QDir>
#include <QFileInfo>
#include <QHash>

#include <memory>

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
    QHash<QString, std::shared_ptr<git_repository>> repos; // by work tree
    for (const QString &file : absoluteFiles) {
        git_repository *raw = nullptr;
        const QByteArray start = QFile::encodeName(QFileInfo(file).absolutePath());
        if (git_repository_open_ext(&raw, start.constData(), 0, nullptr) != 0)
            continue;
        Repo repo(raw);
        const char *workdir = git_repository_workdir(repo.get());
        if (!workdir)
            continue;
        report.inWorkTree = true;
        const QString root = QFileInfo(QString::fromUtf8(workdir)).canonicalFilePath();
        const QString relative = QDir(root).relativeFilePath(file);
        unsigned int flags = 0;
        if (git_status_file(&flags, repo.get(), relative.toUtf8().constData()) != 0)
            continue;
        if (flags & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED)) // not in git: gone for good
            report.untracked.append(file);
        else if (flags & (GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_TYPECHANGE |
                          GIT_STATUS_WT_RENAMED | GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED |
                          GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_RENAMED | GIT_STATUS_INDEX_TYPECHANGE))
            report.uncommitted.append(file);
    }
    return report;
}

} // namespace Countersign::Git
