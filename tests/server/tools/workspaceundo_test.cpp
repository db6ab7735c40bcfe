// Countersign's own workspace tools keep what an approved change overwrites or deletes, as an
// agent's own tools do (issue 38): the card says whether it can be undone, the chain names the kept
// copies, FileUndo brings them back; a promised copy that cannot be made refuses the run. Over a
// real git repository and the real gate (WorkspaceFixture).
#include "workspacefixture.h"

#include "fileundo.h"
#include "undoableapply.h"

#include <unistd.h>

using json = nlohmann::json;

class WorkspaceUndoTest : public QObject, protected WorkspaceFixture
{
    Q_OBJECT
private Q_SLOTS:
    void init() { setUp(true); }
    void cleanup() { tearDown(); }

    // Countersign's own tools keep what an approved change overwrites or deletes, as an agent's own
    // tools do: its card says so, the chain names the copies, and FileUndo brings them back.
    void writeEditMoveDelete_areTakenBack()
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
    void runCommand_rmAndReset()
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
    void whatCannotBeKept()
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
    void promisedCopy_isKeptOrNothingRuns()
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
};

QTEST_GUILESS_MAIN(WorkspaceUndoTest)
#include "workspaceundo_test.moc"
