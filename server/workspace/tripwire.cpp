#include "tripwire.h"

#include "snapshotstore.h"

#include <QFile>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcTripwire, "countersign.tripwire")

namespace Countersign {

namespace {

// The bytes kept in memory for the whole set: past it, files are watched by their size and times.
constexpr qint64 kMaxTotalBytes = 64LL << 20;

qint64 nanos(const timespec &t)
{
    return qint64(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

QString lastSystemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

// The entries of a git configuration's text, "section[.subsection].key" -> its values in order;
// false when a line is of a form this reader does not follow (a continued value, a stray line).
bool configEntries(const QByteArray &text, QMap<QString, QStringList> *out)
{
    static const QRegularExpression header(
        QStringLiteral("^\\[([A-Za-z0-9.-]+)(?:\\s+\"((?:[^\"\\\\]|\\\\.)*)\")?\\]\\s*(?:[#;].*)?$"));
    static const QRegularExpression entry(QStringLiteral("^([A-Za-z][A-Za-z0-9-]*)\\s*(?:=\\s*(.*))?$"));
    QString section;
    for (const QByteArray &raw : text.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')) || line.startsWith(QLatin1Char(';')))
            continue;
        if (line.endsWith(QLatin1Char('\\')))
            return false;
        if (const auto h = header.match(line); h.hasMatch()) {
            section = h.captured(1).toLower();
            if (h.hasCaptured(2) && !h.captured(2).isNull())
                section += QLatin1Char('.') + h.captured(2);
            continue;
        }
        const auto e = entry.match(line);
        if (!e.hasMatch() || section.isEmpty())
            return false;
        (*out)[section + QLatin1Char('.') + e.captured(1).toLower()].append(e.captured(2));
    }
    return true;
}

// Whether a repository's configuration changed only in what git itself writes when a branch is
// made, renamed, deleted or set to track another (git checkout -t, git branch -u / -m / -d):
// branch.NAME.remote, merge, rebase, pushRemote and description. Such a change runs nothing.
bool onlyBranchTracking(const QByteArray &was, const QByteArray &now)
{
    QMap<QString, QStringList> before, after;
    if (!configEntries(was, &before) || !configEntries(now, &after))
        return false;
    static const QRegularExpression tracking(
        QStringLiteral("^branch\\..+\\.(remote|merge|rebase|pushremote|description)$"));
    QStringList keys = before.keys() + after.keys();
    keys.removeDuplicates();
    return std::all_of(keys.cbegin(), keys.cend(), [&](const QString &key) {
        return before.value(key) == after.value(key) || tracking.match(key).hasMatch();
    });
}

} // namespace

Tripwire::Tripwire(ProtectedSet set, Keeper keeper) : m_set(std::move(set)), m_keeper(std::move(keeper)) {}

void Tripwire::setProtected(ProtectedSet set)
{
    m_set = std::move(set);
    if (m_inFlight.isEmpty())
        m_baseline.clear(); // taken again, with the new places, at the next arm
}

bool Tripwire::sameStat(const State &a, const State &b)
{
    return a.exists == b.exists && a.link == b.link && a.device == b.device && a.inode == b.inode &&
           a.size == b.size && a.mtimeNs == b.mtimeNs && a.ctimeNs == b.ctimeNs && a.mode == b.mode;
}

bool Tripwire::sameContent(const State &a, const State &b)
{
    if (a.exists != b.exists)
        return false;
    if (!a.exists)
        return true;
    if (a.link != b.link || a.regular != b.regular)
        return false;
    if (a.hasBytes && b.hasBytes)
        return a.bytes == b.bytes && (a.link || a.mode == b.mode);
    return sameStat(a, b);
}

Tripwire::State Tripwire::stateOf(const QString &path, const State *previous)
{
    State state;
    const QByteArray name = QFile::encodeName(path);
    struct stat st;
    if (::lstat(name.constData(), &st) != 0)
        return state; // missing (or unreachable: as missing, and a file there later is a change)
    state.exists = true;
    state.link = S_ISLNK(st.st_mode);
    state.regular = S_ISREG(st.st_mode);
    state.folder = S_ISDIR(st.st_mode);
    state.device = quint64(st.st_dev);
    state.inode = quint64(st.st_ino);
    state.size = qint64(st.st_size);
    state.mtimeNs = nanos(st.st_mtim);
    state.ctimeNs = nanos(st.st_ctim);
    state.mode = int(st.st_mode & 07777);
    if (previous && previous->hasBytes && sameStat(*previous, state)) {
        state.bytes = previous->bytes;
        state.hasBytes = true;
        return state;
    }
    if (state.link) {
        QByteArray target(4096, Qt::Uninitialized);
        const ssize_t n = ::readlink(name.constData(), target.data(), size_t(target.size()));
        if (n >= 0 && n < target.size()) {
            target.truncate(n);
            state.bytes = target;
            state.hasBytes = true;
        }
    } else if (state.regular && state.size <= kMaxKeptBytes) {
        QByteArray leaf;
        const int dir = SnapshotStore::openFolderOf(path, &leaf);
        if (dir >= 0) {
            auto now = SnapshotStore::readAt(dir, leaf);
            ::close(dir);
            if (now && now.value().exists && now.value().bytes.size() <= kMaxKeptBytes) {
                state.bytes = now.value().bytes;
                state.hasBytes = true;
            }
        }
    }
    return state;
}

QList<Tripwire::Change> Tripwire::record()
{
    QHash<QString, State> baseline;
    QList<Change> between;
    const bool compare = !m_baseline.isEmpty();
    qint64 total = 0;
    const QMap<QString, QString> files = m_set.files();
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const auto previous = m_baseline.constFind(it.key());
        const bool known = previous != m_baseline.cend();
        State state = stateOf(it.key(), known ? &*previous : nullptr);
        state.what = it.value();
        if (compare && !m_approved.contains(it.key()) &&
            (known ? !sameStat(*previous, state) && !sameContent(*previous, state) : state.exists)) {
            Change change;
            change.path = it.key();
            change.what = it.value();
            change.how = !known || !previous->exists ? QStringLiteral("created")
                         : !state.exists             ? QStringLiteral("deleted")
                                                     : QStringLiteral("changed");
            change.problem =
                QStringLiteral("it changed while no quiet call ran (perhaps by you, or by a program "
                               "a call left running): not put back");
            between.append(change);
        }
        total += state.bytes.size();
        if (total > kMaxTotalBytes) {
            state.bytes.clear();
            state.hasBytes = false;
        }
        baseline.insert(it.key(), std::move(state));
    }
    m_baseline = std::move(baseline);
    m_approved.clear();
    return between;
}

QList<Tripwire::Change> Tripwire::arm(const QString &call, qint64 nowMs)
{
    QList<Change> between;
    if (m_inFlight.isEmpty()) {
        m_exempt.clear();
        between = record();
    }
    m_inFlight.insert(call, nowMs);
    return between;
}

void Tripwire::exempt(const QStringList &paths)
{
    for (const QString &path : paths) {
        m_approved.insert(path);
        if (!m_inFlight.isEmpty())
            m_exempt.insert(path);
    }
}

QList<Tripwire::Change> Tripwire::disarm(const QString &call)
{
    if (!m_inFlight.remove(call))
        return {};
    QList<Change> changes;
    // The files the set names now (a file created in a watched folder is new to it) and the
    // ones it named when the record was taken (a file deleted since).
    QMap<QString, QString> files = m_set.files();
    for (auto it = m_baseline.cbegin(); it != m_baseline.cend(); ++it)
        files.insert(it.key(), it->what);
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const QString &path = it.key();
        const auto found = m_baseline.constFind(path);
        State was = found == m_baseline.cend() ? State{} : *found;
        if (was.what.isEmpty())
            was.what = it.value();
        State now = stateOf(path, found == m_baseline.cend() ? nullptr : &*found);
        now.what = was.what;
        if (sameStat(was, now))
            continue;
        if (sameContent(was, now) || m_exempt.contains(path) ||
            (path.endsWith(QLatin1String("/config")) && path.contains(QLatin1String("/.git/")) &&
             was.regular && now.regular && was.hasBytes && now.hasBytes && was.mode == now.mode &&
             onlyBranchTracking(was.bytes, now.bytes))) {
            // touched, not changed; a change a human approved; or git's own record of a branch
            m_baseline.insert(path, now);
            continue;
        }
        changes.append(restore(path, was, now));
        if (!changes.last().restored)
            m_baseline.insert(path, now); // said once, not again at the next record
    }
    if (m_inFlight.isEmpty())
        m_exempt.clear();
    for (const Change &change : changes)
        qCWarning(lcTripwire).noquote()
            << "a quiet call" << change.how << change.path
            << (change.restored ? "(put back)" : "(not put back: " + change.problem + ")");
    return changes;
}

QList<QPair<QString, QList<Tripwire::Change>>> Tripwire::disarmStale(qint64 olderThanMs)
{
    QStringList stale;
    for (auto it = m_inFlight.cbegin(); it != m_inFlight.cend(); ++it) {
        if (it.value() < olderThanMs)
            stale << it.key();
    }
    QList<QPair<QString, QList<Change>>> found;
    for (const QString &call : stale)
        found.append({call, disarm(call)});
    return found;
}

Tripwire::Change Tripwire::restore(const QString &path, const State &was, const State &now)
{
    Change change;
    change.path = path;
    change.what = was.what;
    change.how = !was.exists             ? QStringLiteral("created")
                 : !now.exists           ? QStringLiteral("deleted")
                 : now.link && !was.link ? QStringLiteral("made a link of")
                                         : QStringLiteral("changed");
    if (now.exists && now.regular && now.hasBytes && m_keeper)
        change.keptSha256 = m_keeper(path);
    if (was.exists && !was.hasBytes) {
        change.problem = was.regular ? QStringLiteral("it was larger than %1 KiB or unreadable when the call "
                                                      "began, so no copy of it was kept")
                                           .arg(kMaxKeptBytes >> 10)
                                     : QStringLiteral("it is not a regular file");
        return change;
    }
    QByteArray leaf;
    const int dir = SnapshotStore::openFolderOf(
        path, &leaf, was.exists ? SnapshotStore::Folders::Make : SnapshotStore::Folders::MustExist);
    if (dir < 0) {
        change.problem =
            QStringLiteral("a folder on its way cannot be opened, or is a link (%1)").arg(lastSystemError());
        return change;
    }
    Status done = Done{};
    if (!was.exists) {
        if (::unlinkat(dir, leaf.constData(), now.folder ? AT_REMOVEDIR : 0) != 0 && errno != ENOENT)
            done = failure(lastSystemError());
    } else if (was.link) {
        const QByteArray temporary = '.' + leaf.left(64) + ".countersign-tripwire-" +
                                     QByteArray::number(QRandomGenerator::system()->generate64(), 16);
        if (::symlinkat(was.bytes.constData(), dir, temporary.constData()) != 0 ||
            ::renameat(dir, temporary.constData(), dir, leaf.constData()) != 0) {
            done = failure(lastSystemError());
            ::unlinkat(dir, temporary.constData(), 0);
        }
    } else {
        done = SnapshotStore::replaceAt(dir, leaf, was.bytes, was.mode);
    }
    ::close(dir);
    if (!done) {
        change.problem = done.error();
        return change;
    }
    change.restored = true;
    State back = stateOf(path, nullptr);
    back.what = was.what;
    if (back.exists)
        m_baseline.insert(path, std::move(back));
    else
        m_baseline.remove(path);
    return change;
}

} // namespace Countersign
