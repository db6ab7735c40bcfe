#include "actionspec.h"
#include "config.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

class ActionSpecTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fillArgv_data()
    {
        QTest::addColumn<QStringList>("tmpl");
        QTest::addColumn<json>("args");
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("error");
        QTest::newRow("whole element")
            << QStringList{"kubectl", "delete", "pod", "{name}"} << json{{"name", "web-1"}}
            << QStringList{"kubectl", "delete", "pod", "web-1"} << QString();
        QTest::newRow("inside an element") << QStringList{"--namespace={ns}"} << json{{"ns", "prod"}}
                                           << QStringList{"--namespace=prod"} << QString();
        QTest::newRow("shell text stays literal")
            << QStringList{"rm", "{p}"} << json{{"p", "a; rm -rf ~ $(id)"}}
            << QStringList{"rm", "a; rm -rf ~ $(id)"} << QString();
        QTest::newRow("number and bool") << QStringList{"scale", "{n}", "{b}"} << json{{"n", 3}, {"b", true}}
                                         << QStringList{"scale", "3", "true"} << QString();
        QTest::newRow("two in one") << QStringList{"{a}/{b}"} << json{{"a", "x"}, {"b", "y"}}
                                    << QStringList{"x/y"} << QString();
        QTest::newRow("option injection") << QStringList{"rm", "{p}"} << json{{"p", "-rf"}} << QStringList{}
                                          << "argument \"p\" may not start with '-'";
        QTest::newRow("missing") << QStringList{"rm", "{p}"} << json::object() << QStringList{}
                                 << "argument \"p\" is required";
        QTest::newRow("object value") << QStringList{"rm", "{p}"} << json{{"p", {{"x", 1}}}} << QStringList{}
                                      << "argument \"p\" must be a string, number or boolean";
        QTest::newRow("NUL byte") << QStringList{"rm", "{p}"} << json{{"p", std::string("a\0b", 3)}}
                                  << QStringList{} << "argument \"p\" contains a NUL byte";
        QTest::newRow("no placeholder syntax") << QStringList{"echo", "{not valid}", "{}"} << json::object()
                                               << QStringList{"echo", "{not valid}", "{}"} << QString();
        QTest::newRow("option after an empty value")
            << QStringList{"rm", "{a}{b}"} << json{{"a", ""}, {"b", "--x"}} << QStringList{}
            << "argument \"b\" may not start with '-'";
        QTest::newRow("literal dash after an empty value")
            << QStringList{"rm", "{a}-{b}"} << json{{"a", ""}, {"b", "rf"}} << QStringList{}
            << "the command element \"{a}-{b}\" would start with '-' once filled";
        QTest::newRow("dash inside a value further in")
            << QStringList{"rm", "x{p}"} << json{{"p", "-rf"}} << QStringList{}
            << "argument \"p\" may not start with '-'";
        QTest::newRow("negative number") << QStringList{"scale", "{n}"} << json{{"n", -3}} << QStringList{}
                                         << "argument \"n\" may not start with '-'";
        QTest::newRow("option the author wrote")
            << QStringList{"kubectl", "--name={n}", "-{f}"} << json{{"n", "web"}, {"f", "v"}}
            << QStringList{"kubectl", "--name=web", "-v"} << QString();
        QTest::newRow("value after the author's option starts with '-'")
            << QStringList{"kubectl", "--name={n}"} << json{{"n", "-x"}} << QStringList{}
            << "argument \"n\" may not start with '-'";
        QTest::newRow("empty values") << QStringList{"echo", "{a}{b}"} << json{{"a", ""}, {"b", ""}}
                                      << QStringList{"echo", ""} << QString();
        QTest::newRow("NUL byte in the template")
            << QStringList{"echo", QStringLiteral("a{p}") + QChar(0)} << json{{"p", "x"}} << QStringList{}
            << "the command element";
        QTest::newRow("NUL byte in an element without placeholder")
            << QStringList{"echo", QStringLiteral("{p}"), QStringLiteral("b") + QChar(0)} << json{{"p", "x"}}
            << QStringList{} << "the command element";
    }
    void fillArgv()
    {
        QFETCH(QStringList, tmpl);
        QFETCH(json, args);
        QFETCH(QStringList, argv);
        QFETCH(QString, error);
        auto filled = ActionSpec::fillArgv(tmpl, args);
        if (error.isEmpty()) {
            QVERIFY2(filled.ok(), filled.ok() ? "" : qPrintable(filled.error()));
            QCOMPARE(filled.value(), argv);
        } else {
            QVERIFY(!filled.ok());
            QVERIFY2(filled.error().startsWith(error), qPrintable(filled.error()));
        }
    }
    void config_withActions_parses()
    {
        auto config = Config::parse(R"({
            // a gated deploy
            "actions": [{
                "name": "deploy", "title": "Deploy",
                "inputSchema": {"type": "object", "properties": {"env": {"type": "string"}}},
                "plan": ["deployctl", "plan", "{env}"], "apply": ["deployctl", "apply", "{env}"],
                "workingDirectory": "/srv", "risk": "critical", "timeoutSeconds": 30
            }],
            "rules": [{"tool": "deploy", "arguments": {"env": "dev"}, "decision": "allow"}],
            "approval": {"low": "client"}
        })",
                                    QStringLiteral("c.json"));
        QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error()));
        QCOMPARE(config.value().actions().size(), 1);
        const ActionSpec &a = config.value().actions().first();
        QCOMPARE(a.plan, (QStringList{"deployctl", "plan", "{env}"}));
        QCOMPARE(a.risk, Risk::Critical);
        QCOMPARE(a.timeoutSeconds, 30);
        QCOMPARE(config.value().policy().rules().size(), 1);
        QCOMPARE(config.value().policy().approvalFor(Risk::Low), ApprovalMode::Client);
    }
    void scriptPlaceholder_isRefusedAtLoad_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<json>("argv");
        QTest::addColumn<QString>("error");
        QTest::newRow("sh -c")
            << "apply" << json{"sh", "-c", "rm -rf -- {dir}"}
            << "actions[0].apply: a placeholder inside the sh -c script is shell code: pass it "
               "as a positional argument instead: [\"sh\", \"-c\", \"rm -rf -- \\\"$1\\\"\", "
               "\"sh\", \"{dir}\"]";
        QTest::newRow("plan sh -c")
            << "plan" << json{"/bin/sh", "-c", "ls {dir}"}
            << "actions[0].plan: a placeholder inside the sh -c script is shell code: pass "
               "it as a positional argument instead: [\"/bin/sh\", \"-c\", "
               "\"ls \\\"$1\\\"\", \"sh\", \"{dir}\"]";
        QTest::newRow("bash -lc")
            << "apply" << json{"bash", "-lc", "rm -rf {dir}"}
            << "actions[0].apply: a placeholder inside the bash -lc script is shell code: pass "
               "it as a positional argument instead: [\"bash\", \"-lc\", "
               "\"rm -rf \\\"$1\\\"\", \"bash\", \"{dir}\"]";
        QTest::newRow("sh -ec, quoted placeholders")
            << "apply" << json{"sh", "-ec", "echo \"{dir}\" '{dir}' x{dir}"}
            << "actions[0].apply: a placeholder inside the sh -ec script is shell code: pass it as a "
               "positional "
               "argument instead: [\"sh\", \"-ec\", \"echo \\\"$1\\\" \\\"$1\\\" x\\\"$1\\\"\", \"sh\", "
               "\"{dir}\"]";
        QTest::newRow("ssh after the host")
            << "apply" << json{"ssh", "-p", "2222", "deploy@web", "systemctl", "restart", "{dir}"}
            << "actions[0].apply: ssh joins the words after the host";
        QTest::newRow("ssh behind sudo, -- then host")
            << "apply" << json{"sudo", "ssh", "-tt", "--", "web", "rm {dir}"}
            << "actions[0].apply: ssh joins the words after the host";
        QTest::newRow("watch without --exec") << "apply" << json{"watch", "-n", "5", "ls", "{dir}"}
                                              << "actions[0].apply: watch runs its words through sh -c";
        QTest::newRow("su -c") << "apply" << json{"su", "-", "deploy", "-c", "rm -rf {dir}"}
                               << "actions[0].apply: su runs the -c command through the user's shell";
        QTest::newRow("runuser --command=")
            << "apply" << json{"runuser", "-u", "deploy", "--command=ls {dir}"}
            << "actions[0].apply: runuser runs the -c command";
        QTest::newRow("sh -o pipefail -c") << "apply" << json{"sh", "-o", "pipefail", "-c", "ls {dir}"}
                                           << "actions[0].apply: a placeholder inside the sh -c script";
        QTest::newRow("env sh -c")
            << "apply" << json{"env", "sh", "-c", "rm {dir}"}
            << "actions[0].apply: a placeholder inside the sh -c script is shell code: pass "
               "it as a positional argument instead: [\"env\", \"sh\", \"-c\", "
               "\"rm \\\"$1\\\"\", \"sh\", \"{dir}\"]";
        QTest::newRow("/usr/bin/env with assignments")
            << "apply" << json{"/usr/bin/env", "-i", "LANG=C", "PATH=/bin", "dash", "-c", "rm {dir}"}
            << "actions[0].apply: a placeholder inside the dash -c script is shell code";
        QTest::newRow("behind sudo")
            << "apply" << json{"sudo", "-u", "root", "bash", "-c", "rm {dir}"}
            << "actions[0].apply: a placeholder inside the bash -c script is shell code";
        QTest::newRow("find -exec sh -c")
            << "apply" << json{"find", ".", "-exec", "sh", "-c", "rm {dir}", ";"}
            << "actions[0].apply: a placeholder inside the sh -c script is shell code: pass it as a "
               "positional "
               "argument instead: [\"find\", \".\", \"-exec\", \"sh\", \"-c\", \"rm \\\"$1\\\"\", \"sh\", "
               "\"{dir}\", \";\"]";
        QTest::newRow("python3 -c")
            << "apply" << json{"python3", "-c", "import shutil; shutil.rmtree('{dir}')"}
            << "actions[0].apply: a placeholder inside the python3 -c script is Python "
               "code: pass it as an argument and read it from sys.argv instead: "
               "[\"python3\", \"-c\", \"import sys; import shutil; "
               "shutil.rmtree(sys.argv[1])\", \"{dir}\"]";
        QTest::newRow("python3 -Ic")
            << "apply" << json{"python3", "-Ic", "print({dir})"}
            << "actions[0].apply: a placeholder inside the python3 -Ic script is Python";
        QTest::newRow("node -e")
            << "apply" << json{"node", "-e", "require('fs').rmSync('{dir}')"}
            << "actions[0].apply: a placeholder inside the node -e script is JavaScript code: "
               "pass it as an argument and read it from process.argv instead: [\"node\", "
               "\"-e\", \"require('fs').rmSync(process.argv[1])\", \"{dir}\"]";
        QTest::newRow("node --eval=") << "apply" << json{"node", "--eval=console.log({dir})"}
                                      << "actions[0].apply: a placeholder inside the node --eval script is "
                                         "JavaScript code";
        QTest::newRow("perl -e")
            << "apply" << json{"perl", "-e", "unlink '{dir}'"}
            << "actions[0].apply: a placeholder inside the perl -e script is Perl code: pass it "
               "as an argument and read it from @ARGV instead: [\"perl\", \"-e\", "
               "\"unlink $ARGV[0]\", \"{dir}\"]";
        QTest::newRow("perl -lne")
            << "apply" << json{"perl", "-lne", "print if /{dir}/", "f"}
            << "actions[0].apply: a placeholder inside the perl -lne script is Perl code";
        QTest::newRow("ruby -e") << "apply" << json{"ruby", "-e", "puts {dir}"}
                                 << "actions[0].apply: a placeholder inside the ruby -e script is Ruby code";
        QTest::newRow("php -r") << "apply" << json{"php", "-r", "unlink('{dir}');"}
                                << "actions[0].apply: a placeholder inside the php -r script is PHP code";
        QTest::newRow("Rscript -e")
            << "apply" << json{"Rscript", "-e", "unlink('{dir}')"}
            << "actions[0].apply: a placeholder inside the Rscript -e script is R code";
        QTest::newRow("deno eval")
            << "apply" << json{"deno", "eval", "Deno.removeSync('{dir}')"}
            << "actions[0].apply: a placeholder inside the deno eval script is JavaScript";
        QTest::newRow("lua -e") << "apply" << json{"lua5.4", "-e", "os.remove('{dir}')"}
                                << "actions[0].apply: a placeholder inside the lua5.4 -e script is Lua code";
        QTest::newRow("pwsh -Command")
            << "apply" << json{"pwsh", "-NoProfile", "-Command", "Remove-Item {dir}"}
            << "actions[0].apply: a placeholder inside the pwsh -Command script is "
               "PowerShell code: pass it as an argument to a script file and read it "
               "from $args instead: [\"pwsh\", \"-File\", \"/path/to/script.ps1\", "
               "\"{dir}\"]";
        QTest::newRow("awk program")
            << "apply" << json{"awk", "{print ${dir}}", "f"}
            << "actions[0].apply: a placeholder inside the awk program is awk code: pass it "
               "as a variable instead: [\"awk\", \"-v\", \"dir={dir}\", "
               "\"{print $dir}\", \"f\"]";
        QTest::newRow("sed script") << "apply" << json{"sed", "-i", "s/x/{dir}/", "f"}
                                    << "actions[0].apply: a placeholder inside the sed program is sed code";
        QTest::newRow("env -S") << "apply" << json{"env", "-S", "rm {dir}"}
                                << "actions[0].apply: a placeholder inside the env -S string is split into a "
                                   "command line";
        QTest::newRow("env program from a value")
            << "apply" << json{"env", "LANG=C", "{dir}", "x"}
            << "actions[0].apply: a placeholder among env's assignments and program decides what runs";
        QTest::newRow("option from a value") << "apply" << json{"perl", "-{dir}", "x"}
                                             << "actions[0].apply: a placeholder inside the option "
                                                "\"-{dir}\" of perl lets the agent choose the "
                                                "option";
    }
    void scriptPlaceholder_isRefusedAtLoad()
    {
        QFETCH(QString, key);
        QFETCH(json, argv);
        QFETCH(QString, error);
        json action = {{"name", "x"},
                       {"inputSchema", {{"type", "object"}, {"properties", {{"dir", {{"type", "string"}}}}}}},
                       {"plan", {"true"}},
                       {"apply", {"true"}}};
        action[key.toStdString()] = argv;
        auto spec = ActionSpec::fromJson(action, QStringLiteral("actions[0]"));
        QVERIFY(!spec.ok());
        QVERIFY2(spec.error().startsWith(error), qPrintable(spec.error()));
    }
    void scriptPlaceholder_safeForms_areAccepted_data()
    {
        QTest::addColumn<json>("argv");
        QTest::newRow("sh -c positional") << json{"sh", "-c", "rm -rf -- \"$1\"", "sh", "{dir}"};
        QTest::newRow("bash -lc positional $0") << json{"bash", "-lc", "echo \"$0\"", "{dir}"};
        QTest::newRow("env sh -c positional")
            << json{"/usr/bin/env", "LANG=C", "sh", "-c", "ls -- \"$1\"", "sh", "{dir}"};
        QTest::newRow("sh script file argument") << json{"sh", "/path/script.sh", "{dir}"};
        QTest::newRow("bash -x script file argument") << json{"bash", "-x", "/path/script.sh", "{dir}"};
        QTest::newRow("python3 sys.argv") << json{"python3", "-c", "import sys; print(sys.argv[1])", "{dir}"};
        QTest::newRow("python3 script with its own -c") << json{"python3", "script.py", "-c", "{dir}"};
        QTest::newRow("node process.argv") << json{"node", "-e", "console.log(process.argv[1])", "{dir}"};
        QTest::newRow("perl @ARGV") << json{"perl", "-e", "print $ARGV[0]", "{dir}"};
        QTest::newRow("awk -v") << json{"awk", "-v", "dir={dir}", "{print dir}", "f"};
        QTest::newRow("awk -f") << json{"awk", "-f", "prog.awk", "{dir}"};
        QTest::newRow("sed -e and a file") << json{"sed", "-e", "s/a/b/", "{dir}"};
        QTest::newRow("pwsh -File") << json{"pwsh", "-File", "/path/script.ps1", "{dir}"};
        QTest::newRow("env value") << json{"env", "TARGET={dir}", "sh", "/path/script.sh"};
        QTest::newRow("shell script without placeholder")
            << json{"kubectl", "exec", "{dir}", "--", "sh", "-c", "echo hi"};
        QTest::newRow("braces that are no placeholder")
            << json{"sh", "-c", "printf '{\"a\": \"%s\"}' \"$0\"", "{dir}"};
        QTest::newRow("shell name as data") << json{"apt-get", "install", "python3", "{dir}"};
        QTest::newRow("ssh host from a value") << json{"ssh", "{dir}", "uptime"};
        QTest::newRow("ssh -i key, host from a value") << json{"ssh", "-i", "/k", "{dir}", "uptime"};
        QTest::newRow("watch -x") << json{"watch", "-x", "ls", "{dir}"};
        QTest::newRow("watch --exec") << json{"watch", "--exec", "ls", "{dir}"};
        QTest::newRow("su with a literal command") << json{"su", "{dir}", "-c", "whoami"};
    }
    void scriptPlaceholder_safeForms_areAccepted()
    {
        QFETCH(json, argv);
        const json action = {
            {"name", "x"},
            {"inputSchema", {{"type", "object"}, {"properties", {{"dir", {{"type", "string"}}}}}}},
            {"plan", argv},
            {"apply", argv}};
        auto spec = ActionSpec::fromJson(action, QStringLiteral("actions[0]"));
        QVERIFY2(spec.ok(), spec.ok() ? "" : qPrintable(spec.error()));
    }
    void config_badAction_namesFileLineAndReason_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        const QByteArray head = "{\n  \"actions\": [\n    {\n      \"name\": \"x\",\n";
        QTest::newRow("apply missing") << head + "      \"plan\": [\"p\"]\n    }\n  ]\n}"
                                       << "c.json:4: actions[0].apply: is required";
        QTest::newRow("shell string")
            << head + "      \"plan\": \"terraform plan\", \"apply\": [\"a\"]\n    }\n  ]\n}"
            << "c.json:4: actions[0].plan: must be a non-empty argv array";
        QTest::newRow("unknown placeholder")
            << head + "      \"plan\": [\"p\", \"{ghost}\"], \"apply\": [\"a\"]\n    }\n  ]\n}"
            << "c.json:4: actions[0]: placeholder {ghost} is not a property of inputSchema";
        QTest::newRow("bad risk")
            << head + "      \"plan\": [\"p\"], \"apply\": [\"a\"], \"risk\": \"huge\"\n    }\n  ]\n}"
            << "c.json:4: actions[0].risk: must be low, medium, high or critical";
        QTest::newRow("relative cwd")
            << head +
                   "      \"plan\": [\"p\"], \"apply\": [\"a\"], \"workingDirectory\": \"src\"\n    }\n  ]\n}"
            << "c.json:4: actions[0].workingDirectory: must be an absolute path";
        QTest::newRow("unknown key")
            << head + "      \"plan\": [\"p\"], \"apply\": [\"a\"], \"shell\": true\n    }\n  ]\n}"
            << "c.json:4: actions[0].shell: unknown action key";
        QTest::newRow("duplicate name")
            << QByteArray("{\"actions\": [\n{\"name\": \"x\", \"plan\": [\"p\"], \"apply\": [\"a\"]},\n"
                          "{\"name\": \"x\", \"plan\": [\"p\"], \"apply\": [\"a\"]}]}")
            << "c.json:2: x: a second action with this name";
        QTest::newRow("placeholder in a shell script")
            << head + "      \"inputSchema\": {\"type\": \"object\", \"properties\": {\"d\": {}}},\n" +
                   "      \"plan\": [\"true\"], \"apply\": [\"sh\", \"-c\", \"rm {d}\"]\n    }\n  ]\n}"
            << "c.json:4: actions[0].apply: a placeholder inside the sh -c script is shell code: pass it as "
               "a "
               "positional argument instead: [\"sh\", \"-c\", \"rm \\\"$1\\\"\", \"sh\", \"{d}\"]";
        QTest::newRow("bad rule") << QByteArray("{\n\"rules\": [{\"decision\": \"perhaps\"}]\n}")
                                  << "c.json:2: rules[0].decision: must be allow, ask or deny";
        QTest::newRow("bad keyStore")
            << QByteArray("{\"keyStore\": \"vault\"}") << "c.json:1: keyStore: must be";
    }
    void config_badAction_namesFileLineAndReason()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        auto config = Config::parse(text, QStringLiteral("c.json"));
        QVERIFY(!config.ok());
        QVERIFY2(config.error().startsWith(error), qPrintable(config.error()));
    }
};

QTEST_GUILESS_MAIN(ActionSpecTest)
#include "actionspec_test.moc"
