// ScriptPlaceholders on its own (issue 28): one row per interpreter and shell form a placeholder
// becomes code in, refused with words that name the program, and one per safe form that passes the
// value as an argument, allowed.
#include "scriptplaceholders.h"

#include <QTest>

using namespace Countersign;

class ScriptPlaceholdersTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void problem_data()
    {
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("refusal"); // a word the refusal holds; empty: allowed
        const auto row = [](const char *name, QStringList argv, const char *refusal) {
            QTest::newRow(name) << argv << QString::fromLatin1(refusal);
        };
        // Shells: the script after -c (alone or in a cluster), behind wrappers.
        for (const char *shell : {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "rbash"})
            row(qPrintable(QStringLiteral("%1 -c").arg(QLatin1String(shell))),
                {QLatin1String(shell), QStringLiteral("-c"), QStringLiteral("echo {name}")}, shell);
        row("bash -lc", {"bash", "-lc", "rm -rf {path}"}, "bash");
        row("sh -ec", {"sh", "-ec", "touch {path}"}, "sh");
        row("/bin/sh -c", {"/bin/sh", "-c", "ls {path}"}, "sh");
        row("env sh -c", {"env", "FOO=1", "sh", "-c", "ls {path}"}, "sh");
        row("sudo sh -c", {"sudo", "-u", "root", "sh", "-c", "ls {path}"}, "sh");
        row("find -exec sh -c", {"find", ".", "-exec", "sh", "-c", "rm {path}", ";"}, "sh");
        row("fish -c", {"fish", "-c", "echo {name}"}, "fish");
        row("fish --command", {"fish", "--command", "echo {name}"}, "fish");
        row("csh -c", {"csh", "-c", "echo {name}"}, "csh");
        row("nu -c", {"nu", "-c", "echo {name}"}, "nu");
        row("pwsh -Command", {"pwsh", "-Command", "Write-Output {name}"}, "pwsh");
        // Interpreters: the code after their code option.
        row("python3 -c", {"python3", "-c", "print('{name}')"}, "python3");
        row("python -Ic", {"python", "-Ic", "print({name})"}, "python");
        row("node -e", {"node", "-e", "console.log('{name}')"}, "node");
        row("node --eval", {"node", "--eval", "console.log('{name}')"}, "node");
        row("node -p", {"node", "-p", "'{name}'"}, "node");
        row("perl -e", {"perl", "-e", "print '{name}'"}, "perl");
        row("perl -E", {"perl", "-E", "say '{name}'"}, "perl");
        row("ruby -e", {"ruby", "-e", "puts '{name}'"}, "ruby");
        row("php -r", {"php", "-r", "echo '{name}';"}, "php");
        row("lua -e", {"lua", "-e", "print('{name}')"}, "lua");
        row("Rscript -e", {"Rscript", "-e", "print('{name}')"}, "Rscript");
        row("deno eval", {"deno", "eval", "console.log('{name}')"}, "deno");
        row("bun -e", {"bun", "-e", "console.log('{name}')"}, "bun");
        row("awk program", {"awk", "{print \"{name}\"}", "file.txt"}, "awk");
        row("gawk -e", {"gawk", "-e", "BEGIN{print \"{name}\"}"}, "gawk");
        row("sed script", {"sed", "-e", "s/{from}/x/", "file.txt"}, "sed");
        row("sed program first", {"sed", "s/a/{to}/", "file.txt"}, "sed");
        // Programs that join their words into a shell command line.
        row("ssh after the host", {"ssh", "host.example", "ls {path}"}, "ssh");
        row("watch", {"watch", "ls {path}"}, "watch");
        row("su -c", {"su", "-c", "ls {path}", "root"}, "su");

        // Safe forms: the value is an argument, never code.
        row("sh -c with $1", {"sh", "-c", "ls -- \"$1\"", "sh", "{path}"}, "");
        row("bash -c with $1", {"bash", "-c", "rm -- \"$1\"", "bash", "{path}"}, "");
        row("python3 -c with sys.argv", {"python3", "-c", "import sys; print(sys.argv[1])", "{name}"}, "");
        row("node -e with process.argv", {"node", "-e", "console.log(process.argv[1])", "{name}"}, "");
        row("perl -e with @ARGV", {"perl", "-e", "print $ARGV[0]", "{name}"}, "");
        row("awk with a file operand", {"awk", "{print $1}", "{file}"}, "");
        row("awk -v", {"awk", "-v", "x={name}", "BEGIN{print x}"}, "");
        row("sed with a file operand", {"sed", "-e", "s/a/b/", "{file}"}, "");
        row("a plain program", {"rm", "--", "{path}"}, "");
        row("python3 a script file", {"python3", "tool.py", "{name}"}, "");
        row("find -exec rm", {"find", ".", "-name", "{pattern}", "-exec", "rm", "{}", ";"}, "");
        row("no placeholder", {"sh", "-c", "echo hello"}, "");
    }
    void problem()
    {
        QFETCH(QStringList, argv);
        QFETCH(QString, refusal);
        const std::optional<QString> found = ScriptPlaceholders::problem(argv);
        if (refusal.isEmpty()) {
            QVERIFY2(!found, qPrintable(found.value_or(QString())));
            return;
        }
        QVERIFY2(found, qPrintable(argv.join(QLatin1Char(' '))));
        QVERIFY2(found->contains(refusal, Qt::CaseInsensitive), qPrintable(*found));
    }

    void has_findsOnlyWellFormedNames()
    {
        QVERIFY(ScriptPlaceholders::has(QStringLiteral("rm {path}")));
        QVERIFY(ScriptPlaceholders::has(QStringLiteral("{a_1}")));
        QVERIFY(!ScriptPlaceholders::has(QStringLiteral("{}")));
        QVERIFY(!ScriptPlaceholders::has(QStringLiteral("{1abc}")));
        QVERIFY(!ScriptPlaceholders::has(QStringLiteral("{a b}")));
        QVERIFY(!ScriptPlaceholders::has(QStringLiteral("plain")));
    }
};

QTEST_GUILESS_MAIN(ScriptPlaceholdersTest)
#include "scriptplaceholders_test.moc"
