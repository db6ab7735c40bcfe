// The command reader and the judge on the corpus (tests/shell/corpus.json): each line with the
// decision it must get in standard mode, in the real git repository tests/shell/make-fixture.sh
// builds. Prints the share of must-ask lines that asked (must be all), the share of must-run lines
// that ran (goal: 95% or more) and the time per decision.
#include "blastradius.h"
#include "commandjudge.h"
#include "workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

class CommandJudgeTest final : public QObject
{
    Q_OBJECT

    // Beside the test, or in the home folder when the build lives in a temporary folder, but never
    // there: a new file in a temporary folder is scratch work that runs with no card, and the
    // fixture's "outside" folder must stay outside.
    static QString fixtureBase()
    {
        const QString beside = QCoreApplication::applicationDirPath();
        for (const QString &temp : CommandJudge::temporaryFolders(true)) {
            const QString real = QFileInfo(temp).canonicalFilePath();
            if (!real.isEmpty() && (beside == real || beside.startsWith(real + QLatin1Char('/')))) {
                const QString cache = QDir::homePath() + QStringLiteral("/.cache/countersign-tests");
                QDir().mkpath(cache);
                return cache;
            }
        }
        return beside;
    }
    QTemporaryDir m_dir{fixtureBase() + QStringLiteral("/corpus-XXXXXX")};
    QString m_ws, m_home, m_outside;
    std::unique_ptr<Workspace> m_workspace;

    QString filled(QString line) const
    {
        return line.replace(QLatin1String("{ws}"), m_ws)
            .replace(QLatin1String("{home}"), m_home)
            .replace(QLatin1String("{outside}"), m_outside);
    }

    // Whether why quotes the line of command that holds quote: whole, or cut in the middle as a card
    // cuts a long line (a fixture in a deep folder makes long paths), both its ends from that line.
    static bool quotes(const QString &why, const QString &command, const QString &quote)
    {
        if (why.contains(quote))
            return true;
        const qsizetype at = command.indexOf(quote);
        if (at < 0)
            return false;
        const qsizetype from = command.lastIndexOf(QLatin1Char('\n'), at) + 1;
        const qsizetype to = command.indexOf(QLatin1Char('\n'), at);
        const QString held = command.mid(from, to < 0 ? -1 : to - from);
        for (qsizetype cut = why.indexOf(QLatin1String("...")); cut >= 0;
             cut = why.indexOf(QLatin1String("..."), cut + 1)) {
            if (cut >= 60 && held.contains(why.mid(cut - 60, 60)) && held.contains(why.mid(cut + 3, 37)))
                return true;
        }
        return false;
    }

    static QJsonArray corpus()
    {
        QFile file(QStringLiteral(CORPUS_FILE));
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("lines")).toArray();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The corpus puts these paths into command lines as they are: a space or a quote would split them.
        static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9/._+-]+$"));
        QVERIFY2(plain.match(m_dir.path()).hasMatch(),
                 qPrintable(QStringLiteral("the fixture's folder %1 holds a character the shell reads: "
                                           "build in a folder whose path has none")
                                .arg(m_dir.path())));
        QProcess fixture;
        fixture.start(QStringLiteral("bash"), {QStringLiteral(FIXTURE_SCRIPT), m_dir.path()});
        QVERIFY(fixture.waitForFinished(60000));
        QVERIFY2(fixture.exitCode() == 0, fixture.readAllStandardError().constData());
        m_ws = m_dir.path() + QStringLiteral("/ws");
        m_home = m_dir.path() + QStringLiteral("/home");
        m_outside = m_dir.path() + QStringLiteral("/outside");
        m_workspace = std::make_unique<Workspace>(QStringList{m_ws});
        QVERIFY(corpus().size() >= 400);
    }

    void corpus_line_getsItsDecision_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("mustAsk");
        for (const QJsonValue &v : corpus()) {
            const QJsonArray entry = v.toArray();
            const QString line = entry.at(1).toString();
            QTest::newRow(line.left(70).toUtf8().constData())
                << line << (entry.at(0).toString() == QLatin1String("ask"));
        }
    }
    void corpus_line_getsItsDecision()
    {
        QFETCH(QString, line);
        QFETCH(bool, mustAsk);
        // As the hooks judge a shell command: with the net under it.
        const CommandJudge::NetScope underNet;
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Standard, m_home);
        const CommandJudge::Judgement j = judge.line(filled(line), m_ws);
        QVERIFY2((j.verdict == Verdict::Ask) == mustAsk,
                 qPrintable(QStringLiteral("%1 -> %2: %3").arg(line, verdictName(j.verdict), j.why)));
        QVERIFY2(!j.why.isEmpty(), "every decision says why");
    }

    // Inline code (tests/shell/inline-code.json): each case gets its decision, and a card quotes
    // the code that made it ask.
    void inlineCode_getsItsDecision_andQuotesItsLine_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("mustAsk");
        QTest::addColumn<QString>("quote");
        QFile file(QStringLiteral(INLINE_CODE_FILE));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray cases =
            QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("cases")).toArray();
        int asks = 0;
        for (const QJsonValue &v : cases) {
            const QJsonArray entry = v.toArray();
            const bool mustAsk = entry.at(0).toString() == QLatin1String("ask");
            asks += mustAsk ? 1 : 0;
            QTest::newRow(entry.at(3).toString().toUtf8().constData())
                << entry.at(1).toString() << mustAsk << entry.at(2).toString();
        }
        QVERIFY2(cases.size() >= 60 && asks * 2 == cases.size(), "60 cases or more, half of them ask");
    }
    void inlineCode_getsItsDecision_andQuotesItsLine()
    {
        QFETCH(QString, line);
        QFETCH(bool, mustAsk);
        QFETCH(QString, quote);
        const CommandJudge::NetScope underNet;
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Standard, m_home);
        const CommandJudge::Judgement j = judge.line(filled(line), m_ws);
        QVERIFY2((j.verdict == Verdict::Ask) == mustAsk,
                 qPrintable(QStringLiteral("%1 -> %2: %3").arg(line, verdictName(j.verdict), j.why)));
        if (mustAsk)
            QVERIFY2(quotes(j.why, filled(line), filled(quote)),
                     qPrintable(QStringLiteral("%1: %2").arg(quote, j.why)));
        else
            QVERIFY2(!j.why.isEmpty(), "a quiet decision says why");
    }

    // The figures the issue asks for, over the whole corpus in one pass.
    void corpus_figures()
    {
        const CommandJudge::NetScope underNet; // as the hooks judge a shell command
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Standard, m_home);
        int asks = 0, asked = 0, runs = 0, ran = 0;
        QElapsedTimer timer;
        timer.start();
        for (const QJsonValue &v : corpus()) {
            const QJsonArray entry = v.toArray();
            const bool mustAsk = entry.at(0).toString() == QLatin1String("ask");
            const bool didAsk = judge.line(filled(entry.at(1).toString()), m_ws).verdict == Verdict::Ask;
            (mustAsk ? asks : runs) += 1;
            if (mustAsk && didAsk)
                ++asked;
            if (!mustAsk && !didAsk)
                ++ran;
        }
        const double perLine = double(timer.nsecsElapsed()) / 1e6 / (asks + runs);
        qInfo("corpus: %d lines; must ask: %d/%d asked (%.1f%%); must run: %d/%d ran with no card (%.1f%%); "
              "%.3f ms per decision in process",
              asks + runs, asked, asks, 100.0 * asked / asks, ran, runs, 100.0 * ran / runs, perLine);
        QCOMPARE(asked, asks);
        QVERIFY2(ran * 100 >= runs * 95, "at least 95% of the everyday lines run with no card");
    }

    void strict_asksForEverythingButReads()
    {
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Strict, m_home);
        QCOMPARE(judge.line(QStringLiteral("git status"), m_ws).verdict, Verdict::Allow);
        QCOMPARE(judge.line(QStringLiteral("cat README.md | head"), m_ws).verdict, Verdict::Allow);
        QCOMPARE(judge.line(QStringLiteral("cargo test"), m_ws).verdict, Verdict::Ask);
        QCOMPARE(judge.line(QStringLiteral("touch x"), m_ws).verdict, Verdict::Ask);
        QCOMPARE(judge.write(m_ws + QStringLiteral("/src/main.rs")).verdict, Verdict::Ask);
        QCOMPARE(judge.read(m_home + QStringLiteral("/.ssh/id_rsa")).verdict, Verdict::Ask);
    }

    void readAndWrite_followTheSameRulesAsTheShell_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("write");
        QTest::addColumn<bool>("mustAsk");
        QTest::newRow("read a source") << "{ws}/src/main.rs" << false << false;
        QTest::newRow("read .env") << "{ws}/.env" << false << true;
        QTest::newRow("read .env.example") << "{ws}/.env.example" << false << false;
        QTest::newRow("read a link to a key") << "{ws}/link-to-key" << false << true;
        QTest::newRow("read ~/.ssh/id_rsa") << "{home}/.ssh/id_rsa" << false << true;
        QTest::newRow("read ~/.aws/credentials") << "{home}/.aws/credentials" << false << true;
        QTest::newRow("read a private file in home") << "{home}/notes-private.txt" << false << true;
        QTest::newRow("read a system file") << "/etc/hostname" << false << false;
        QTest::newRow("write a source") << "{ws}/src/main.rs" << true << false;
        QTest::newRow("write a new file") << "{ws}/docs/new.md" << true << false;
        QTest::newRow("write outside") << "{outside}/file.txt" << true << true;
        QTest::newRow("write .git/config") << "{ws}/.git/config" << true << true;
        QTest::newRow("write a hook") << "{ws}/.git/hooks/pre-commit" << true << true;
        QTest::newRow("write CI") << "{ws}/.github/workflows/ci.yml" << true << true;
        QTest::newRow("write the project's agent settings") << "{ws}/.claude/settings.json" << true << true;
        QTest::newRow("write a skill agents load (.agents/skills)")
            << "{ws}/.agents/skills/x/SKILL.md" << true << true;
        QTest::newRow("write ~/.bashrc") << "{home}/.bashrc" << true << true;
        QTest::newRow("write through a link out of the roots") << "{ws}/link-to-key" << true << true;
    }
    void readAndWrite_followTheSameRulesAsTheShell()
    {
        QFETCH(QString, path);
        QFETCH(bool, write);
        QFETCH(bool, mustAsk);
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Standard, m_home);
        const auto j = write ? judge.write(filled(path)) : judge.read(filled(path));
        QVERIFY2((j.verdict == Verdict::Ask) == mustAsk, qPrintable(j.why));
    }

    void asks_sayWhatAndWhere()
    {
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Standard, m_home);
        const auto reset = judge.line(QStringLiteral("git reset --hard"), m_ws);
        QVERIFY(reset.destructive);
        QVERIFY2(reset.why.contains(QLatin1String("discards")), qPrintable(reset.why));
        const auto make = judge.line(QStringLiteral("make -C dirty"), m_ws);
        QVERIFY2(make.why.contains(QLatin1String("Makefile changed since the last commit")),
                 qPrintable(make.why));
        const auto test = judge.line(QStringLiteral("cargo test"), m_ws);
        QCOMPARE(test.verdict, Verdict::Allow);
        QVERIFY2(test.why.contains(QLatin1String("Cargo.toml")) &&
                     test.why.contains(QLatin1String("unchanged")),
                 qPrintable(test.why));
        const auto rm = judge.line(QStringLiteral("rm -rf build"), m_ws);
        QVERIFY(rm.targets.contains(m_ws + QStringLiteral("/build")));
    }

    // What a destructive line would lose, measured in the fixture (issue 38's first part).
    void blastRadius_saysWhatWouldBeLost_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("says");
        QTest::newRow("rm -rf of an ignored folder")
            << "rm -rf build" << QStringList{"20 files", "20 git cannot bring back"};
        QTest::newRow("rm -rf .git: what git keeps, gone")
            << "rm -rf .git" << QStringList{"git cannot bring back"};
        QTest::newRow("rm of a committed file")
            << "rm a.txt" << QStringList{"1 file", "git can bring it back"};
        QTest::newRow("git reset --hard over an hour of work")
            << "git reset --hard"
            << QStringList{"4 files", "README.md (+60 −0)", "dirty/Makefile (+1 −1)", "inc/config.mk (+1 −1)",
                           "dist/app.js (+1 −0)"};
        QTest::newRow("git checkout -- one file")
            << "git checkout -- README.md" << QStringList{"1 file", "README.md (+60 −0)"};
        QTest::newRow("git clean -fd")
            << "git clean -fd" << QStringList{"untracked files git does not keep", "more."};
        QTest::newRow("what is only known when it runs")
            << "rm -rf \"$DIR\"" << QStringList{"only known when it runs"};
        QTest::newRow("git stash drop")
            << "git stash drop" << QStringList{"Drops 1 stash for good", "stash@{0}", "1 file, +1 −0"};
        QTest::newRow("git stash clear") << "git stash clear" << QStringList{"Drops 1 stash for good"};
        QTest::newRow("git branch -D of unmerged work")
            << "git branch -D spike"
            << QStringList{"Deletes the branch spike and 1 commit no other branch holds", "try a spike"};
    }
    void blastRadius_saysWhatWouldBeLost()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, says);
        // A stash and a branch of work no other branch holds, made in a copy of the fixture's repository.
        if (line.startsWith(QLatin1String("git stash")) || line.startsWith(QLatin1String("git branch"))) {
            const QString copy = m_dir.path() + QStringLiteral("/copy-") + QString::number(qHash(line));
            QCOMPARE(QProcess::execute(QStringLiteral("git"),
                                       {QStringLiteral("clone"), QStringLiteral("-q"), m_ws, copy}),
                     0);
            const auto git = [&copy](const QStringList &args) {
                return QProcess::execute(QStringLiteral("git"),
                                         QStringList{QStringLiteral("-C"), copy, QStringLiteral("-c"),
                                                     QStringLiteral("user.name=t"), QStringLiteral("-c"),
                                                     QStringLiteral("user.email=t@example.invalid")} +
                                             args);
            };
            QFile note(copy + QStringLiteral("/a.txt"));
            QVERIFY(note.open(QIODevice::Append));
            note.write("stashed line\n");
            note.close();
            QCOMPARE(git({QStringLiteral("stash"), QStringLiteral("push"), QStringLiteral("-q"),
                          QStringLiteral("-m"), QStringLiteral("half done")}),
                     0);
            QCOMPARE(git({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("-b"),
                          QStringLiteral("spike")}),
                     0);
            QCOMPARE(git({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("--allow-empty"),
                          QStringLiteral("-m"), QStringLiteral("try a spike")}),
                     0);
            QCOMPARE(git({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")}), 0);
            const BlastRadius r =
                BlastRadius::of(Shell::CommandEffects::ofLine(line, {copy, m_home}), m_home);
            const QString sentence = r.sentences.join(QLatin1Char(' '));
            for (const QString &expected : says)
                QVERIFY2(sentence.contains(expected), qPrintable(sentence));
            QVERIFY(r.lost);
            return;
        }
        const BlastRadius r = BlastRadius::of(Shell::CommandEffects::ofLine(line, {m_ws, m_home}), m_home);
        const QString sentence = r.sentences.join(QLatin1Char(' '));
        for (const QString &s : says)
            QVERIFY2(sentence.contains(s), qPrintable(sentence));
        if (line.startsWith(QLatin1String("git reset")))
            QVERIFY2(r.diff.contains(QLatin1String("+uncommitted line 60")), qPrintable(r.diff.left(400)));
        if (!line.contains(QLatin1String("a.txt")) && !line.contains(QLatin1String("$DIR")))
            QVERIFY(r.lost);
    }

    // A write the card asks about (outside the roots, or a file that changes what runs later) says
    // what the file holds now and what the write would lose: a replacement shows the lines it
    // loses, an append loses nothing, git's committed copy can come back.
    void blastRadius_writesItAsksAbout_sayWhatTheyReplace()
    {
        const CommandJudge judge(m_workspace.get(), CommandJudge::Mode::Standard, m_home);
        const auto measure = [&](const QString &line) {
            return BlastRadius::of(Shell::CommandEffects::ofLine(line, {m_ws, m_home}), m_home,
                                   judge.line(line, m_ws).targets);
        };
        const BlastRadius replaced = measure(QStringLiteral("echo 'alias ls=rm' > ~/.bashrc"));
        QVERIFY2(replaced.sentences.join(QLatin1Char(' '))
                     .contains(
                         QLatin1String(
                             "Replaces what %1/.bashrc holds (1 line, 19 bytes), which git cannot bring back")
                             .arg(m_home)),
                 qPrintable(replaced.sentences.join(QLatin1Char(' '))));
        QVERIFY(replaced.lost);
        QVERIFY2(replaced.diff.contains(QLatin1String("\n-export PS1=fixture\n")), qPrintable(replaced.diff));
        QCOMPARE(replaced.deletes, QStringList{m_home + QStringLiteral("/.bashrc")});

        const BlastRadius appended = measure(QStringLiteral("echo 'alias ls=rm' >> ~/.bashrc"));
        QVERIFY2(appended.sentences.join(QLatin1Char(' ')).contains(QLatin1String("nothing in it is lost")),
                 qPrintable(appended.sentences.join(QLatin1Char(' '))));
        QVERIFY(!appended.lost);
        QVERIFY(appended.diff.isEmpty() && appended.deletes.isEmpty());

        const BlastRadius created = measure(
            QStringLiteral("echo x > {outside}/new.txt").replace(QLatin1String("{outside}"), m_outside));
        QVERIFY(created.sentences.join(QLatin1Char(' ')).contains(QLatin1String("Creates")));
        QVERIFY(!created.lost);

        // rsync replaces the file though the shell reads no ">": measured as a replacement; a
        // pattern is only known when it runs.
        const BlastRadius synced = measure(
            QStringLiteral("rsync {outside}/x ~/.bashrc").replace(QLatin1String("{outside}"), m_outside));
        QVERIFY2(synced.sentences.join(QLatin1Char(' ')).contains(QLatin1String("Replaces what")),
                 qPrintable(synced.sentences.join(QLatin1Char(' '))));
        QVERIFY(synced.lost);
        const BlastRadius pattern = measure(QStringLiteral("cat README.md > ~/.bashr?"));
        QVERIFY2(pattern.sentences.join(QLatin1Char(' ')).contains(QLatin1String("only known when it runs")),
                 qPrintable(pattern.sentences.join(QLatin1Char(' '))));
        QVERIFY(pattern.unmeasured);

        // A committed Makefile inside the roots, asked about because the line also fetches: not
        // measured as a write (the card does not ask about the write), and nothing is lost.
        const BlastRadius inside = measure(QStringLiteral("echo x > Makefile; curl -s https://example.com"));
        QVERIFY(!inside.lost);
        QVERIFY(inside.deletes.isEmpty());
    }

    // A forced push names the remote commits it overwrites, from the remote-tracking branch and when
    // it was last updated; a deletion those no local branch holds; a plain push loses nothing; a
    // remote never fetched is said to be unmeasured (issue 38).
    void blastRadius_forcedPush_namesTheRemoteCommitsItOverwrites()
    {
        const QString bare = m_dir.path() + QStringLiteral("/remote.git");
        const QString work = m_dir.path() + QStringLiteral("/pusher");
        QCOMPARE(QProcess::execute(QStringLiteral("git"), {QStringLiteral("init"), QStringLiteral("-q"),
                                                           QStringLiteral("--bare"), bare}),
                 0);
        QCOMPARE(QProcess::execute(QStringLiteral("git"),
                                   {QStringLiteral("clone"), QStringLiteral("-q"), m_ws, work}),
                 0);
        const auto git = [&work](const QString &line) {
            return QProcess::execute(QStringLiteral("git"),
                                     QStringList{QStringLiteral("-C"), work, QStringLiteral("-c"),
                                                 QStringLiteral("user.name=t"), QStringLiteral("-c"),
                                                 QStringLiteral("user.email=t@example.invalid")} +
                                         line.split(QLatin1Char(' ')));
        };
        QCOMPARE(git(QStringLiteral("remote add up ") + bare), 0);
        QCOMPARE(git(QStringLiteral("commit -q --allow-empty -m shared")), 0);
        QCOMPARE(git(QStringLiteral("push -q up main")), 0);
        QCOMPARE(git(QStringLiteral("commit -q --allow-empty -m remote-only-work")), 0);
        QCOMPARE(git(QStringLiteral("push -q up main")), 0);
        QCOMPARE(git(QStringLiteral("reset -q --hard HEAD~1")), 0);
        QCOMPARE(git(QStringLiteral("commit -q --allow-empty -m rewritten")), 0);
        const auto radius = [&](const QString &line) {
            return BlastRadius::of(Shell::CommandEffects::ofLine(line, {work, m_home}), m_home);
        };
        for (const QString &line :
             {QStringLiteral("git push --force up main"), QStringLiteral("git push up +main"),
              QStringLiteral("git push -f up"), QStringLiteral("git push --force-with-lease up main:main")}) {
            const BlastRadius r = radius(line);
            const QString said = r.sentences.join(QLatin1Char(' '));
            QVERIFY2(said.contains(QLatin1String("Overwrites up/main as last fetched")) &&
                         said.contains(QLatin1String("1 commit that main does not hold: remote-only-work")),
                     qPrintable(line + QStringLiteral(": ") + said));
            QVERIFY(r.lost);
            QVERIFY(!r.unmeasured);
        }
        const BlastRadius deleting = radius(QStringLiteral("git push up :main"));
        QVERIFY2(
            deleting.sentences.join(QLatin1Char(' ')).contains(QLatin1String("Deletes up/main")) &&
                deleting.sentences.join(QLatin1Char(' ')).contains(QLatin1String("no local branch holds")),
            qPrintable(deleting.sentences.join(QLatin1Char(' '))));
        QVERIFY(deleting.lost);
        const BlastRadius plain = radius(QStringLiteral("git push up main"));
        QVERIFY(plain.sentences.isEmpty() && !plain.lost);
        const BlastRadius ahead = radius(QStringLiteral("git push --force origin main"));
        QVERIFY2(ahead.sentences.join(QLatin1Char(' ')).contains(QLatin1String("nothing there is lost")),
                 qPrintable(ahead.sentences.join(QLatin1Char(' '))));
        QVERIFY(!ahead.lost);
        const BlastRadius unknown = radius(QStringLiteral("git push --force nowhere main"));
        QVERIFY(unknown.unmeasured);
        QVERIFY(unknown.sentences.join(QLatin1Char(' ')).contains(QLatin1String("never fetched")));
        QCOMPARE(radius(QStringLiteral("git push --force --all up")).unmeasured, true);
    }
};

QTEST_GUILESS_MAIN(CommandJudgeTest)
#include "commandjudge_test.moc"
