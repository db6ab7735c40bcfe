// Cline CLI's payload read as Cline runs it (server/hooks/clinepayload): run_commands' strings are
// grouped into shell texts exactly as Cline groups them before its shell runs each, so that what
// the gate reads is what runs. Each case is an attacker's spelling or a real session's.
#include "clinepayload.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

// The shell text the gate reads for run_commands(input); empty when the input is not read (asks).
QString shellTextOf(const json &input)
{
    bool unasked = false;
    const json payload = {{"hookName", "tool_call"},
                          {"taskId", "task-1"},
                          {"workspaceRoots", json::array({"/ws"})},
                          {"tool_call", {{"id", "call_1"}, {"name", "run_commands"}, {"input", input}}}};
    const auto out = ClinePayload::translate(payload, &unasked);
    if (!out.ok() || out.value().value("tool_name", "") != "Bash")
        return {};
    return QString::fromStdString(out.value().at("tool_input").at("command").get<std::string>());
}

} // namespace

class ClinePayloadTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // One command string holding lines and a here-document is one shell text, as the shell reads it.
    void aMultilineCommand_isOneShellText()
    {
        const QString text = shellTextOf(
            {{"commands", json::array({"cat > notes.py <<'EOF'\nprint(1)\nEOF\npython3 notes.py"})}});
        QCOMPARE(text, QStringLiteral("(cat > notes.py <<'EOF'\nprint(1)\nEOF\npython3 notes.py\n)"));
    }

    // Separate strings: each in a shell of its own.
    void separateStrings_runEachInAShellOfItsOwn()
    {
        QCOMPARE(shellTextOf({{"commands", json::array({"ls", "git status"})}}),
                 QStringLiteral("(ls\n)\n(git status\n)"));
    }

    // Cline joins a string that starts a here-document to the strings up to the first whose
    // trimmed text is its word, and runs the rest on their own: a command after that string is
    // a command, not here-document text, even where a shell would end the document later.
    void aHereDocument_endsWhereClineEndsIt()
    {
        // A here-document Cline ends where the shell would not: the text it runs alone leaves the
        // document open, which would swallow what follows in the one text the gate reads: not read.
        QVERIFY(shellTextOf({{"commands", json::array({"cat <<EOF", " EOF", "rm -rf x", "EOF"})}}).isEmpty());
        // JavaScript's trim() takes a byte-order mark; Qt's trimmed() does not: read with Qt's, the
        // four strings would be one text with rm -rf inside a here-document Cline has already ended.
        QVERIFY(shellTextOf({{"commands", json::array({"cat <<EOF", "EOF\xEF\xBB\xBF", "rm -rf x", "EOF"})}})
                    .isEmpty());
        // Its pattern's \s is JavaScript's too: a no-break space before the word starts one, which
        // the shell (no blank for it) leaves open: not read either way.
        QVERIFY(shellTextOf({{"commands", json::array({"cat <<\xC2\xA0"
                                                       "EOF",
                                                       "EOF", "rm -rf x"})}})
                    .isEmpty());
        // A here-string (<<<) starts none; quoted words and <<- do.
        QCOMPARE(shellTextOf({{"commands", json::array({"cat <<< EOF", "EOF"})}}),
                 QStringLiteral("(cat <<< EOF\n)\n(EOF\n)"));
        QCOMPARE(shellTextOf({{"commands", json::array({"cat <<-'END'", "x", "\tEND"})}}),
                 QStringLiteral("(cat <<-'END'\nx\n\tEND\n)"));
    }

    // Cline runs each string in a shell of its own: a quote or a here-document one leaves open
    // would swallow the next in the gate's one text. Such input is not read (it asks).
    void aStringLeftOpen_isNotRead()
    {
        QVERIFY(shellTextOf({{"commands", json::array({"echo '", "cat ~/.ssh/id_rsa #'"})}}).isEmpty());
        QVERIFY(
            shellTextOf({{"commands", json::array({"cat <<\\EOF", "rm notes.txt", "true\nEOF"})}}).isEmpty());
        QVERIFY(shellTextOf({{"commands", json::array({"cat <<$'EOF'", "rm notes.txt", "true\nEOF"})}})
                    .isEmpty());
        QCOMPARE(shellTextOf({{"commands", json::array({"echo 'a'", "ls"})}}),
                 QStringLiteral("(echo 'a'\n)\n(ls\n)"));
    }

    // {command, args} runs with no shell: its words quoted; a line break in them is not read.
    void aProgramWithArguments_isQuotedWordByWord()
    {
        QCOMPARE(shellTextOf(json::array({{{"command", "echo"}, {"args", {"hi", ";", "rm"}}}})),
                 QStringLiteral("('echo' 'hi' ';' 'rm'\n)"));
        QVERIFY(shellTextOf(json::array({{{"command", "echo"}, {"args", {"a\nb"}}}})).isEmpty());
        // A carriage return, which Cline and a shell may read differently, is never read.
        QVERIFY(shellTextOf({{"commands", json::array({"echo hi\r\nrm -rf x"})}}).isEmpty());
        // An input naming two of commands, command and cmd: Cline takes one and drops the rest.
        QVERIFY(shellTextOf({{"cmd", "ls"}, {"command", "rm -rf x"}}).isEmpty());
    }
};

QTEST_GUILESS_MAIN(ClinePayloadTest)
#include "clinepayload_test.moc"
