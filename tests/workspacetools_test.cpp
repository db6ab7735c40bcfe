// The workspace tools through the real gate over a real temporary git repository (made with
// libgit2): plans (diffs, blast radius, git state), nothing done before approval and exactly the
// plan after, a file changed between card and retry failing closed, and every confinement case.
#include "approvalqueue.h"
#include "auditstore.h"
#include "commandrunner.h"
#include "database.h"
#include "fakeclock.h"
#include "fileundo.h"
#include "gate.h"
#include "gatestack.h"
#include "helperfailure.h"
#include "jsonrpc.h"
#include "receipt.h"
#include "snapshotstore.h"
#include "ticketsealer.h"
#include "tool.h"
#include "toolregistry.h"
#include "undoableapply.h"
#include "workspace.h"
#include "workspacetools.h"

#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class WorkspaceToolsTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_root;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    AuditStore *m_store = nullptr;
    Gate *m_gate = nullptr;
    ApprovalQueue *m_queue = nullptr;
    std::unique_ptr<CommandRunner> m_runner;
    std::shared_ptr<SnapshotStore> m_snapshots; // for the undo_ tests
    ToolRegistry m_tools;

    QString path(const QString &rel) const { return m_root + QLatin1Char('/') + rel; }
    [[nodiscard]] bool write(const QString &rel, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(path(rel)).absolutePath());
        QFile f(path(rel));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return helperFailed(QStringLiteral("cannot write %1: %2").arg(rel, f.errorString()));
        return true;
    }
    QByteArray read(const QString &rel) const
    {
        QFile f(path(rel));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
    }
    // git init, add everything, commit (libgit2, so no git binary is needed).
    void commitAll()
    {
        git_libgit2_init();
        git_repository *repo = nullptr;
        QVERIFY(git_repository_init(&repo, QFile::encodeName(m_root).constData(), 0) == 0);
        git_index *index = nullptr;
        QVERIFY(git_repository_index(&index, repo) == 0);
        QVERIFY(git_index_add_all(index, nullptr, 0, nullptr, nullptr) == 0);
        QVERIFY(git_index_write(index) == 0);
        git_oid tree_id, commit_id;
        QVERIFY(git_index_write_tree(&tree_id, index) == 0);
        git_tree *tree = nullptr;
        QVERIFY(git_tree_lookup(&tree, repo, &tree_id) == 0);
        git_signature *sig = nullptr;
        QVERIFY(git_signature_now(&sig, "Test", "test@example.com") == 0);
        QVERIFY(git_commit_create_v(&commit_id, repo, "HEAD", sig, sig, nullptr, "init", tree, 0) == 0);
        git_signature_free(sig);
        git_tree_free(tree);
        git_index_free(index);
        git_repository_free(repo);
    }
    ToolReply call(const char *tool, const json &params)
    {
        McpRequest request;
        request.id = 1;
        request.method = QStringLiteral("tools/call");
        request.params = params;
        request.params["name"] = tool;
        request.envelope.protocolVersion = QLatin1String(JsonRpc::kProtocolVersion);
        const CallContext context{Principal{1, QStringLiteral("agent"), {}}, Transport::Http};
        const json arguments = params.value("arguments", json::object());
        std::optional<ToolReply> out;
        m_tools.find(QLatin1String(tool))
            ->call(ToolCall{arguments, request.params, request, context},
                   [&out](ToolReply r) { out = std::move(r); });
        if (!QTest::qWaitFor([&] { return out.has_value(); }, 10000))
            return ProtocolError{0, QStringLiteral("no answer from %1").arg(QLatin1String(tool)), {}};
        return std::move(*out);
    }
    // The reply as a result; a protocol error (or no answer) fails the test.
    [[nodiscard]] static bool asResult(const ToolReply &r, json &out)
    {
        if (!std::holds_alternative<json>(r))
            return helperFailed(QStringLiteral("protocol error: %1").arg(std::get<ProtocolError>(r).message));
        out = std::get<json>(r);
        return true;
    }
    // The first text block, or a description of what came instead (never throws).
    static QString text(const json &r)
    {
        const json t = r.is_object() && r.contains("content") && r["content"].is_array() &&
                               !r["content"].empty() && r["content"][0].is_object()
                           ? r["content"][0].value("text", json())
                           : json();
        return t.is_string()
                   ? QString::fromStdString(t.get<std::string>())
                   : QStringLiteral("(no text content in %1)").arg(QString::fromStdString(r.dump()));
    }
    // First pass: must park a card; gives its requestState and the card.
    [[nodiscard]] bool ask(const char *tool, const json &arguments, std::string *state, Operation *card)
    {
        json r;
        if (!asResult(call(tool, {{"arguments", arguments}}), r))
            return false;
        if (r.value("resultType", "") != "input_required" || !r.contains("requestState") ||
            !r["requestState"].is_string() || m_queue->pending().isEmpty())
            return helperFailed(QStringLiteral("%1 did not ask: %2")
                                    .arg(QLatin1String(tool), QString::fromStdString(r.dump())));
        *state = r["requestState"].get<std::string>();
        *card = m_queue->pending().first();
        return true;
    }
    [[nodiscard]] bool approveAndRetry(const char *tool, const json &arguments, const std::string &state,
                                       const Operation &card, json &out)
    {
        const auto approved =
            m_queue->approve(card.nonce, QStringLiteral("console:alice"), card.confirmationText());
        if (!approved)
            return helperFailed(QStringLiteral("approve failed: %1").arg(approved.error()));
        return asResult(call(tool, {{"arguments", arguments}, {"requestState", state}}), out);
    }
    // A refusal before any card: isError, and the queue stays empty.
    void verifyRefused(const char *tool, const json &arguments, const char *why)
    {
        json r;
        QVERIFY(asResult(call(tool, {{"arguments", arguments}}), r));
        QVERIFY2(r.value("isError", false), r.dump().c_str());
        QVERIFY2(text(r).contains(QLatin1String(why)), qPrintable(text(r)));
        QCOMPARE(m_queue->pending().size(), 0);
    }

private Q_SLOTS:
    void init()
    {
        m_root = QFileInfo(m_dir.filePath(QStringLiteral("ws-%1").arg(QTest::currentTestFunction())))
                     .absoluteFilePath();
        QDir().mkpath(m_root);
        m_root = QFileInfo(m_root).canonicalFilePath();
        QVERIFY(write(QStringLiteral("src/app.txt"), "one\ntwo\nthree\n"));
        QVERIFY(write(QStringLiteral("src/lib.txt"), "alpha\nbeta\n"));
        commitAll();
        auto stack = GateStack::create(m_clock, QStringLiteral(":memory:"), Policy(),
                                       Gate::Settings{300'000, 200, {}, 50'000});
        QVERIFY2(stack.ok(), qPrintable(stack.ok() ? QString() : stack.error()));
        m_stack = std::move(stack).value();
        m_store = &m_stack->store();
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        m_runner = std::make_unique<CommandRunner>();
        m_tools.clear();
        const QString test = QLatin1String(QTest::currentTestFunction());
        m_snapshots = test.startsWith(QLatin1String("undo_"))
                          ? std::make_shared<SnapshotStore>(m_dir.filePath(QStringLiteral("kept-") + test),
                                                            SnapshotStore::Limits{})
                          : nullptr;
        WorkspaceTools::addTo(m_tools, std::make_shared<const Workspace>(QStringList{m_root}), *m_runner,
                              *m_gate, m_snapshots);
    }
    // Approves the card and runs it; the card must say the change can be undone.
    [[nodiscard]] bool runUndoable(const char *tool, const json &args, const char *words, Operation *card)
    {
        std::string state;
        json r;
        if (!ask(tool, args, &state, card) || !approveAndRetry(tool, args, state, *card, r))
            return false;
        if (!card->plan.summary.contains(QLatin1String(words)) || !card->plan.blastRadius.contains("undo"))
            return helperFailed(QStringLiteral("the card does not say \"%1\": %2")
                                    .arg(QLatin1String(words), card->plan.summary));
        if (r.value("isError", false))
            return helperFailed(QStringLiteral("it failed: %1").arg(QString::fromStdString(r.dump())));
        return true;
    }
    void cleanup()
    {
        m_tools.clear();
        m_runner.reset();
        m_stack.reset();
    }

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
        QVERIFY(card.plan.diff.contains(QLatin1String("-src/notes.txt   (untracked: lost for good)")));
        QVERIFY(
            card.plan.diff.contains(QLatin1String("-src/lib.txt   (uncommitted changes: lost for good)")));
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
    // Countersign's own tools keep what an approved change overwrites or deletes, as an agent's own
    // tools do: its card says so, the chain names the copies, and FileUndo brings them back.
    void undo_writeEditMoveDelete_areTakenBack()
    {
        FileUndo undo(*m_store, *m_snapshots);
        Operation card;
        QVERIFY(runUndoable("write_file", {{"path", "src/app.txt"}, {"content", "replaced\n"}},
                            "keeps a copy of the file it deletes or overwrites (14 bytes)", &card));
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("replaced\n"));
        auto preview = undo.preview(card.nonce);
        QVERIFY(preview.ok() && preview.value().refusal.isEmpty());
        QVERIFY2(preview.value().diff.contains(QLatin1String("-replaced\n+one\n+two\n+three")),
                 qPrintable(preview.value().diff));
        QVERIFY(undo.revert(card.nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\ntwo\nthree\n"));
        QVERIFY(!undo.revert(card.nonce, QStringLiteral("console:alice")).ok()); // once

        QVERIFY(runUndoable("edit_file",
                            {{"path", "src/lib.txt"}, {"edits", {{{"oldText", "beta"}, {"newText", "B"}}}}},
                            "keeps a copy", &card));
        QVERIFY(write(QStringLiteral("src/lib.txt"), "work done since\n"));
        auto refused = undo.revert(card.nonce, QStringLiteral("console:alice"));
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QLatin1String("changed since")), qPrintable(refused.error()));
        QCOMPARE(read(QStringLiteral("src/lib.txt")), QByteArray("work done since\n"));

        QVERIFY(runUndoable("move_path", {{"from", "src/app.txt"}, {"to", "src/moved.txt"}},
                            "keeps a copy of the 2 files", &card));
        QVERIFY(undo.revert(card.nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\ntwo\nthree\n"));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("src/moved.txt"))));

        QVERIFY(write(QStringLiteral("src/deep/notes.txt"), "never committed\n"));
        QVERIFY(runUndoable("delete_path", {{"path", "src"}, {"recursive", true}},
                            "keeps a copy of the 3 files", &card));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("src"))));
        QVERIFY(undo.revert(card.nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(read(QStringLiteral("src/deep/notes.txt")), QByteArray("never committed\n"));
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\ntwo\nthree\n"));
    }
    // run_command keeps what its measured rm deletes, and what a reset discards.
    void undo_runCommand_rmAndReset()
    {
        FileUndo undo(*m_store, *m_snapshots);
        Operation card;
        QVERIFY(runUndoable("run_command", {{"argv", {"rm", "-r", "src"}}}, "keeps a copy of the 2 files",
                            &card));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("src"))));
        QVERIFY(undo.revert(card.nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(read(QStringLiteral("src/lib.txt")), QByteArray("alpha\nbeta\n"));
        QVERIFY(write(QStringLiteral("src/app.txt"), "an hour of work\n"));
        QVERIFY(runUndoable("run_command", {{"argv", {"git", "reset", "--hard"}}}, "keeps a copy", &card));
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("one\ntwo\nthree\n"));
        QVERIFY(undo.revert(card.nonce, QStringLiteral("console:alice")).ok());
        QCOMPARE(read(QStringLiteral("src/app.txt")), QByteArray("an hour of work\n"));
    }
    // What cannot be kept is said on the card, and runs as approved; a copy the card promised
    // that cannot be made at the run refuses it, and nothing changes.
    void undo_whatCannotBeKept()
    {
        QVERIFY(QFile::link(path(QStringLiteral("src/app.txt")), path(QStringLiteral("src/alias"))));
        std::string state;
        Operation card;
        QVERIFY(ask("delete_path", {{"path", "src"}, {"recursive", true}}, &state, &card));
        QVERIFY2(card.plan.summary.contains(QLatin1String("It cannot be undone: no copy is kept, as")) &&
                     card.plan.summary.contains(QLatin1String("alias is not a regular file")),
                 qPrintable(card.plan.summary));
        QVERIFY(m_queue->decline(card.nonce, QStringLiteral("console:alice"), {}).ok());
        QVERIFY(QFile::remove(path(QStringLiteral("src/alias"))));
        const json args = {{"path", "src/lib.txt"}, {"content", "new\n"}};
        QVERIFY(ask("write_file", args, &state, &card));
        // The store's folder becomes a file: no copy can be written.
        QVERIFY(QDir(m_snapshots->directory()).removeRecursively());
        QFile blocker(m_snapshots->directory());
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        json r;
        QVERIFY(approveAndRetry("write_file", args, state, card, r));
        QVERIFY2(r.value("isError", false) && text(r).contains(QLatin1String("Nothing was changed")),
                 r.dump().c_str());
        QCOMPARE(read(QStringLiteral("src/lib.txt")), QByteArray("alpha\nbeta\n"));
    }
    // A card that promised a copy holds the run to it: a file that can no longer be kept (swapped
    // for a hard link between the re-plan and the run), or other files than it counted, refuse
    // the run and nothing runs; with no promise (a rule allowed it), it runs.
    void undo_promisedCopy_isKeptOrNothingRuns()
    {
        const UndoableApply undo(m_snapshots);
        const Workspace ws(QStringList{m_root});
        Plan promised;
        promised.blastRadius = {{"undo", {{"files", 1}, {"bytes", 14}}}};
        QVERIFY(::link(QFile::encodeName(path(QStringLiteral("src/lib.txt"))).constData(),
                       QFile::encodeName(path(QStringLiteral("src/lib-link"))).constData()) == 0);
        int runs = 0;
        std::optional<json> answer;
        const auto recordNothing = [](const QString &, const json &) {};
        const auto run = [&runs](GatedAction::ApplyDone d) {
            ++runs;
            d({{"content", json::array()}});
        };
        const UndoPlan linked = undo.plan({path(QStringLiteral("src/lib.txt"))}, ws);
        QVERIFY2(!linked.undoable() && linked.why.contains(QLatin1String("hard links")),
                 qPrintable(linked.why));
        undo.run(linked, promised, recordNothing, run, [&answer](json r) { answer = std::move(r); });
        QVERIFY(answer && answer->value("isError", false));
        QVERIFY2(text(*answer).contains(QLatin1String("its card said it could be undone")),
                 qPrintable(text(*answer)));
        QCOMPARE(runs, 0);
        answer.reset();
        const UndoPlan two =
            undo.plan({path(QStringLiteral("src/app.txt")), path(QStringLiteral("new.txt"))}, ws);
        QVERIFY(two.undoable());
        undo.run(two, promised, recordNothing, run, [&answer](json r) { answer = std::move(r); });
        QVERIFY(answer && answer->value("isError", false));
        QCOMPARE(runs, 0);
        answer.reset();
        undo.run(linked, Plan::settledByRule(QStringLiteral("write_file")), recordNothing, run,
                 [&answer](json r) { answer = std::move(r); });
        QVERIFY(answer && !answer->value("isError", false));
        QCOMPARE(runs, 1);
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
