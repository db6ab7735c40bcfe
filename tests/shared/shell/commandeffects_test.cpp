// The shell reader on its own (shared/shell): what each line does, as effects with resolved paths,
// with no filesystem or git behind it. The decisions are tests/commandjudge_test.cpp's.
#include "commandeffects.h"
#include "shellparser.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign::Shell;

namespace {

// The folder the lines run in (cd follows only folders that are there): "ws" with src/ and docs/.
QString g_ws;

// "kind path" per effect, in order; the path relative to the folder when under it ("ws" for it).
QStringList summary(const QString &line)
{
    QStringList out;
    for (const Effect &e : CommandEffects::ofLine(line, {g_ws, QStringLiteral("/home/u")})) {
        QString path = e.pathKnown ? e.path : QStringLiteral("?");
        if (path.startsWith(g_ws + QLatin1Char('/')))
            path = path.mid(g_ws.size() + 1);
        else if (path == g_ws)
            path = QStringLiteral("ws");
        out.append((CommandEffects::kindName(e.kind) + QLatin1Char(' ') + path).trimmed());
    }
    return out;
}

} // namespace

class CommandEffectsTest final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        g_ws = QDir(m_dir.path()).canonicalPath() + QStringLiteral("/ws");
        QVERIFY(QDir().mkpath(g_ws + QStringLiteral("/src")));
        QVERIFY(QDir().mkpath(g_ws + QStringLiteral("/docs")));
        QVERIFY(QDir().mkpath(g_ws + QStringLiteral("/sub")));
    }

    void ofLine_readsWhatTheShellDoes_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("effects");
        QTest::newRow("cd then rm") << "cd src && rm -f x.o" << QStringList{"deletes src/x.o"};
        QTest::newRow("cd in a subshell does not leak") << "(cd src) && rm x" << QStringList{"deletes x"};
        QTest::newRow("cd in a pipeline part does not leak")
            << "cd src | true; rm x" << QStringList{"reads ws", "deletes x"};
        QTest::newRow("tilde and $HOME")
            << "cat ~/a $HOME/b \"$HOME\"/c"
            << QStringList{"reads /home/u/a", "reads /home/u/b", "reads /home/u/c"};
        QTest::newRow("a quoted tilde is a name") << "cat '~/a'" << QStringList{"reads ~/a"};
        QTest::newRow("sudo wraps") << "sudo -u root rm /a" << QStringList{"privilege", "deletes /a"};
        QTest::newRow("env -C changes the folder") << "env -C /tmp rm x" << QStringList{"deletes /tmp/x"};
        QTest::newRow("a cd into a folder that is not there leaves it unknown")
            << "cd nope; rm x" << QStringList{"deletes ?"};
        QTest::newRow("a cd in the background changes nothing")
            << "cd src & rm x" << QStringList{"deletes x"};
        QTest::newRow("mkdir then cd")
            << "mkdir -p out && cd out && rm x" << QStringList{"writes out", "deletes out/x"};
        QTest::newRow("a link is a way to write where it leads")
            << "ln -s /etc/x l" << QStringList{"reads /etc/x", "writes /etc/x", "writes l"};
        QTest::newRow("cp -t in a cluster") << "cp -vt /tmp a" << QStringList{"reads a", "writes /tmp"};
        QTest::newRow("tar -C and -f")
            << "tar -cf /tmp/o.tar -C docs x" << QStringList{"writes /tmp/o.tar", "reads docs/x"};
        QTest::newRow("sh -c is read again") << "sh -c 'cd src; rm y'" << QStringList{"deletes src/y"};
        QTest::newRow("eval joins its words") << "eval rm z" << QStringList{"deletes z"};
        QTest::newRow("a here-document into a shell")
            << "bash <<EOF\nrm -r d\nEOF" << QStringList{"deletes d"};
        QTest::newRow("a quoted here-document does not expand")
            << "cat <<'EOF'\n$(rm q)\nEOF" << QStringList{"reads ws"};
        QTest::newRow("an expanding here-document runs its substitutions")
            << "cat <<EOF\n$(rm q)\nEOF" << QStringList{"deletes q", "reads ws"};
        QTest::newRow("command substitution runs") << "echo $(rm s)" << QStringList{"deletes s", "reads ws"};
        QTest::newRow("backquotes nest")
            << "echo `echo \\`rm t\\``" << QStringList{"deletes t", "reads ws", "reads ws"};
        QTest::newRow("redirections") << "sort < in > out 2>&1" << QStringList{"reads in", "writes out"};
        QTest::newRow("find -exec with {}")
            << "find src -exec rm {} \\;" << QStringList{"reads src", "deletes src/*"};
        QTest::newRow("git -C") << "git -C sub reset --hard" << QStringList{"deletes sub"};
        QTest::newRow("git abbreviations are read as git reads them")
            << "git reset --har" << QStringList{"deletes ws"};
        QTest::newRow("an ambiguous abbreviation fails closed") << "git reset --m" << QStringList{"unknown"};
        QTest::newRow("a case statement is not read")
            << "case a in b) rm x;; esac" << QStringList{"unknown ?"};
        QTest::newRow("an unterminated quote") << "echo 'abc" << QStringList{"unknown ?", "reads ws"};
        QTest::newRow("ANSI-C quoting spells the program") << "$'\\x72m' f" << QStringList{"deletes f"};
        QTest::newRow("a program by path") << "/bin/rm g" << QStringList{"deletes g"};
        QTest::newRow("xargs after find reads under its folder")
            << "find docs -name '*.md' | xargs cat" << QStringList{"reads docs", "reads docs/**/*.md"};
        QTest::newRow("xargs after echo is not known")
            << "echo a | xargs rm" << QStringList{"reads ws", "deletes ?"};
        QTest::newRow("for binds a single word")
            << "for f in *.md; do cat \"$f\"; done" << QStringList{"reads *.md"};
        QTest::newRow("a poisoning assignment")
            << "LD_PRELOAD=x ls" << QStringList{"environment", "reads ws"};
        QTest::newRow("a harmless assignment") << "CI=1 ls" << QStringList{"reads ws"};
    }
    void ofLine_readsWhatTheShellDoes()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, effects);
        // In any order: a wrapped command's effects come before its wrapper's own.
        QStringList actual = summary(line);
        actual.sort();
        effects.sort();
        QCOMPARE(actual, effects);
    }

    void parse_deepNesting_isBoundedAndNamed()
    {
        QString line;
        for (int i = 0; i < 200; ++i)
            line += QStringLiteral("$(");
        line += QStringLiteral("rm x");
        for (int i = 0; i < 200; ++i)
            line += QLatin1Char(')');
        const Script script = ShellParser::parse(line);
        QVERIFY(!script.problems.isEmpty());
        QVERIFY(summary(line).contains(QStringLiteral("unknown ?")));
    }
};

QTEST_GUILESS_MAIN(CommandEffectsTest)
#include "commandeffects_test.moc"
