// The audit view's detail of one operation: what its card showed, invisible characters as marks, the blast
// radius in words, and Revert (the diff, the bytes restored, once).
#include "auditviewfixture.h"

#include <QTest>

class AuditViewDetailTest : public QObject, protected AuditViewFixture
{
    Q_OBJECT

private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

    void detail_showsWhatTheCardShowed()
    {
        Operation op = operation(QStringLiteral("c-volume"), m_clock.nowMs());
        op.plan.summary = QStringLiteral("3 files and 1 volume go with the service");
        op.plan.targets = {QStringLiteral("c-volume"), QStringLiteral("a-service"),
                           QStringLiteral("b-records")};
        op.plan.blastRadius = {{"files", 3},     {"bytes", 24576},   {"dnsRecords", 4},
                               {"volumeGB", 40}, {"newFile", false}, {"irreversible", true}};
        op.plan.risk = Risk::High;
        op.rule = QStringLiteral("rule 2: delete_service asks");
        QVERIFY(record(*m_store, op));
        showView();
        QVERIFY(listed());
        QVERIFY(select(op.nonce));
        const QString shown = find<QTextBrowser>("auditDetail")->toPlainText();
        for (const QString &expected : {op.plan.summary, QStringLiteral("High risk · irreversible"),
                                        QStringLiteral("rule 2: delete_service asks"),
                                        QStringLiteral("3 files, %1").arg(QLocale().formattedDataSize(24576)),
                                        QStringLiteral("4 DNS records"), QStringLiteral("40 GB volume"),
                                        QStringLiteral("Delete service c-volume?")})
            QVERIFY2(shown.contains(expected),
                     qPrintable(QStringLiteral("%1 not in:\n%2").arg(expected, shown)));
        for (const char *raw : {"dnsRecords", "volumeGB", "newFile", "irreversible:", "bytes:", "false"})
            QVERIFY2(!shown.contains(QLatin1String(raw)), raw);
        // The targets sorted.
        const qsizetype targets = shown.indexOf(QLatin1String("Targets\n"));
        const qsizetype a = shown.indexOf(QLatin1String("a-service"), targets);
        const qsizetype b = shown.indexOf(QLatin1String("b-records"), targets);
        const qsizetype c = shown.indexOf(QLatin1String("c-volume"), targets);
        QVERIFY2(targets >= 0 && targets < a && a < b && b < c, qPrintable(shown));
    }

    void detail_showsInvisibleCharactersAsMarks()
    {
        Operation op =
            operation(QStringLiteral("web") + QChar(0x202E) + QStringLiteral("1"), m_clock.nowMs());
        op.plan.summary = QStringLiteral("tag ") + QString::fromUcs4(U"\U000E0041") + QStringLiteral(" char");
        QVERIFY(record(*m_store, op));
        showView();
        QVERIFY(listed());
        QVERIFY(select(op.nonce));
        const QString shown = find<QTextBrowser>("auditDetail")->toPlainText();
        QVERIFY2(shown.contains(QStringLiteral("web\u27e6U+202E\u27e71")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("tag \u27e6U+E0041\u27e7 char")), qPrintable(shown));
        QVERIFY(!shown.contains(QChar(0x202E)));
    }

    void blastRadius_readsAsWords_data()
    {
        QTest::addColumn<json>("blast");
        QTest::addColumn<QStringList>("lines");
        const auto size = [](qint64 bytes) { return QLocale().formattedDataSize(bytes); };
        QTest::newRow("one file") << json{{"files", 1}} << QStringList{QStringLiteral("1 file")};
        QTest::newRow("two files") << json{{"files", 2}} << QStringList{QStringLiteral("2 files")};
        QTest::newRow("bytes once") << json{{"bytes", 102}} << QStringList{size(102)};
        QTest::newRow("files and their size") << json{{"files", 3}, {"bytes", 24576}}
                                              << QStringList{QStringLiteral("3 files, %1").arg(size(24576))};
        QTest::newRow("a new file")
            << json{{"files", 1}, {"newFile", true}, {"bytes", 14}, {"linesAdded", 2}, {"linesRemoved", 0}}
            << QStringList{QStringLiteral("a new file, %1").arg(size(14)),
                           QStringLiteral("2 lines added, 0 removed")};
        QTest::newRow("an edit")
            << json{{"files", 1}, {"newFile", false}, {"linesAdded", 1}, {"linesRemoved", 3}}
            << QStringList{QStringLiteral("1 file"), QStringLiteral("1 line added, 3 removed")};
        QTest::newRow("a recursive delete")
            << json{{"files", 12},      {"bytes", 2048},         {"untracked", 1},
                    {"uncommitted", 0}, {"inGitWorkTree", true}, {"irreversible", true}}
            << QStringList{QStringLiteral("12 files, %1").arg(size(2048)), QStringLiteral("1 untracked file"),
                           QStringLiteral("no uncommitted changes"),
                           QStringLiteral("inside a git work tree")};
        QTest::newRow("outside git") << json{{"inGitWorkTree", false}}
                                     << QStringList{QStringLiteral(
                                            "not in a git work tree: nothing can be restored")};
        QTest::newRow("a move that overwrites")
            << json{{"overwrites", true}, {"bytesOverwritten", 4096}}
            << QStringList{QStringLiteral("overwrites an existing file of %1").arg(size(4096))};
        QTest::newRow("a move that does not") << json{{"overwrites", false}, {"bytesOverwritten", 0}}
                                              << QStringList{QStringLiteral("overwrites nothing")};
        QTest::newRow("a command") << json{{"cwd", "/home/me/app"},
                                           {"pinnedFiles", {{"run.sh", "ab"}, {"lib.sh", "cd"}}}}
                                   << QStringList{
                                          QStringLiteral("runs in /home/me/app"),
                                          QStringLiteral("2 files pinned by their content: lib.sh, run.sh")};
        QTest::newRow("counted nouns")
            << json{{"dnsRecords", 4}, {"instances", 1}, {"policies", 1}}
            << QStringList{QStringLiteral("4 DNS records"), QStringLiteral("1 instance"),
                           QStringLiteral("1 policy")};
        QTest::newRow("units before their noun")
            << json{{"volumeGB", 40}, {"downtimeMinutes", 1}, {"logBytes", 2048}}
            << QStringList{QStringLiteral("1 minute downtime"), QStringLiteral("%1 log").arg(size(2048)),
                           QStringLiteral("40 GB volume")};
        QTest::newRow("flags") << json{{"deletesBackups", true}, {"keepsSnapshots", false}}
                               << QStringList{QStringLiteral("deletes backups")};
        QTest::newRow("values") << json{{"cluster", "prod-eu"}, {"maxSurge", 2}, {"regions", {"eu", "us"}}}
                                << QStringList{QStringLiteral("cluster: prod-eu"),
                                               QStringLiteral("max surge: 2"),
                                               QStringLiteral("regions: eu, us")};
        QTest::newRow("a known key of another type is still shown")
            << json{{"files", "many"}} << QStringList{QStringLiteral("files: many")};
        QTest::newRow("irreversible is the risk's") << json{{"irreversible", true}} << QStringList();
        QTest::newRow("what an agent's command would lose, measured")
            << json{{"measured",
                     {{{"kind", "discard"}, {"files", {{{"path", "main.rs"}, {"added", 3}, {"removed", 1}}}}},
                      {{"kind", "push"},
                       {"targets",
                        {{{"remote", "origin"}, {"branch", "main"}, {"deleting", false}, {"commits", 2}}}}},
                      {{"kind", "branch"}, {"branch", "spike"}, {"commits", 1}}}}}
            << QStringList{QStringLiteral("discards uncommitted changes: main.rs (+3 −1)"),
                           QStringLiteral("overwrites origin/main: 2 commits lost"),
                           QStringLiteral("deletes the branch spike: 1 commit no other branch holds")};
        QTest::newRow("what a write the card asks about replaces")
            << json{{"measured",
                     {{{"kind", "write"},
                       {"path", "/home/a/.bashrc"},
                       {"replaces", true},
                       {"lines", 3},
                       {"bytes", 2048},
                       {"restorable", false}},
                      {{"kind", "write"}, {"path", "/home/a/.profile"}, {"replaces", false}, {"lines", 1}},
                      {{"kind", "write"},
                       {"path", "/home/a/.zshrc"},
                       {"replaces", true},
                       {"exists", false}}}}}
            << QStringList{QStringLiteral("replaces /home/a/.bashrc: 3 lines, %1 (git cannot bring it back)")
                               .arg(size(2048)),
                           QStringLiteral("adds to /home/a/.profile (1 line now)"),
                           QStringLiteral("creates /home/a/.zshrc")};
        QTest::newRow("an undo kept")
            << json{{"undo", {{"files", 2}, {"bytes", 2048}}}}
            << QStringList{
                   QStringLiteral("undo: a copy of 2 files (%1) is kept before it runs").arg(size(2048))};
        QTest::newRow("no undo") << json{{"undo", {{"refused", "it deletes more than 2000 files"}}}}
                                 << QStringList{
                                        QStringLiteral("undo: none, as it deletes more than 2000 files")};
    }

    void blastRadius_readsAsWords()
    {
        QFETCH(json, blast);
        QFETCH(QStringList, lines);
        QCOMPARE(BlastRadiusText::lines(blast), lines);
        QCOMPARE(BlastRadiusText::text(blast), lines.isEmpty()
                                                   ? QStringLiteral("(nothing measured beyond the targets)")
                                                   : lines.join(QLatin1Char('\n')));
    }

    // A row whose change kept what it overwrote offers Revert: the dialog shows the diff it applies,
    // Revert restores the bytes and says so, and a second one is refused in the view. A row that
    // kept nothing offers none.
    void revert_showsTheDiff_restoresTheBytes_once()
    {
        SnapshotStore snapshots(m_dir.filePath(QStringLiteral("snapshots")), {});
        FileUndo undo(*m_store, snapshots);
        const QString file = m_dir.filePath(QStringLiteral("edited.txt"));
        const auto put = [&file](const QByteArray &bytes) {
            QFile f(file);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
        };
        QVERIFY(put("kept line\nbefore\n"));
        auto kept = snapshots.keep(file);
        QVERIFY(kept.ok());
        QVERIFY(put("kept line\nafter\n"));
        const QString nonce = add(QStringLiteral("quiet-edit"), Operation::Status::Approved);
        QVERIFY(m_store
                    ->recordEvent(QStringLiteral("agent-tool-ran"), nonce,
                                  {{"undo", FileUndo::record({kept.value()})}})
                    .ok());
        const QString other = add(QStringLiteral("nothing-kept"), Operation::Status::Approved);
        showView();
        m_view->setUndo(&undo, QStringLiteral("console:alice"));
        QVERIFY(listed());
        auto *revert = find<QPushButton>("auditRevert");
        QVERIFY(select(other));
        QVERIFY(!revert->isVisible());
        QVERIFY(select(nonce));
        QVERIFY(revert->isVisible());
        revert->click();
        auto *dialog = m_view->findChild<QDialog *>(QStringLiteral("revertDialog"));
        QVERIFY(dialog);
        const QString diff = dialog->findChild<QPlainTextEdit *>(QStringLiteral("revertDiff"))->toPlainText();
        QVERIFY2(diff.contains(QLatin1String("-after\n+before")), qPrintable(diff));
        dialog->findChild<QPushButton *>(QStringLiteral("revertConfirm"))->click();
        QTRY_VERIFY(find<QLabel>("auditRevertMessage")->text().contains(QLatin1String("Reverted 1 file")));
        QFile restored(file);
        QVERIFY(restored.open(QIODevice::ReadOnly));
        QCOMPARE(restored.readAll(), QByteArray("kept line\nbefore\n"));
        QVERIFY(relisted());
        QVERIFY(select(nonce));
        revert->click();
        QVERIFY(find<QLabel>("auditRevertMessage")->text().contains(QLatin1String("reverted already")));
        QVERIFY(!m_view->findChild<QDialog *>(QStringLiteral("revertDialog"), Qt::FindDirectChildrenOnly) ||
                !m_view->findChild<QDialog *>(QStringLiteral("revertDialog"))->isVisible());
        m_view->setUndo(nullptr, {});
    }

    // Two calls of one agent session, close in time: each offers "Undo this turn", whose
    // dialog shows the turn as one diff; it puts each file back to what it held before the turn's
    // first change of it (a file the turn created goes) and says so. A call its client named no
    // session for offers no turn.
    void undoThisTurn_takesTheTurnBackAsOne()
    {
        SnapshotStore snapshots(m_dir.filePath(QStringLiteral("snapshots")), {});
        FileUndo undo(*m_store, snapshots);
        const QString edited = m_dir.filePath(QStringLiteral("turn-edited.txt"));
        const QString created = m_dir.filePath(QStringLiteral("turn-created.txt"));
        const auto put = [](const QString &file, const QByteArray &bytes) {
            QFile f(file);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
        };
        QVERIFY(put(edited, "as the human left it\n"));
        auto first = snapshots.keep(edited);
        QVERIFY(put(edited, "the turn's first change\n"));
        const QString one = add(QStringLiteral("turn-one"), Operation::Status::Approved);
        const nlohmann::json who = {{"session", "s-1"}, {"connection", "agent"}};
        nlohmann::json detail = who;
        detail["undo"] = FileUndo::record({first.value()});
        QVERIFY(m_store->recordEvent(QStringLiteral("agent-tool-ran"), one, detail).ok());
        auto second = snapshots.keep(edited);
        QVERIFY(put(edited, "the turn's second change\n"));
        QVERIFY(put(created, "made by the turn\n"));
        const QString two = add(QStringLiteral("turn-two"), Operation::Status::Approved);
        detail["undo"] = FileUndo::record({second.value(), SnapshotStore::Kept{created, false, {}, 0, -1}});
        QVERIFY(m_store->recordEvent(QStringLiteral("agent-tool-ran"), two, detail).ok());
        const QString alone = add(QStringLiteral("another-session"), Operation::Status::Approved);
        nlohmann::json other = {{"connection", "agent"}}; // a call its client named no session for
        other["undo"] = FileUndo::record(
            {SnapshotStore::Kept{m_dir.filePath(QStringLiteral("x.txt")), false, {}, 0, -1}});
        QVERIFY(m_store->recordEvent(QStringLiteral("agent-tool-ran"), alone, other).ok());
        showView();
        m_view->setUndo(&undo, QStringLiteral("console:alice"));
        QVERIFY(listed());
        auto *turn = find<QPushButton>("auditRevertTurn");
        QVERIFY(select(alone));
        QVERIFY(!turn->isVisible());
        QVERIFY(select(two));
        QVERIFY(turn->isVisible());
        turn->click();
        auto *dialog = m_view->findChild<QDialog *>(QStringLiteral("revertDialog"));
        QVERIFY(dialog);
        const QString diff = dialog->findChild<QPlainTextEdit *>(QStringLiteral("revertDiff"))->toPlainText();
        QVERIFY2(diff.contains(QLatin1String("-the turn's second change\n+as the human left it")),
                 qPrintable(diff));
        QVERIFY2(diff.contains(QLatin1String("-made by the turn")), qPrintable(diff));
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("revertQuestion"))
                    ->text()
                    .contains(QLatin1String("2 calls")));
        dialog->findChild<QPushButton *>(QStringLiteral("revertConfirm"))->click();
        QTRY_VERIFY(find<QLabel>("auditRevertMessage")->text().contains(QLatin1String("Reverted 2 files")));
        QFile back(edited);
        QVERIFY(back.open(QIODevice::ReadOnly));
        QCOMPARE(back.readAll(), QByteArray("as the human left it\n"));
        QVERIFY(!QFile::exists(created));
        m_view->setUndo(nullptr, {});
    }

    // Two calls that overlapped share one record: both undo lists start from the same state, and
    // the turn still goes back as one. A session id another connection also sent is refused by
    // session (the client's word), never merged.
    void undoThisTurn_overlappingCalls_andASessionOnTwoConnections()
    {
        SnapshotStore snapshots(m_dir.filePath(QStringLiteral("snapshots")), {});
        FileUndo undo(*m_store, snapshots);
        const QString file = m_dir.filePath(QStringLiteral("overlap.txt"));
        const auto put = [&file](const QByteArray &bytes) {
            QFile f(file);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
        };
        QVERIFY(put("before both\n"));
        auto kept = snapshots.keep(file);
        QVERIFY(put("after both\n"));
        nlohmann::json detail = {{"session", "s-overlap"}, {"connection", "agent"}};
        detail["undo"] = FileUndo::record({kept.value()});
        const QString a = add(QStringLiteral("overlap-a"), Operation::Status::Approved);
        const QString b = add(QStringLiteral("overlap-b"), Operation::Status::Approved);
        QVERIFY(m_store->recordEvent(QStringLiteral("agent-tool-ran"), a, detail).ok());
        QVERIFY(m_store->recordEvent(QStringLiteral("agent-tool-ran"), b, detail).ok());
        auto turn = undo.turnOf(b);
        QVERIFY2(turn.ok(), turn.ok() ? "" : qPrintable(turn.error()));
        QCOMPARE(turn.value(), QStringList({a, b}));
        auto preview = undo.previewTurn(turn.value());
        QVERIFY(preview.ok());
        QVERIFY2(preview.value().refusal.isEmpty(), qPrintable(preview.value().refusal));
        QVERIFY(undo.revertTurn(turn.value(), QStringLiteral("console:alice")).ok());
        QFile back(file);
        QVERIFY(back.open(QIODevice::ReadOnly));
        QCOMPARE(back.readAll(), QByteArray("before both\n"));
        // The same session id from another connection: by session, refused, naming both.
        nlohmann::json other = {{"session", "s-overlap"}, {"connection", "intruder"}};
        other["undo"] = FileUndo::record(
            {SnapshotStore::Kept{m_dir.filePath(QStringLiteral("y.txt")), false, {}, 0, -1}});
        const QString c = add(QStringLiteral("overlap-c"), Operation::Status::Approved);
        QVERIFY(m_store->recordEvent(QStringLiteral("agent-tool-ran"), c, other).ok());
        auto refused = undo.turnOfSession(QStringLiteral("s-overlap"), 0);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().contains(QLatin1String("several connections")), qPrintable(refused.error()));
        QVERIFY(undo.turnOf(c).ok()); // by operation, its own connection only
        QCOMPARE(undo.turnOf(c).value(), QStringList{c});
    }
};

QTEST_MAIN(AuditViewDetailTest)
#include "auditviewdetail_test.moc"
