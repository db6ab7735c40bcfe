// The run_command forms that run without a card: every option on a list, every other argument a
// path confined to the roots (tests/security/run-command.mjs attacks them over HTTP with real git).
#include "readonlycommand.h"
#include "workspace.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

class ReadOnlyCommandTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void refusal_data()
    {
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<bool>("readOnly");
        const auto row = [](const char *name, QStringList argv, bool readOnly) {
            QTest::newRow(name) << argv << readOnly;
        };
        row("pwd", {"pwd"}, true);
        row("pwd with an argument", {"pwd", "x"}, false);
        row("ls clustered letters", {"ls", "-laR", "sub"}, true);
        row("ls an unknown letter (-L follows links)", {"ls", "-lL"}, false);
        row("ls absolute path outside", {"ls", "/etc"}, false);
        row("ls dot-dot", {"ls", "sub/../.."}, false);
        row("ls a link out of the root", {"ls", "out/passwd"}, false);
        row("git status --short", {"git", "status", "--short"}, true);
        row("git global option first", {"git", "-C", "/", "status"}, false);
        row("git push", {"git", "push"}, false);
        row("git log -n 5", {"git", "log", "-n", "5"}, true);
        row("git log -n not a number", {"git", "log", "-n", "--output=/tmp/x"}, false);
        row("git log -3 --oneline", {"git", "log", "-3", "--oneline"}, true);
        row("git log --output", {"git", "log", "--output=x"}, false);
        row("git log format with a signature placeholder", {"git", "log", "--format=%G?"}, false);
        row("git log format", {"git", "log", "--format=%h %s"}, true);
        row("git diff --no-index", {"git", "diff", "--no-index", "a", "b"}, false);
        row("git diff --ext-diff", {"git", "diff", "--ext-diff"}, false);
        row("git diff -O orderfile", {"git", "diff", "-O/etc/passwd"}, false);
        row("git diff HEAD~1..HEAD", {"git", "diff", "HEAD~1..HEAD"}, true);
        row("git diff -- path outside", {"git", "diff", "--", "/etc/passwd"}, false);
        row("git diff -- dash path inside", {"git", "diff", "--", "-weird"}, true);
        row("git show rev", {"git", "show", "--stat", "HEAD"}, true);
        row("control character", {"git", "log", "--grep=a\nb"}, false);
        row("empty argument", {"ls", ""}, false);
    }
    void refusal()
    {
        QFETCH(QStringList, argv);
        QFETCH(bool, readOnly);
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("root/sub")));
        QFile::link(QStringLiteral("/etc"), m_dir.filePath(QStringLiteral("root/out")));
        const Workspace ws({m_dir.filePath(QStringLiteral("root"))});
        const QString why = ReadOnlyCommand::refusal(argv, ws.roots().first(), ws);
        QVERIFY2(why.isEmpty() == readOnly, qPrintable(why.isEmpty() ? QStringLiteral("(read-only)") : why));
    }
    void gitRunsHardened_othersAsTheyAre()
    {
        const Workspace ws({m_dir.path()});
        const CommandSpec git = ReadOnlyCommand::spec({"git", "diff", "HEAD"}, m_dir.path(), ws);
        QVERIFY(git.argv.contains(QStringLiteral("core.fsmonitor=false")));
        QVERIFY(git.argv.contains(QStringLiteral("core.hooksPath=/dev/null")));
        QVERIFY(git.argv.contains(QStringLiteral("--no-ext-diff")));
        QVERIFY(git.argv.contains(QStringLiteral("--no-textconv")));
        QCOMPARE(git.argv.last(), QStringLiteral("HEAD"));
        QVERIFY(git.environment.has_value());
        QCOMPARE(git.environment->value(QStringLiteral("GIT_CONFIG_GLOBAL")), QStringLiteral("/dev/null"));
        QCOMPARE(git.environment->value(QStringLiteral("GIT_CONFIG_NOSYSTEM")), QStringLiteral("1"));
        const CommandSpec push = ReadOnlyCommand::spec({"git", "push"}, m_dir.path(), ws);
        QCOMPARE(push.argv, QStringList({"git", "push"}));
        QVERIFY(!push.environment.has_value());
    }
};

QTEST_GUILESS_MAIN(ReadOnlyCommandTest)
#include "readonlycommand_test.moc"
