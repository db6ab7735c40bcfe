// The net under the workspace over a real git workspace and a real undo store: what real programs
// change quietly (sed -i, a redirection, cp over, mv, tar -cf over a dirty file, a Python script
// that rewrites three files, make generating files) is found exactly, each file with the bytes it
// held before in the store; a touch is no change; the regenerated folders and the store's own data
// folder are not recorded; calls that overlap share a record; a root past its limit is not recorded.
#include "snapshotstore.h"
#include "workfiles.h"
#include "workspacenet.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using namespace Countersign::WorkFiles;

class WorkspaceNetTest final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_ws;
    std::shared_ptr<SnapshotStore> m_store;

    void sh(const QString &command)
    {
        QProcess p;
        p.setWorkingDirectory(m_ws);
        p.start(QStringLiteral("bash"), {QStringLiteral("-c"), command});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0, qPrintable(command + ": " + p.readAllStandardError()));
    }
    // path (relative) -> existed before, with the bytes it held.
    QMap<QString, QByteArray> before(const WorkspaceNet::Outcome &outcome)
    {
        QMap<QString, QByteArray> out;
        for (const SnapshotStore::Kept &k : outcome.kept) {
            const QString rel = QDir(m_ws).relativeFilePath(k.path);
            if (!k.existed) {
                out.insert(rel, "(created)");
                continue;
            }
            auto bytes = m_store->content(k.sha256);
            out.insert(rel, bytes ? bytes.value() : QByteArray("(gone)"));
        }
        return out;
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        const QString base = m_dir.path() + "/" + QString::number(QRandomGenerator::global()->generate());
        m_ws = base + "/ws";
        m_store = std::make_shared<SnapshotStore>(base + "/data/snapshots", SnapshotStore::Limits{});
        QDir().mkpath(base + "/data");
        QDir().mkpath(m_ws);
        QCOMPARE(QProcess::execute("git", {"init", "-q", m_ws}), 0);
        writeFile(m_ws + "/a.txt", "line one\nline two\n");
        writeFile(m_ws + "/b.txt", "committed b\n");
        writeFile(m_ws + "/src/c.py", "print('c')\n");
        writeFile(m_ws + "/src/d.py", "print('d')\n");
        writeFile(m_ws + "/src/e.py", "print('e')\n");
        writeFile(m_ws + "/Makefile",
                  "gen:\n\t@mkdir -p gen && echo made > gen/out.txt && echo made > made.txt\n");
        QCOMPARE(QProcess::execute("git", {"-C", m_ws, "add", "-A"}), 0);
        QCOMPARE(QProcess::execute("git", {"-C", m_ws, "-c", "user.name=t", "-c",
                                           "user.email=t@example.invalid", "commit", "-q", "-m", "init"}),
                 0);
        writeFile(m_ws + "/a.txt", "line one\nline two\nan hour of uncommitted work\n"); // dirty
        writeFile(m_ws + "/notes.md", "untracked notes\n");
        writeFile(m_ws + "/node_modules/x/index.js", "module.exports = 1;\n");
    }

    void disarm_namesWhatRealProgramsChanged_withTheBytesBefore_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("changed");
        QTest::newRow("sed -i") << "sed -i 's/line/LINE/' a.txt" << QStringList{"a.txt"};
        QTest::newRow("echo > a new file") << "echo new > new.txt" << QStringList{"new.txt"};
        QTest::newRow("cp over a committed file") << "cp notes.md b.txt" << QStringList{"b.txt"};
        QTest::newRow("mv of an untracked file")
            << "mv notes.md moved.md" << QStringList{"moved.md", "notes.md"};
        QTest::newRow("tar -cf over a dirty file") << "tar -cf a.txt b.txt" << QStringList{"a.txt"};
        QTest::newRow("a python3 script that rewrites three files")
            << "python3 -c \"import pathlib\nfor n in 'cde': "
               "pathlib.Path(f'src/{n}.py').write_text('print(0)\\n')\""
            << QStringList{"src/c.py", "src/d.py", "src/e.py"};
        QTest::newRow("make that generates files") << "make -s gen" << QStringList{"gen/out.txt", "made.txt"};
        QTest::newRow("rm of an untracked file") << "rm notes.md" << QStringList{"notes.md"};
        QTest::newRow("chmod of a committed file") << "chmod 0600 b.txt" << QStringList{"b.txt"};
    }
    void disarm_namesWhatRealProgramsChanged_withTheBytesBefore()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, changed);
        QMap<QString, QByteArray> original;
        for (const QString &rel : changed)
            original.insert(rel,
                            QFileInfo::exists(m_ws + "/" + rel) ? readFile(m_ws + "/" + rel) : "(created)");
        WorkspaceNet net({m_ws}, m_store);
        net.arm("call", 0);
        QVERIFY(net.armed());
        sh(command);
        const WorkspaceNet::Outcome outcome = net.disarm("call");
        QVERIFY(outcome.recorded);
        QVERIFY(!net.armed());
        QCOMPARE(before(outcome), original);
        QVERIFY(outcome.unkept.isEmpty());
        QCOMPARE(outcome.sharedWith, 0);
    }

    void nothingChanged_aTouch_andTheRegeneratedFolders_areNoChange()
    {
        WorkspaceNet net({m_ws}, m_store);
        net.arm("call", 0);
        sh("touch a.txt && echo rebuilt > node_modules/x/index.js && mkdir -p build && echo o > build/a.o");
        const auto outcome = net.disarm("call");
        QVERIFY2(outcome.kept.isEmpty(), qPrintable(before(outcome).keys().join(", ")));
        QVERIFY(net.filesRecorded() >= 7);
    }

    void theNextRecord_copiesOnlyWhatChanged_andSeesTheNewState()
    {
        WorkspaceNet net({m_ws}, m_store);
        net.arm("first", 0);
        sh("echo second > b.txt");
        QCOMPARE(net.disarm("first").kept.size(), 1);
        net.arm("second", 0); // b.txt is recorded again as it is now
        sh("echo third > b.txt");
        const auto outcome = net.disarm("second");
        QCOMPARE(before(outcome), (QMap<QString, QByteArray>{{"b.txt", "second\n"}}));
    }

    void overlappingCalls_shareOneRecord_andSaySo()
    {
        WorkspaceNet net({m_ws}, m_store);
        net.arm("a", 0);
        net.arm("b", 0);
        sh("echo x > b.txt");
        const auto a = net.disarm("a");
        QCOMPARE(a.sharedWith, 1);
        QCOMPARE(before(a).keys(), QStringList{"b.txt"});
        const auto b = net.disarm("b");
        QCOMPARE(before(b).keys(), QStringList{"b.txt"});
        QVERIFY(!net.disarm("c").recorded);
    }

    void theDataFolderInsideARoot_isNotRecorded()
    {
        const QString data = m_ws + "/.countersign-data";
        auto store = std::make_shared<SnapshotStore>(data + "/snapshots", SnapshotStore::Limits{});
        writeFile(data + "/countersign.db", "db");
        WorkspaceNet net({m_ws}, store);
        net.arm("call", 0);
        writeFile(data + "/countersign.db", "db, written by the console");
        QVERIFY(net.disarm("call").kept.isEmpty());
    }

    void aRootPastItsLimit_isNotRecorded()
    {
        WorkspaceNet net({m_ws}, m_store, WorkspaceNet::Limits{3, 1 << 20});
        net.arm("call", 0);
        QCOMPARE(net.skippedRoots(), QStringList{m_ws});
        QCOMPARE(net.filesRecorded(), 0);
        sh("echo x > b.txt");
        QVERIFY(net.disarm("call").kept.isEmpty());
    }

    void pastTheBytesOfOneRecord_aChangeIsNamedWithNoCopy()
    {
        WorkspaceNet net({m_ws}, m_store, WorkspaceNet::Limits{1000, 0});
        net.arm("call", 0);
        sh("echo x > b.txt");
        const auto outcome = net.disarm("call");
        QVERIFY(outcome.kept.isEmpty());
        QCOMPARE(outcome.unkept, QStringList{m_ws + "/b.txt"});
    }

    void forgetStale_dropsCallsWhoseReportNeverCame()
    {
        WorkspaceNet net({m_ws}, m_store);
        net.arm("old", 10);
        net.arm("new", 5000);
        net.forgetStale(1000);
        QVERIFY(!net.disarm("old").recorded);
        QVERIFY(net.disarm("new").recorded);
    }
};

QTEST_GUILESS_MAIN(WorkspaceNetTest)
#include "workspacenet_test.moc"
