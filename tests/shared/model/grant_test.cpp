// "From now on" grants (Grant): which narrow rules a card's call is offered, what each covers and
// what it does not (another connection, another folder, a longer line that is not plain words, a
// wrapper that runs what follows it, a file swapped for a link or under a linked folder), and the
// JSON the chain keeps, read back and refused when hostile.
#include "grant.h"
#include "operation.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using nlohmann::json;

class GrantTest : public QObject
{
    Q_OBJECT
private:
    static Operation shell(const QString &command, const QString &cwd = QStringLiteral("/w/project"))
    {
        Operation op;
        op.tool = QStringLiteral("agent:shell");
        op.principal = QStringLiteral("agent");
        op.arguments = {{"agent", "claude-code"},
                        {"tool", "Bash"},
                        {"command", command.toStdString()},
                        {"cwd", cwd.toStdString()}};
        static const QRegularExpression plain(QStringLiteral("\\A[A-Za-z0-9_./=:@%+,\\- ]*\\z"));
        if (plain.match(command).hasMatch()) {
            json argv = json::array();
            for (const QString &w : command.split(QLatin1Char(' '), Qt::SkipEmptyParts))
                argv.push_back(w.toStdString());
            op.arguments["argv"] = argv;
        }
        op.argsDigest = QStringLiteral("digest-of-") + command;
        return op;
    }
    static std::optional<Grant> offer(const Operation &op, Grant::Scope scope)
    {
        for (const Grant &g : Grant::offersFor(op, Verdict::Allow)) {
            if (g.scope == scope)
                return g;
        }
        return std::nullopt;
    }
    static bool covers(const Grant &g, const Operation &op)
    {
        return g.covers(op.tool, op.principal, op.arguments, op.argsDigest);
    }

private Q_SLOTS:
    void shellLine_offersTheCallAndItsSubcommand()
    {
        const Operation op = shell(QStringLiteral("npm run lint -- --fix"));
        const QList<Grant> offers = Grant::offersFor(op, Verdict::Allow);
        QCOMPARE(offers.size(), 2);
        QCOMPARE(offers.at(0).scope, Grant::Scope::Call);
        QCOMPARE(offers.at(1).scope, Grant::Scope::Command);
        QCOMPARE(offers.at(1).words, QStringList({"npm", "run", "lint"}));
        QCOMPARE(offers.at(1).folder, QStringLiteral("/w/project"));
        QVERIFY(offers.at(0).id != offers.at(1).id);
        QVERIFY(offers.at(1).beyond().contains(QLatin1String("npm run lint ...")));
    }

    void call_coversOnlyTheSameCallOfTheSameConnection()
    {
        const Operation op = shell(QStringLiteral("npm run lint"));
        const Grant g = *offer(op, Grant::Scope::Call);
        QVERIFY(covers(g, op));
        QVERIFY(!covers(g, shell(QStringLiteral("npm run lint --fix"))));
        Operation other = op;
        other.principal = QStringLiteral("someone-else");
        QVERIFY(!covers(g, other));
        Operation empty = op;
        empty.argsDigest.clear();
        Grant blank = g;
        blank.argsDigest.clear();
        QVERIFY(!covers(blank, empty)); // an empty digest covers nothing
    }

    // "While this agent session lasts": only the calls its hook sends with that session id; the
    // card's session is recorded with its call (clientInfo.session), and a grant with none covers
    // any session. The session is said in its words and kept in its JSON only when it has one (a
    // grant signed before sessions reads back as it was).
    void sessionGrant_coversThatAgentSessionOnly()
    {
        Operation op = shell(QStringLiteral("npm run lint"));
        op.clientInfo = {{"name", "claude-code (hook)"}, {"session", "abc-123"}};
        QCOMPARE(op.agentSession(), QStringLiteral("abc-123"));
        Grant g = *offer(op, Grant::Scope::Call);
        QVERIFY(g.session.isEmpty()); // offered for any session; the dialog binds it
        QVERIFY(!g.toJson().contains("session"));
        QVERIFY(g.covers(op.tool, op.principal, op.arguments, op.argsDigest, QStringLiteral("other")));
        g.session = op.agentSession();
        QVERIFY(g.covers(op.tool, op.principal, op.arguments, op.argsDigest, QStringLiteral("abc-123")));
        QVERIFY(!g.covers(op.tool, op.principal, op.arguments, op.argsDigest, QStringLiteral("other")));
        QVERIFY(!g.covers(op.tool, op.principal, op.arguments, op.argsDigest, QString())); // an MCP call
        QVERIFY(g.describe().contains(QLatin1String("in this agent session only (abc-123)")));
        g.id = QStringLiteral("0123456789abcdef");
        const auto back = Grant::fromJson(g.toJson());
        QVERIFY(back.ok());
        QCOMPARE(back.value().session, QStringLiteral("abc-123"));
    }

    void command_coversFurtherArgumentsInTheSameFolderOnly()
    {
        const Grant g = *offer(shell(QStringLiteral("npm run lint")), Grant::Scope::Command);
        QVERIFY(covers(g, shell(QStringLiteral("npm run lint --fix src"))));
        QVERIFY(!covers(g, shell(QStringLiteral("npm run test"))));
        QVERIFY(!covers(g, shell(QStringLiteral("npm run"))));
        QVERIFY(!covers(g, shell(QStringLiteral("npm run lint"), QStringLiteral("/w/other"))));
        QVERIFY(!covers(g, shell(QStringLiteral("npm run lint"), QStringLiteral("/w/project/sub"))));
        // The call's other fields: another agent, or an option such as Claude Code's sandbox switch.
        Operation unsandboxed = shell(QStringLiteral("npm run lint"));
        unsandboxed.arguments["more"] = {{"dangerouslyDisableSandbox", true}};
        QVERIFY(!covers(g, unsandboxed));
        Operation otherAgent = shell(QStringLiteral("npm run lint"));
        otherAgent.arguments["agent"] = "codex";
        QVERIFY(!covers(g, otherAgent));
        // Not plain words (no argv): a pipe, a substitution, a setting in front.
        QVERIFY(!covers(g, shell(QStringLiteral("npm run lint | sh"))));
        QVERIFY(!covers(g, shell(QStringLiteral("npm run lint $(rm -rf ~)"))));
        QVERIFY(!covers(g, shell(QStringLiteral("NODE_OPTIONS=--require=x npm run lint"))));
    }

    void command_neverForAWrapperOrAShortPrefix_data()
    {
        QTest::addColumn<QString>("command");
        for (const char *line :
             {"sh -c ls", "bash run.sh", "python3 -m pytest", "python3.11 x.py", "env FOO=1 make",
              "sudo apt-get install x", "npx prettier --write .", "xargs rm", "git push --force",
              "/usr/bin/env node x.js", "docker run alpine", "ls", "make test", "find . -delete",
              // a subcommand that runs what follows it (found by the attacker's review)
              "npm exec -- prettier --check src", "npm x -- rm -rf /x", "uv run -- rm -rf /x",
              "pnpm dlx create-app", "bundle exec rake", "kubectl exec pod -- sh", "go run main.go"})
            QTest::newRow(line) << QString::fromLatin1(line);
    }
    void command_neverForAWrapperOrAShortPrefix()
    {
        QFETCH(QString, command);
        QVERIFY(!offer(shell(command), Grant::Scope::Command));
        QVERIFY(offer(shell(command), Grant::Scope::Call)); // the exact call is always offered
    }

    void runsChangedCode_readsTheJudgesWords()
    {
        Plan plan;
        QVERIFY(!Grant::runsChangedCode(plan));
        plan.blastRadius = {
            {"asks",
             {"npm run lint, and no git repository keeps lint.js: the agent may have written what it runs"}}};
        QVERIFY(Grant::runsChangedCode(plan));
        plan.blastRadius = {{"asks", {"runs ./build.sh, changed since the last commit"}}};
        QVERIFY(Grant::runsChangedCode(plan));
        plan.blastRadius = {{"asks", {"installs is-odd (npm install)"}}};
        QVERIFY(!Grant::runsChangedCode(plan));
        // Every other reason the judge does not vouch for what runs (the second review).
        for (const char *reason :
             {"runs /tmp/t.py, outside the workspace roots", "runs a file it names only when the line runs",
              "runs ./x.sh, which is not a file yet",
              "make, whose makefiles include more files than Countersign reads",
              "npm install, and none of the files that would pin what it installs is here",
              "npm test outside the workspace roots"}) {
            plan.blastRadius = {{"asks", {reason}}};
            QVERIFY2(Grant::runsChangedCode(plan), reason);
        }
    }

    void hostileFolder_cannotWriteASentenceIntoTheGrantsWords()
    {
        const Grant g = *offer(
            shell(QStringLiteral("npm run lint"), QStringLiteral("/w/sub\n\n(This covers only this line.)")),
            Grant::Scope::Call);
        QVERIFY(!g.describe().contains(QLatin1Char('\n')));
        const Grant huge =
            *offer(shell(QStringLiteral("echo ") + QString(60'000, QLatin1Char('a'))), Grant::Scope::Call);
        QVERIFY(huge.example.size() < 400);
    }

    void file_coversThatFileNeverThroughALink()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString root = QFileInfo(dir.path()).canonicalFilePath();
        QVERIFY(QDir(root).mkpath(QStringLiteral("src")));
        const QString path = root + QStringLiteral("/src/notes.md");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        Operation op;
        op.tool = QStringLiteral("agent:write");
        op.principal = QStringLiteral("agent");
        op.arguments = {{"tool", "Write"}, {"path", path.toStdString()}, {"content", "a"}};
        op.argsDigest = QStringLiteral("d1");
        const Grant g = *offer(op, Grant::Scope::File);
        QVERIFY(!offer(op, Grant::Scope::Tool)); // never any arguments for an agent's own tool
        Operation changed = op;
        changed.arguments["content"] = "b";
        changed.argsDigest = QStringLiteral("d2");
        QVERIFY(covers(g, changed));
        Operation dotted = op;
        dotted.arguments["path"] = (root + QStringLiteral("/src/../src/notes.md")).toStdString();
        QVERIFY(!covers(g, dotted));
        // The file swapped for a link.
        QVERIFY(QFile::remove(path));
        QVERIFY(QFile::link(QDir::homePath() + QStringLiteral("/.bashrc"), path));
        QVERIFY(!covers(g, changed));
        // Its folder swapped for a link.
        QVERIFY(QFile::remove(path));
        QVERIFY(QDir(root + QStringLiteral("/src")).removeRecursively());
        QVERIFY(QDir(root).mkpath(QStringLiteral("elsewhere")));
        QVERIFY(QFile::link(root + QStringLiteral("/elsewhere"), root + QStringLiteral("/src")));
        QVERIFY(!covers(g, changed));
    }

    void mcpTool_offersTheToolWithAnyArguments()
    {
        Operation op;
        op.tool = QStringLiteral("github_create_issue");
        op.principal = QStringLiteral("agent");
        op.arguments = {{"title", "x"}};
        op.argsDigest = QStringLiteral("d");
        const Grant g = *offer(op, Grant::Scope::Tool);
        Operation other = op;
        other.arguments = {{"title", "y"}};
        other.argsDigest = QStringLiteral("e");
        QVERIFY(covers(g, other));
        Grant forged = g;
        forged.tool = QStringLiteral("agent:shell"); // a Tool grant never covers an agent's own tool
        QVERIFY(!forged.covers(QStringLiteral("agent:shell"), QStringLiteral("agent"), json::object(), {}));
    }

    void json_roundTripsAndRefusesWhatIsNotAGrant()
    {
        Grant g = *offer(shell(QStringLiteral("npm run lint")), Grant::Scope::Command);
        g.createdMs = 10;
        g.expiresMs = 20;
        g.by = QStringLiteral("console:alice");
        const auto back = Grant::fromJson(g.toJson());
        QVERIFY2(back.ok(), back.ok() ? "" : qPrintable(back.error()));
        QVERIFY(back.value().toJson() == g.toJson());
        QVERIFY(back.value().expiredAt(20));
        QVERIFY(!back.value().expiredAt(19));
        for (const char *key : {"id", "verdict", "scope", "principal", "createdMs"}) {
            json broken = g.toJson();
            broken[key] = key == std::string("createdMs") ? json("soon") : json(42);
            QVERIFY2(!Grant::fromJson(broken).ok(), key);
        }
        QVERIFY(!Grant::fromJson(json::array()).ok());
    }
};

QTEST_MAIN(GrantTest)
#include "grant_test.moc"
