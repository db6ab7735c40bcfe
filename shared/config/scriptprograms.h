#pragma once

// The programs whose code a placeholder must not reach, as ScriptPlaceholders reads them: which
// program an argv element names, how its options are written, and which of its elements it runs as
// code. What is refused, and the words of the refusal, are in scriptplaceholders.cpp.
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Countersign::ScriptPrograms {

enum class Kind {
    PosixShell,
    Fish,
    OtherShell, // csh, tcsh, nu, xonsh, elvish: "-c CODE"
    Python,
    Perl,
    Ruby,
    Node,
    Bun,
    Deno,
    Php,
    Lua,
    R,
    AppleScript,
    PowerShell,
    WindowsPowerShell, // powershell.exe reads its operands as a command
    Awk,
    Sed,
};

// How a program's options are written, as far as finding its code goes. Short options are
// clustered ("-lc"), and an option that takes a value takes the rest of its cluster or the next
// element.
struct Syntax final
{
    QString codeShort;               // options whose value is code: python -c, perl -e
    QString valueShort;              // options whose value is something else
    QString programShort;            // options that name the program file (awk -f): then no operand is code
    QString stopShort;               // options after which the rest belongs to something else (python -m)
    QString flagShort;               // options that make the first operand code (sh -c)
    QStringList codeLong;            // "--eval CODE", "--eval=CODE"
    QStringList valueLong;           // long options that take a value
    QStringList programLong;         // long options that name the program file
    bool firstOperandIsCode = false; // awk, sed: the program comes first unless an option gave it
    bool plusOptions = false;        // sh +o, and "-" ends the options
};

// An element the program runs as code, and the option that made it so, as written ("-lc", "--eval");
// empty when it is code by its place (awk's program).
struct Code final
{
    qsizetype element = -1;
    QString option;
};

// What the options of the program at argv[program] say: the elements it runs as code, or an option
// element holding a placeholder (the agent would choose the option: "-{x}" with x = "e...").
struct Reading final
{
    QList<Code> code;
    qsizetype placeholderOption = -1;
};

// The program an argv element names (its file name, without a path or an .exe), if it is one.
std::optional<Kind> kindOf(const QString &element);
// Its option syntax (PowerShell's is read by powerShellCode instead).
Syntax syntaxOf(Kind kind);
// What the options of the program at argv[program] say.
Reading readOptions(const QStringList &argv, qsizetype program, const Syntax &syntax);
// pwsh's and powershell.exe's code elements.
Reading powerShellCode(const QStringList &argv, qsizetype program, bool windows);

} // namespace Countersign::ScriptPrograms
