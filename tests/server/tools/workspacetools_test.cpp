// The workspace tools through the real gate over a real temporary git repository (made with
// libgit2): plans (diffs, blast radius, git state), nothing done before approval and exactly the
// plan after, a file changed between card and retry failing closed, and every confinement case.
#include "workspacefixture.h"

#include "database.h"
#include "receipt.h"
#include "ticketsealer.h"

#include <sys/stat.h>

using json = nlohmann::json;

class WorkspaceToolsTest : public QObject, protected WorkspaceFixture
{
    Q_OBJECT
private Q_SLOTS:
    void init() { setUp(false); }
    void cleanup() { tearDown(); }

    void readAndList_areAllowedWithoutACard()
    {
        json r;
        QVERIFY(asResult(call("read_file", {{"arguments", {{"path", "src/app.txt"}}}}), r));
        QCOMPARE(text(r), QStringLiteral("one\ntwo\nthree\n"));
        QVERIFY(asResult(call("list_directory", {{"arguments", {{"path", "src"}}}}), r));
        QVERIFY(text(r).contains(QLatin1String("app.txt  14 bytes")));
        QCOMPARE(m_queue->pending().size(), 0);
    }
    void writeFile_newFile_isAllAdded_andWrittenOnlyAfterApproval()
    {
        std::string state;
        const json args = {{"path", "src/new.txt"}, {"content", "hello\nworld\n"}};
        Operation card;
        QVERIFY(ask("write_file", args, &state, &card));
        QVERIFY2(card.plan.diff.contains(QLatin1String("+++ b/src/new.txt")), qPrintable(card.plan.diff));
        QVERIFY(card.plan.diff.contains(QLatin1String("+hello\n+world")));
        QCOMPARE(card.plan.blastRadius.at("linesAdded").get<int>(), 2);
        QCOMPARE(card.plan.blastRadius.at("newFile").get<bool>(), true);
        QVERIFY(!QFile::exists(path(QStringLiteral("src/new.txt"))));
        json r;
        QVERIFY(approveAndRetry("write_file", args, state, card, r));
        QVERIFY2(!r.value("isError", false), r.dump().c_str());
        QCOMPARE(read(QStringLiteral("src/new.txt")), QByteArray("hello\nworld\n"));
    }
    // A new file in new folders: the card says which folders it creates; nothing exists before
    // the approval; the folders and the file after it.
    void writeFile_intoNewFolders_namesThemOnTheCard_andCreatesThemAfterApproval()
    {
        std::string state;
        const json args = {{"path", "docs/guide/intro.md"}, {"content", "# Intro\n"}};
        Operation card;
        QVERIFY(ask("write_file", args, &state, &card));
        QVERIFY2(card.plan.summary.contains(QLatin1String("creates the folders docs, docs/guide")),
                 qPrintable(card.plan.summary));
        QCOMPARE(card.plan.blastRadius.at("newFolders").get<int>(), 2);
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("docs"))));
        json r;
        QVERIFY(approveAndRetry("write_file", args, state, card, r));
        QVERIFY2(!r.value("isError", false), r.dump().c_str());
        QCOMPARE(read(QStringLiteral("docs/guide/intro.md")), QByteArray("# Intro\n"));
    }
    // Qt calls ":name" absolute (its compiled-in resources): to an agent it is a file in the root.
    // Judged as a resource, a new ":src/new/b" once sent the planner up its folders for ever.
    void writeFile_pathStartingWithAColon_isAFileInTheRoot()
    {
        std::string state;
        const json args = {{"path", ":src/new/b.txt"}, {"content", "x\n"}};
        Operation card;
        QVERIFY(ask("write_file", args, &state, &card));
        QVERIFY2(card.plan.diff.contains(QLatin1String("+++ b/:src/new/b.txt")), qPrintable(card.plan.diff));
        json r;
        QVERIFY(approveAndRetry("write_file", args, state, card, r));
        QVERIFY2(!r.value("isError", false), r.dump().c_str());
        QCOMPARE(read(QStringLiteral(":src/new/b.txt")), QByteArray("x\n"));
    }
    // A folder made into a link out of the roots between the card and the run: refused at the run
    // (the plan changed, so the card is superseded; nothing is written outside).
    void writeFile_newFolderTurnedIntoALinkOut_writesNothingOutside()
    {
        QTemporaryDir outside;
        std::string state;
        const json args = {{"path", "made/deep/x.txt"}, {"content", "x"}};
        Operation card;
        QVERIFY(ask("write_file", args, &state, &card));
        QVERIFY(QFile::link(outside.path(), path(QStringLiteral("made"))));
        json r;
        QVERIFY(approveAndRetry("write_file", args, state, card, r));
        QVERIFY2(r.value("isError", false) || r.value("resultType", "") == "input_required",
                 r.dump().c_str());
        QVERIFY(!QFileInfo::exists(outside.filePath(QStringLiteral("deep/x.txt"))));
        QVERIFY(!QFileInfo::exists(outside.filePath(QStringLiteral("deep"))));
        // And asked afresh, it is refused before any card.
        verifyRefused("write_file", args, "outside the workspace");
    }
    void editFile_planIsTheRealDiff_andAppliesExactlyIt()
    {
        std::string state;
        const json args = {{"path", "src/app.txt"}, {"edits", {{{"oldText", "two"}, {"newText", "TWO"}}}}};
        Operation card;
        QVERIFY(ask("edit_file", args, &state, &card));
        QVERIFY2(card.plan.diff.contains(QLatin1String("@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three")),
                 qPrintable(card.plan.diff));
        QCOMPARE(card.plan.risk, Risk::Medium); // tracked and committed: git can bring it back
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\ntwo\nthree\n"));
        json r;
        QVERIFY(approveAndRetry("edit_file", args, state, card, r));
        QVERIFY2(!r.value("isError", false), r.dump().c_str());
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\nTWO\nthree\n"));
    }
    void editFile_oldTextNotExactlyOnce_isRefusedBeforeAnyCard()
    {
        QVERIFY(write(QStringLiteral("src/dup.txt"), "x\nx\n"));
        verifyRefused("edit_file",
                      {{"path", "src/dup.txt"}, {"edits", {{{"oldText", "x"}, {"newText", "y"}}}}},
                      "matches 2 times");
        verifyRefused("edit_file",
                      {{"path", "src/app.txt"}, {"edits", {{{"oldText", "nine"}, {"newText", "y"}}}}},
                      "matches 0 times");
        QCOMPARE(read(QStringLiteral("src/dup.txt")), QByteArray("x\nx\n"));
    }
    void fileChangedBetweenCardAndRetry_failsClosed()
    {
        std::string state;
        const json args = {{"path", "src/lib.txt"}, {"edits", {{{"oldText", "beta"}, {"newText", "BETA"}}}}};
        Operation card;
        QVERIFY(ask("edit_file", args, &state, &card));
        QVERIFY(write(QStringLiteral("src/lib.txt"), "alpha\nbeta\ngamma\n")); // someone else edits the file
        json r;
        QVERIFY(approveAndRetry("edit_file", args, state, card, r));
        QCOMPARE(QString::fromStdString(r.value("resultType", "")), QStringLiteral("input_required"));
        QCOMPARE(read(QStringLiteral("src/lib.txt")), QByteArray("alpha\nbeta\ngamma\n"));
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(m_queue->pending().first().supersedes, card.nonce);
    }
    void deletePath_listsWhatGoes_andWhatGitCannotBringBack()
    {
        QVERIFY(write(QStringLiteral("src/notes.txt"), "untracked\n"));    // never committed
        QVERIFY(write(QStringLiteral("src/lib.txt"), "alpha\nchanged\n")); // uncommitted change
        std::string state;
        const json args = {{"path", "src"}, {"recursive", true}};
        Operation card;
        QVERIFY(ask("delete_path", args, &state, &card));
        QCOMPARE(card.plan.blastRadius.at("files").get<int>(), 3);
        QCOMPARE(card.plan.blastRadius.at("untracked").get<int>(), 1);
        QCOMPARE(card.plan.blastRadius.at("uncommitted").get<int>(), 1);
        QCOMPARE(card.plan.risk, Risk::High);
        QVERIFY(
            card.plan.diff.contains(QLatin1String("-src/notes.txt   (untracked: git cannot bring it back)")));
        QVERIFY(card.plan.diff.contains(
            QLatin1String("-src/lib.txt   (uncommitted changes: git cannot bring them back)")));
        QVERIFY(QFile::exists(path(QStringLiteral("src/app.txt"))));
        json r;
        QVERIFY(approveAndRetry("delete_path", args, state, card, r));
        QVERIFY2(!r.value("isError", false), r.dump().c_str());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("src"))));
    }
    void deletePath_committedFile_isMediumRisk_folderNeedsRecursive()
    {
        std::string state;
        Operation card;
        QVERIFY(ask("delete_path", {{"path", "src/app.txt"}}, &state, &card));
        QCOMPARE(card.plan.risk, Risk::Medium);
        QCOMPARE(card.plan.blastRadius.at("bytes").get<int>(), 14);
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        verifyRefused("delete_path", {{"path", "src"}}, "recursive: true");
        verifyRefused("delete_path", {{"path", m_root.toStdString()}, {"recursive", true}}, "workspace root");
    }
    // The typed confirmation names what a command acts on: for git push the remote and what is
    // pushed, otherwise the whole command line (never just "git" or "rm").
    void runCommand_confirmationNamesWhatMatters()
    {
        std::string state;
        Operation card;
        QVERIFY(ask("run_command", {{"argv", {"git", "-C", "src", "push", "--force", "origin", "main"}}},
                    &state, &card));
        QCOMPARE(card.confirmationText(), QStringLiteral("origin main"));
        QVERIFY(card.needsTypedConfirmation());
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        QVERIFY(ask("run_command", {{"argv", {"rm", "-rf", "build"}}}, &state, &card));
        QCOMPARE(card.confirmationText(), QStringLiteral("rm -rf build"));
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        QVERIFY(ask("run_command", {{"argv", {"git", "push"}}}, &state, &card));
        QCOMPARE(card.confirmationText(), QStringLiteral("git push")); // no remote named: the whole line
    }
    // run_command measures what it would lose as an agent's own shell does: git reset --hard over
    // an uncommitted change shows that change, in words and as the diff.
    void runCommand_measuresWhatAResetDiscards()
    {
        QVERIFY(write(QStringLiteral("src/app.txt"), "one\nTWO, an hour of work\nthree\n"));
        std::string state;
        Operation card;
        QVERIFY(ask("run_command", {{"argv", {"git", "reset", "--hard"}}}, &state, &card));
        QVERIFY2(card.plan.summary.startsWith(QStringLiteral(
                     "Discards the uncommitted changes in 1 file (+1 −1 lines), which git cannot bring back: "
                     "src/app.txt (+1 −1).")),
                 qPrintable(card.plan.summary));
        QVERIFY2(card.plan.diff.contains(QLatin1String("-two\n+TWO, an hour of work")),
                 qPrintable(card.plan.diff));
        QCOMPARE(
            QString::fromStdString(card.plan.blastRadius.at("measured").at(0).at("kind").get<std::string>()),
            QStringLiteral("discard"));
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\nTWO, an hour of work\nthree\n"));
    }
    // A recursive delete lists its files in path order, and counts them in words.
    void deletePath_listsFilesSorted()
    {
        QVERIFY(write(QStringLiteral("tree/b.txt"), "b"));
        QVERIFY(write(QStringLiteral("tree/a/z.txt"), "z"));
        QVERIFY(write(QStringLiteral("tree/a.txt"), "a"));
        std::string state;
        Operation card;
        QVERIFY(ask("delete_path", {{"path", "tree"}, {"recursive", true}}, &state, &card));
        const QStringList lines = card.plan.diff.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines.at(0).startsWith(QLatin1String("-tree/a.txt")) &&
                     lines.at(1).startsWith(QLatin1String("-tree/a/z.txt")) &&
                     lines.at(2).startsWith(QLatin1String("-tree/b.txt")),
                 qPrintable(card.plan.diff));
        // In the same words as an agent's own rm -rf of it.
        QVERIFY2(card.plan.summary.endsWith(
                     QLatin1String("tree: 3 files in 2 folders (3 bytes); 3 git cannot bring back (3 "
                                   "untracked or ignored, 0 with uncommitted changes).")),
                 qPrintable(card.plan.summary));
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        QVERIFY(ask("delete_path", {{"path", "tree/b.txt"}}, &state, &card));
        QVERIFY2(card.plan.summary.endsWith(QLatin1String("b.txt: 1 file (1 bytes); 1 git cannot bring "
                                                          "back (1 untracked or ignored, 0 with uncommitted "
                                                          "changes).")),
                 qPrintable(card.plan.summary));
    }
    void movePath_showsTheOverwrite()
    {
        std::string state;
        const json args = {{"from", "src/app.txt"}, {"to", "src/lib.txt"}};
        Operation card;
        QVERIFY(ask("move_path", args, &state, &card));
        QVERIFY(card.plan.diff.contains(QLatin1String("rename from src/app.txt\nrename to src/lib.txt")));
        QVERIFY(card.plan.diff.contains(QLatin1String("-src/lib.txt (11 bytes, overwritten)")));
        QCOMPARE(card.plan.blastRadius.at("overwrites").get<bool>(), true);
        json r;
        QVERIFY(approveAndRetry("move_path", args, state, card, r));
        QVERIFY2(!r.value("isError", false), r.dump().c_str());
        QCOMPARE(read(QStringLiteral("src/lib.txt")), QByteArray("one\ntwo\nthree\n"));
        QVERIFY(!QFile::exists(path(QStringLiteral("src/app.txt"))));
    }
    void runCommand_allowList_runsAtOnce_othersAsk_andReportExitCode()
    {
        json r;
        QVERIFY(asResult(call("run_command", {{"arguments", {{"argv", {"ls", "src"}}}}}), r));
        QVERIFY(text(r).startsWith(QLatin1String("exit code 0")));
        QVERIFY(text(r).contains(QLatin1String("app.txt")));
        QCOMPARE(m_queue->pending().size(), 0);
        std::string state;
        const json args = {{"argv", {"sh", "-c", "echo made > made.txt; exit 3"}}, {"cwd", "src"}};
        Operation card;
        QVERIFY(ask("run_command", args, &state, &card));
        QVERIFY(card.plan.diff.contains(QLatin1String("$ sh -c \"echo made > made.txt; exit 3\"")));
        QVERIFY(!QFile::exists(path(QStringLiteral("src/made.txt"))));
        QVERIFY(approveAndRetry("run_command", args, state, card, r));
        QCOMPARE(r.at("structuredContent").at("exitCode").get<int>(), 3);
        QCOMPARE(read(QStringLiteral("src/made.txt")), QByteArray("made\n"));
    }
    void confinement_everyEscapeIsRefused_andNothingTouched()
    {
        QTemporaryDir outside;
        QFile secret(outside.filePath(QStringLiteral("secret.txt")));
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write("secret");
        secret.close();
        QVERIFY(QFile::link(outside.path(), path(QStringLiteral("escape"))));
        QVERIFY(QFile::link(QStringLiteral("/dev/null"), path(QStringLiteral("null"))));
        verifyRefused("delete_path", {{"path", "../outside"}}, "\"..\" is not allowed");
        verifyRefused("delete_path", {{"path", "src/../../x"}}, "\"..\" is not allowed");
        verifyRefused("write_file", {{"path", secret.fileName().toStdString()}, {"content", "x"}},
                      "outside the workspace");
        verifyRefused("write_file", {{"path", "escape/secret.txt"}, {"content", "x"}},
                      "outside the workspace");
        verifyRefused("delete_path", {{"path", "escape"}, {"recursive", true}}, "outside the workspace");
        verifyRefused("edit_file", {{"path", "null"}, {"edits", {{{"oldText", "a"}, {"newText", "b"}}}}},
                      "outside the workspace");
        verifyRefused("write_file", {{"path", std::string("src/a\0b", 7)}, {"content", "x"}}, "NUL byte");
        verifyRefused("move_path", {{"from", "src/app.txt"}, {"to", "escape/app.txt"}},
                      "outside the workspace");
        verifyRefused("run_command", {{"argv", {"ls"}}, {"cwd", "escape"}}, "outside the workspace");
        QVERIFY(::mkfifo(QFile::encodeName(path(QStringLiteral("pipe"))).constData(), 0600) == 0);
        verifyRefused("write_file", {{"path", "pipe"}, {"content", "x"}}, "not a regular file or folder");
        verifyRefused("delete_path", {{"path", "pipe"}}, "not a regular file or folder");
        json escaped;
        QVERIFY(asResult(call("read_file", {{"arguments", {{"path", "escape/secret.txt"}}}}), escaped));
        QCOMPARE(escaped.value("isError", false), true);
        QVERIFY(QFile::exists(secret.fileName()));
        QFile s(secret.fileName());
        QVERIFY(s.open(QIODevice::ReadOnly));
        QCOMPARE(s.readAll(), QByteArray("secret"));
    }
    void binaryAndOversizedFiles()
    {
        QVERIFY(write(QStringLiteral("img.bin"), QByteArray("\x89PNG\0\0\x01", 7)));
        std::string state;
        Operation card;
        QVERIFY(ask("write_file", {{"path", "img.bin"}, {"content", "text now"}}, &state, &card));
        QCOMPARE(card.plan.diff, QStringLiteral("binary, 7 bytes → 8 bytes"));
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        verifyRefused("edit_file", {{"path", "img.bin"}, {"edits", {{{"oldText", "P"}, {"newText", "Q"}}}}},
                      "is binary");
        QVERIFY(write(QStringLiteral("big.txt"), QByteArray(5 * 1024 * 1024, 'a')));
        verifyRefused("edit_file", {{"path", "big.txt"}, {"edits", {{{"oldText", "a"}, {"newText", "b"}}}}},
                      "over the");
    }
};

QTEST_GUILESS_MAIN(WorkspaceToolsTest)
#include "workspacetools_test.moc"
