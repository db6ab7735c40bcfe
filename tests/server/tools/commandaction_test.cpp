// Plan and apply commands as real child processes: no shell, timeouts, output caps, and the plan
// read from the command's output.
#include "commandaction.h"
#include "commandrunner.h"
#include "helperfailure.h"
#include "jsoncompare.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

class CommandActionTest : public QObject
{
    Q_OBJECT
private:
    CommandRunner m_runner;

    Result<CommandOutput> run(const CommandSpec &spec)
    {
        std::optional<Result<CommandOutput>> out;
        m_runner.run(spec, [&out](Result<CommandOutput> r) { out = std::move(r); });
        if (!QTest::qWaitFor([&] { return out.has_value(); }, 10000)) {
            helperFailed(QStringLiteral("the command did not finish within 10 s"));
            return failure(QStringLiteral("the command did not finish within 10 s"));
        }
        return std::move(*out);
    }
    static ActionSpec spec(const QStringList &plan, const QStringList &apply)
    {
        ActionSpec s;
        s.name = QStringLiteral("act");
        s.title = QStringLiteral("Act");
        s.inputSchema = {{"type", "object"}, {"properties", {{"target", {{"type", "string"}}}}}};
        s.plan = plan;
        s.apply = apply;
        s.risk = Risk::High;
        s.timeoutSeconds = 5;
        return s;
    }

private Q_SLOTS:
    void runner_capturesOutputAndExitCode()
    {
        auto r = run({{"sh", "-c", "echo out; echo err >&2; exit 3"}, {}, 5000, 1024, {}});
        QVERIFY(r.ok());
        QCOMPARE(r.value().exitCode, 3);
        QCOMPARE(r.value().stdOut, QByteArray("out\n"));
        QCOMPARE(r.value().stdErr, QByteArray("err\n"));
    }
    void runner_argumentsAreNotInterpretedByAShell()
    {
        QTemporaryDir dir;
        const QString marker = dir.filePath(QStringLiteral("pwned"));
        auto r = run({{"echo", QStringLiteral("$(touch %1)").arg(marker), "; touch " + marker},
                      dir.path(),
                      5000,
                      1024,
                      {}});
        QVERIFY(r.ok());
        QVERIFY(!QFile::exists(marker));
        QVERIFY(r.value().stdOut.contains("$(touch"));
    }
    void runner_missingProgram_isAnError()
    {
        auto r = run({{"countersign-no-such-program"}, {}, 5000, 1024, {}});
        QVERIFY(!r.ok());
        QVERIFY(r.error().contains(QLatin1String("cannot run")));
    }
    void runner_timeout_killsTheProcess()
    {
        QElapsedTimer timer;
        timer.start();
        auto r = run({{"sleep", "30"}, {}, 300, 1024, {}});
        QVERIFY(!r.ok());
        QVERIFY(r.error().contains(QLatin1String("ran longer")));
        QVERIFY(timer.elapsed() < 5000);
    }
    void runner_outputOverTheCap_isTruncatedAndFlagged()
    {
        auto r = run({{"sh", "-c", "head -c 100000 /dev/zero"}, {}, 5000, 1000, {}});
        QVERIFY(r.ok());
        QCOMPARE(r.value().stdOut.size(), 1000);
        QVERIFY(r.value().truncated);
    }
    void plan_jsonOutput_isUsedAsThePlan()
    {
        const ActionSpec s = spec({"p"}, {"rm", "{target}"});
        auto plan = CommandAction::planFromOutput(
            s, {{"target", "web-1"}},
            R"({"summary":"1 service","diff":"-web-1","targets":["svc/web-1"],"blastRadius":{"instances":3}})");
        QVERIFY(plan.ok());
        QCOMPARE(plan.value().summary, QStringLiteral("1 service"));
        QCOMPARE(plan.value().diff, QStringLiteral("-web-1"));
        QCOMPARE(plan.value().targets, QStringList{QStringLiteral("svc/web-1")});
        QCOMPARE_JSON(plan.value().blastRadius, json({{"instances", 3}, {"irreversible", true}}));
        QCOMPARE(plan.value().risk, Risk::High);
    }
    void plan_textOutput_isTheDiff_targetsFromApplyArguments()
    {
        const ActionSpec s = spec({"p"}, {"rm", "{target}"});
        auto plan = CommandAction::planFromOutput(s, {{"target", "web-1"}}, "will delete web-1\n");
        QVERIFY(plan.ok());
        QCOMPARE(plan.value().diff, QStringLiteral("will delete web-1\n"));
        QCOMPARE(plan.value().targets, QStringList{QStringLiteral("web-1")});
        QCOMPARE(plan.value().prompt, QStringLiteral("Run \"Act\" with target=web-1?"));
    }
    void plan_malformedJsonFields_areRefused()
    {
        const ActionSpec s = spec({"p"}, {"rm"});
        QVERIFY(!CommandAction::planFromOutput(s, json::object(), R"({"targets":"web-1"})").ok());
        QVERIFY(!CommandAction::planFromOutput(s, json::object(), R"({"blastRadius":[]})").ok());
        QVERIFY(!CommandAction::planFromOutput(s, json::object(), R"({"diff":1})").ok());
    }
    void plan_failingCommand_isAnError_withItsStderr()
    {
        CommandAction action(spec({"sh", "-c", "echo no cluster >&2; exit 1"}, {"true"}), m_runner);
        std::optional<Result<Plan>> out;
        action.plan(json::object(), [&out](Result<Plan> p) { out = std::move(p); });
        QTRY_VERIFY(out.has_value());
        QVERIFY(!out->ok());
        QVERIFY2(out->error().contains(QLatin1String("exited with 1: no cluster")), qPrintable(out->error()));
    }
    void apply_reportsExitCodeAndOutput()
    {
        CommandAction action(spec({"true"}, {"sh", "-c", "echo removed \"$0\"; exit 2", "{target}"}),
                             m_runner);
        std::optional<json> out;
        action.apply({{"target", "web-1"}}, [&out](json r) { out = std::move(r); });
        QTRY_VERIFY(out.has_value());
        QCOMPARE_JSON(out->at("isError"), json(true));
        QCOMPARE_JSON(out->at("structuredContent").at("exitCode"), json(2));
        QCOMPARE_JSON(out->at("structuredContent").at("stdout"), json("removed web-1\n"));
    }
    void apply_optionInjection_isNotRun()
    {
        CommandAction action(spec({"true"}, {"rm", "{target}"}), m_runner);
        std::optional<json> out;
        action.apply({{"target", "-rf"}}, [&out](json r) { out = std::move(r); });
        QTRY_VERIFY(out.has_value());
        QCOMPARE_JSON(out->at("isError"), json(true));
        QVERIFY(out->at("content").at(0).at("text").get<std::string>().find("may not start with '-'") !=
                std::string::npos);
    }
    // Each row fills the last element of an apply command that, when it runs, leaves a marker and
    // prints that element: a refused fill must leave no marker.
    void apply_fill_refusedRunsNothing_data()
    {
        QTest::addColumn<QString>("element");
        QTest::addColumn<json>("args");
        QTest::addColumn<QString>("printed"); // empty: refused with error
        QTest::addColumn<QString>("error");
        QTest::newRow("two values") << "{a}{b}" << json{{"a", "x"}, {"b", "y"}} << "xy" << QString();
        QTest::newRow("empty value then an option") << "{a}{b}" << json{{"a", ""}, {"b", "--x"}} << QString()
                                                    << "Not run: argument \"b\" may not start with '-'";
        QTest::newRow("empty value then a literal dash")
            << "{a}-{b}" << json{{"a", ""}, {"b", "rf"}} << QString()
            << "Not run: the command element \"{a}-{b}\" would start with '-' once filled";
        QTest::newRow("value starting with a dash")
            << "{a}" << json{{"a", "-rf"}} << QString() << "Not run: argument \"a\" may not start with '-'";
        QTest::newRow("the author's option")
            << "--name={a}" << json{{"a", "web"}} << "--name=web" << QString();
        QTest::newRow("the author's option, value with a dash")
            << "--name={a}" << json{{"a", "-x"}} << QString()
            << "Not run: argument \"a\" may not start with '-'";
        QTest::newRow("NUL byte") << "{a}" << json{{"a", std::string("x\0y", 3)}} << QString()
                                  << "Not run: argument \"a\" contains a NUL byte";
    }
    void apply_fill_refusedRunsNothing()
    {
        QFETCH(QString, element);
        QFETCH(json, args);
        QFETCH(QString, printed);
        QFETCH(QString, error);
        QTemporaryDir dir;
        ActionSpec s = spec({"true"}, {"sh", "-c", "touch ran; printf %s \"$1\"", "sh", element});
        s.workingDirectory = dir.path();
        CommandAction action(s, m_runner);
        std::optional<json> out;
        action.apply(args, [&out](json r) { out = std::move(r); });
        QTRY_VERIFY(out.has_value());
        const QString text = QString::fromStdString(out->at("content").at(0).at("text").get<std::string>());
        if (error.isEmpty()) {
            QVERIFY2(QFile::exists(dir.filePath(QStringLiteral("ran"))), qPrintable(text));
            QCOMPARE_JSON(out->at("structuredContent").at("stdout"), json(printed.toStdString()));
            return;
        }
        QCOMPARE_JSON(out->at("isError"), json(true));
        QVERIFY2(text.startsWith(error), qPrintable(text));
        QTest::qWait(200); // a process started by mistake would have touched the marker by now
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("ran"))));
    }
    void plan_refusedFill_runsNothing()
    {
        QTemporaryDir dir;
        ActionSpec s = spec({"sh", "-c", "touch ran", "sh", "{a}-{b}"}, {"true"});
        s.workingDirectory = dir.path();
        CommandAction action(s, m_runner);
        std::optional<Result<Plan>> out;
        action.plan({{"a", ""}, {"b", "rf"}}, [&out](Result<Plan> p) { out = std::move(p); });
        QTRY_VERIFY(out.has_value());
        QVERIFY(!out->ok());
        QVERIFY2(out->error().contains(QLatin1String("would start with '-'")), qPrintable(out->error()));
        QTest::qWait(200);
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("ran"))));
    }
};

QTEST_GUILESS_MAIN(CommandActionTest)
#include "commandaction_test.moc"
