// The undo of an agent's change that ran with no card: the snapshot store over a real folder
// (content-addressed blobs, private modes, bounds, damage), and FileUndo over a real SQLite audit
// chain (the diff it would apply, a revert that restores the bytes and is recorded, and the
// refusals: changed since, reverted already, a kept copy gone).
#include "auditstore.h"
#include "fakeclock.h"
#include "fileundo.h"
#include "gatestack.h"
#include "jsoncompare.h"
#include "snapshotstore.h"
#include "workfiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Countersign;
using namespace Countersign::WorkFiles;
using json = nlohmann::json;

namespace {

qint64 bytesOnDisk(const QString &dir)
{
    qint64 total = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        total += it.fileInfo().size();
    }
    return total;
}

} // namespace

class SnapshotStoreTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;

    QString work(const QString &name) const { return m_dir.filePath(QStringLiteral("work/") + name); }
    QString store() const
    {
        return m_dir.filePath(QStringLiteral("snapshots-%1").arg(QTest::currentTestFunction()));
    }

private Q_SLOTS:
    void init() { QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("work"))); }

    void keep_isContentAddressed_private_andReadBack()
    {
        SnapshotStore snapshots(store(), {});
        writeFile(work(QStringLiteral("a.txt")), "one\ntwo\n");
        auto kept = snapshots.keep(work(QStringLiteral("a.txt")));
        QVERIFY2(kept.ok(), kept.ok() ? "" : qPrintable(kept.error()));
        QVERIFY(kept.value().existed);
        QCOMPARE(kept.value().bytes, 8);
        const QString blob =
            store() + QLatin1Char('/') + kept.value().sha256.left(2) + QLatin1Char('/') + kept.value().sha256;
        QVERIFY(QFile::exists(blob));
        QCOMPARE(modeOf(blob), 0600);
        QCOMPARE(modeOf(store()), 0700);
        QCOMPARE(snapshots.content(kept.value().sha256).value(), QByteArray("one\ntwo\n"));
        // The same content again is the same blob.
        writeFile(work(QStringLiteral("b.txt")), "one\ntwo\n");
        QCOMPARE(snapshots.keep(work(QStringLiteral("b.txt"))).value().sha256, kept.value().sha256);
        QCOMPARE(bytesOnDisk(store()), 8);
        // A file that is not there is kept as absent.
        auto absent = snapshots.keep(work(QStringLiteral("new.txt")));
        QVERIFY(absent.ok());
        QVERIFY(!absent.value().existed);
    }
    // What cannot be kept is refused, never read through a link or blocked on.
    void keep_refusesLinksFoldersFifosAndLargeFiles()
    {
        SnapshotStore snapshots(store(), {});
        writeFile(work(QStringLiteral("target")), "secret");
        QVERIFY(QFile::link(work(QStringLiteral("target")), work(QStringLiteral("link"))));
        QVERIFY(!snapshots.keep(work(QStringLiteral("link"))).ok());
        QVERIFY(!snapshots.keep(m_dir.filePath(QStringLiteral("work"))).ok());
        QCOMPARE(::mkfifo(QFile::encodeName(work(QStringLiteral("fifo"))).constData(), 0600), 0);
        QVERIFY(!snapshots.keep(work(QStringLiteral("fifo"))).ok());
        QFile big(work(QStringLiteral("big")));
        QVERIFY(big.open(QIODevice::WriteOnly));
        QVERIFY(big.resize(SnapshotStore::kMaxFileBytes + 1));
        big.close();
        QVERIFY(!snapshots.keep(work(QStringLiteral("big"))).ok());
    }
    void content_damagedOrGone_isRefused()
    {
        SnapshotStore snapshots(store(), {});
        writeFile(work(QStringLiteral("a.txt")), "original");
        const QString sha = snapshots.keep(work(QStringLiteral("a.txt"))).value().sha256;
        const QString blob = store() + QLatin1Char('/') + sha.left(2) + QLatin1Char('/') + sha;
        QFile::setPermissions(blob, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        writeFile(blob, "tampered");
        auto damaged = snapshots.content(sha);
        QVERIFY(!damaged.ok());
        QVERIFY(damaged.error().contains(QLatin1String("damaged")));
        QVERIFY(QFile::remove(blob));
        QVERIFY(snapshots.content(sha).error().contains(QLatin1String("gone")));
        QVERIFY(!snapshots.content(QStringLiteral("../../etc/passwd")).ok());
    }
    // 10,000 edits of distinct content pass through a store bounded at 1 MiB: it never holds more
    // than its bound, and keeps the most recent.
    void tenThousandEdits_stayUnderTheBound()
    {
        SnapshotStore snapshots(store(), {1 << 20, 14LL * 24 * 3600 * 1000, 0});
        const QString path = work(QStringLiteral("edited.txt"));
        QString lastSha;
        for (int i = 0; i < 10'000; ++i) {
            writeFile(path, QByteArray(1000, 'x') + QByteArray::number(i));
            auto kept = snapshots.keep(path);
            QVERIFY(kept.ok());
            lastSha = kept.value().sha256;
            if (i % 1000 == 999)
                QVERIFY2(bytesOnDisk(store()) <= (1 << 20),
                         qPrintable(QString::number(bytesOnDisk(store()))));
        }
        QVERIFY(bytesOnDisk(store()) <= (1 << 20));
        QVERIFY(bytesOnDisk(store()) > (1 << 20) / 2); // pruned under the bound, not emptied
        QVERIFY(snapshots.content(lastSha).ok());
    }
    void pastTheAge_isPruned()
    {
        SnapshotStore snapshots(store(), {1 << 30, 3600 * 1000, 0});
        writeFile(work(QStringLiteral("old.txt")), "old");
        const QString sha = snapshots.keep(work(QStringLiteral("old.txt"))).value().sha256;
        const QString blob = store() + QLatin1Char('/') + sha.left(2) + QLatin1Char('/') + sha;
        const timespec twoHoursAgo[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
        QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(blob).constData(), twoHoursAgo, 0), 0);
        writeFile(work(QStringLiteral("new.txt")), "new");
        const QString fresh = snapshots.keep(work(QStringLiteral("new.txt"))).value().sha256;
        snapshots.prune();
        QVERIFY(!QFile::exists(blob));
        QVERIFY(snapshots.content(fresh).ok());
    }

    // The promise: copies younger than keepMs are never dropped to make room; the store says it is
    // full instead, and what it drops (older copies first) is told as it goes.
    void youngCopies_areNeverDroppedToMakeRoom_theStoreSaysItIsFull()
    {
        SnapshotStore snapshots(store(), {64 * 1024, 14LL * 24 * 3600 * 1000, 3600 * 1000});
        int droppedCopies = 0;
        snapshots.setDropped([&](int copies, qint64) { droppedCopies += copies; });
        writeFile(work(QStringLiteral("old.bin")), QByteArray(40 * 1024, 'o'));
        const QString old = snapshots.keep(work(QStringLiteral("old.bin"))).value().sha256;
        const QString oldBlob = store() + QLatin1Char('/') + old.left(2) + QLatin1Char('/') + old;
        const timespec twoHoursAgo[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
        QCOMPARE(::utimensat(AT_FDCWD, QFile::encodeName(oldBlob).constData(), twoHoursAgo, 0), 0);
        QVERIFY(!snapshots.full());
        QStringList young;
        for (int i = 0; i < 4; ++i) {
            writeFile(work(QStringLiteral("young.bin")), QByteArray(30 * 1024, char('a' + i)));
            young << snapshots.keep(work(QStringLiteral("young.bin"))).value().sha256;
        }
        QVERIFY(!QFile::exists(oldBlob)); // the old copy made room
        QVERIFY(droppedCopies >= 1);
        for (const QString &sha : young)
            QVERIFY2(snapshots.content(sha).ok(), qPrintable(sha)); // none of the young ones went
        QVERIFY(snapshots.totalBytes() > 64 * 1024);
        QVERIFY(snapshots.full());
    }

    // FileUndo over a real audit chain: an edit kept, recorded as the hook records it, reverted.
    void revert_restoresTheBytes_recordsIt_andOnlyOnce()
    {
        auto stack = GateStack::create(m_clock, m_dir.filePath(QStringLiteral("undo.db")));
        QVERIFY(stack.ok());
        AuditStore &audit = stack.value()->store();
        SnapshotStore snapshots(store(), {});
        const QString edited = work(QStringLiteral("notes.md"));
        const QString created = work(QStringLiteral("created.md"));
        writeFile(edited, "line 1\nline 2\nline 3\n");
        QVERIFY(QFile::setPermissions(edited, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                  QFileDevice::ExeOwner));
        QList<SnapshotStore::Kept> kept{snapshots.keep(edited).value(), snapshots.keep(created).value()};
        // The agent's change, then its report.
        writeFile(edited, "line 1\nline 2 changed\nline 3\n");
        writeFile(created, "brand new\n");
        const QString nonce = QStringLiteral("0123456789abcdef0123456789abcdef");
        QVERIFY(audit.recordEvent(QStringLiteral("agent-tool-ran"), nonce, {{"undo", FileUndo::record(kept)}})
                    .ok());

        FileUndo undo(audit, snapshots);
        QVERIFY(undo.hasUndo(nonce).value());
        QVERIFY(!undo.hasUndo(QStringLiteral("ffffffffffffffffffffffffffffffff")).value());
        auto preview = undo.preview(nonce);
        QVERIFY2(preview.ok(), preview.ok() ? "" : qPrintable(preview.error()));
        QVERIFY2(preview.value().refusal.isEmpty(), qPrintable(preview.value().refusal));
        QCOMPARE(preview.value().files, QStringList({edited, created}));
        QVERIFY(preview.value().diff.contains(QLatin1String("-line 2 changed\n+line 2\n")));
        QVERIFY(preview.value().diff.contains(QLatin1String("-brand new")));

        auto reverted = undo.revert(nonce, QStringLiteral("console:alice"));
        QVERIFY2(reverted.ok(), reverted.ok() ? "" : qPrintable(reverted.error()));
        QCOMPARE(readFile(edited), QByteArray("line 1\nline 2\nline 3\n"));
        QCOMPARE(modeOf(edited), 0700);   // its permissions kept
        QVERIFY(!QFile::exists(created)); // the agent created it: gone again
        auto recorded = audit.eventsOf(nonce, QStringLiteral("agent-tool-reverted"));
        QCOMPARE(recorded.value().size(), 1);
        QCOMPARE_JSON(recorded.value().first().at("by"), json("console:alice"));

        // Once only.
        auto again = undo.revert(nonce, QStringLiteral("console:alice"));
        QVERIFY(!again.ok());
        QVERIFY(again.error().contains(QLatin1String("reverted already")));
    }
    // Work done since the agent's change is never thrown away: the revert is refused, and says how
    // the file differs; nothing is written.
    void revert_afterTheFileChangedAgain_isRefused()
    {
        auto stack = GateStack::create(m_clock, m_dir.filePath(QStringLiteral("undo2.db")));
        QVERIFY(stack.ok());
        AuditStore &audit = stack.value()->store();
        SnapshotStore snapshots(store(), {});
        const QString edited = work(QStringLiteral("main.c"));
        writeFile(edited, "int main() { return 0; }\n");
        const QList<SnapshotStore::Kept> kept{snapshots.keep(edited).value()};
        writeFile(edited, "int main() { return 1; }\n");
        const QString nonce = QStringLiteral("abcdefabcdefabcdefabcdefabcdef01");
        QVERIFY(audit.recordEvent(QStringLiteral("agent-tool-ran"), nonce, {{"undo", FileUndo::record(kept)}})
                    .ok());
        writeFile(edited, "int main() { return 2; } // the human's own edit\n");
        FileUndo undo(audit, snapshots);
        auto preview = undo.preview(nonce);
        QVERIFY(preview.ok());
        QVERIFY2(preview.value().refusal.contains(QLatin1String("changed since")),
                 qPrintable(preview.value().refusal));
        auto reverted = undo.revert(nonce, QStringLiteral("console"));
        QVERIFY(!reverted.ok());
        QVERIFY(reverted.error().startsWith(QLatin1String("Nothing was reverted")));
        QCOMPARE(readFile(edited), QByteArray("int main() { return 2; } // the human's own edit\n"));
        QVERIFY(audit.eventsOf(nonce, QStringLiteral("agent-tool-reverted")).value().isEmpty());
        // An operation that kept nothing has nothing to undo.
        QVERIFY(!undo.preview(QStringLiteral("ffffffffffffffffffffffffffffffff")).ok());
    }

    // The reviewer's attack: after the change, the agent swaps the file's folder for a link to a
    // folder outside the roots holding a file with the same content as the change left. The
    // revert must not write there.
    void revert_throughAFolderSwappedForALink_isRefused_andWritesNothingThere()
    {
        auto stack = GateStack::create(m_clock, m_dir.filePath(QStringLiteral("undo3.db")));
        QVERIFY(stack.ok());
        AuditStore &audit = stack.value()->store();
        SnapshotStore snapshots(store(), {});
        const QString sub = work(QStringLiteral("sub"));
        QVERIFY(QDir().mkpath(sub));
        const QString file = sub + QStringLiteral("/.bashrc");
        writeFile(file, "echo payload\n");
        const QList<SnapshotStore::Kept> kept{snapshots.keep(file).value()};
        writeFile(file, "the skeleton\n");
        const QString nonce = QStringLiteral("00000000000000000000000000000abc");
        QVERIFY(audit.recordEvent(QStringLiteral("agent-tool-ran"), nonce, {{"undo", FileUndo::record(kept)}})
                    .ok());
        const QString victim = m_dir.filePath(QStringLiteral("victim-home"));
        QVERIFY(QDir().mkpath(victim));
        writeFile(victim + QStringLiteral("/.bashrc"), "the skeleton\n");
        QVERIFY(QDir(sub).removeRecursively());
        QVERIFY(QFile::link(victim, sub));
        FileUndo undo(audit, snapshots);
        auto preview = undo.preview(nonce);
        QVERIFY(preview.ok());
        QVERIFY2(!preview.value().refusal.isEmpty(), "the preview saw nothing wrong");
        QVERIFY(!undo.revert(nonce, QStringLiteral("console")).ok());
        QCOMPARE(readFile(victim + QStringLiteral("/.bashrc")), QByteArray("the skeleton\n"));
        // Reading through the link is refused too: nothing outside is kept.
        QVERIFY(!snapshots.keep(file).ok());
    }
    void keep_ofAFileWithOtherHardLinks_isRefused()
    {
        SnapshotStore snapshots(store(), {});
        const QString secret = m_dir.filePath(QStringLiteral("secret.key"));
        writeFile(secret, "private\n");
        QCOMPARE(::link(QFile::encodeName(secret).constData(),
                        QFile::encodeName(work(QStringLiteral("alias"))).constData()),
                 0);
        auto kept = snapshots.keep(work(QStringLiteral("alias")));
        QVERIFY(!kept.ok());
        QVERIFY(kept.error().contains(QLatin1String("hard links")));
    }
};

QTEST_GUILESS_MAIN(SnapshotStoreTest)
#include "snapshotstore_test.moc"
