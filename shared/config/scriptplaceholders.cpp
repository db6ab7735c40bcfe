#include "scriptplaceholders.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace Countersign::ScriptPlaceholders {

const QRegularExpression &pattern()
{
    static const QRegularExpression re(QStringLiteral("\\{([A-Za-z_][A-Za-z0-9_]{0,63})\\}"));
    return re;
}

bool has(const QString &text)
{
    return pattern().match(text).hasMatch();
}

namespace {

const QRegularExpression &placeholderPattern()
{
    return pattern();
}

bool hasPlaceholder(const QString &text)
{
    return has(text);
}

// Script strings. A placeholder inside code that a shell or an interpreter runs turns the agent's value
// into code, whatever the input schema says of it. Each program is read with the option syntax it
// really has, closely enough to find which elements it runs as code; the value then belongs in an
// argument of its own, which the script reads.

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

std::optional<Kind> kindOf(const QString &element)
{
    const qsizetype slash =
        std::max(element.lastIndexOf(QLatin1Char('/')), element.lastIndexOf(QLatin1Char('\\')));
    QString name = element.mid(slash + 1).toLower();
    if (name.endsWith(QLatin1String(".exe")))
        name.chop(4);
    // python3.12, perl5.36, lua5.4, ksh93
    while (!name.isEmpty() && (name.back().isDigit() || name.back() == QLatin1Char('.')))
        name.chop(1);
    static const std::map<QString, Kind> kinds = {
        {QStringLiteral("sh"), Kind::PosixShell},
        {QStringLiteral("bash"), Kind::PosixShell},
        {QStringLiteral("zsh"), Kind::PosixShell},
        {QStringLiteral("dash"), Kind::PosixShell},
        {QStringLiteral("ksh"), Kind::PosixShell},
        {QStringLiteral("mksh"), Kind::PosixShell},
        {QStringLiteral("lksh"), Kind::PosixShell},
        {QStringLiteral("oksh"), Kind::PosixShell},
        {QStringLiteral("pdksh"), Kind::PosixShell},
        {QStringLiteral("ash"), Kind::PosixShell},
        {QStringLiteral("hush"), Kind::PosixShell},
        {QStringLiteral("posh"), Kind::PosixShell},
        {QStringLiteral("yash"), Kind::PosixShell},
        {QStringLiteral("rbash"), Kind::PosixShell},
        {QStringLiteral("rksh"), Kind::PosixShell},
        {QStringLiteral("rzsh"), Kind::PosixShell},
        {QStringLiteral("osh"), Kind::PosixShell},
        {QStringLiteral("ysh"), Kind::PosixShell},
        {QStringLiteral("fish"), Kind::Fish},
        {QStringLiteral("csh"), Kind::OtherShell},
        {QStringLiteral("tcsh"), Kind::OtherShell},
        {QStringLiteral("nu"), Kind::OtherShell},
        {QStringLiteral("xonsh"), Kind::OtherShell},
        {QStringLiteral("elvish"), Kind::OtherShell},
        {QStringLiteral("python"), Kind::Python},
        {QStringLiteral("pypy"), Kind::Python},
        {QStringLiteral("perl"), Kind::Perl},
        {QStringLiteral("ruby"), Kind::Ruby},
        {QStringLiteral("jruby"), Kind::Ruby},
        {QStringLiteral("node"), Kind::Node},
        {QStringLiteral("nodejs"), Kind::Node},
        {QStringLiteral("bun"), Kind::Bun},
        {QStringLiteral("deno"), Kind::Deno},
        {QStringLiteral("php"), Kind::Php},
        {QStringLiteral("lua"), Kind::Lua},
        {QStringLiteral("luajit"), Kind::Lua},
        {QStringLiteral("r"), Kind::R},
        {QStringLiteral("rscript"), Kind::R},
        {QStringLiteral("osascript"), Kind::AppleScript},
        {QStringLiteral("pwsh"), Kind::PowerShell},
        {QStringLiteral("pwsh-preview"), Kind::PowerShell},
        {QStringLiteral("powershell"), Kind::WindowsPowerShell},
        {QStringLiteral("awk"), Kind::Awk},
        {QStringLiteral("gawk"), Kind::Awk},
        {QStringLiteral("mawk"), Kind::Awk},
        {QStringLiteral("nawk"), Kind::Awk},
        {QStringLiteral("original-awk"), Kind::Awk},
        {QStringLiteral("sed"), Kind::Sed},
        {QStringLiteral("gsed"), Kind::Sed},
    };
    const auto it = kinds.find(name);
    if (it == kinds.end())
        return std::nullopt;
    return it->second;
}

Syntax syntaxOf(Kind kind)
{
    Syntax s;
    switch (kind) {
    case Kind::PosixShell:
        s.flagShort = QStringLiteral("c");
        s.valueShort = QStringLiteral("oO");
        s.valueLong = {QStringLiteral("rcfile"), QStringLiteral("init-file")};
        s.plusOptions = true;
        break;
    case Kind::Fish:
        s.codeShort = QStringLiteral("cC");
        s.valueShort = QStringLiteral("dfo");
        s.codeLong = {QStringLiteral("command"), QStringLiteral("init-command")};
        s.valueLong = {QStringLiteral("debug"), QStringLiteral("debug-output"), QStringLiteral("features"),
                       QStringLiteral("profile"), QStringLiteral("profile-startup")};
        break;
    case Kind::OtherShell:
        s.codeShort = QStringLiteral("c");
        s.codeLong = {QStringLiteral("commands"), QStringLiteral("command")};
        break;
    case Kind::Python:
        s.codeShort = QStringLiteral("c");
        s.valueShort = QStringLiteral("WX");
        s.stopShort = QStringLiteral("m");
        s.valueLong = {QStringLiteral("check-hash-based-pycs")};
        break;
    case Kind::Perl:
        s.codeShort = QStringLiteral("eE");
        s.valueShort = QStringLiteral("IMm");
        break;
    case Kind::Ruby:
        s.codeShort = QStringLiteral("e");
        s.valueShort = QStringLiteral("CEIr");
        break;
    case Kind::Node:
        s.codeShort = QStringLiteral("ep");
        s.valueShort = QStringLiteral("rC");
        s.codeLong = {QStringLiteral("eval"), QStringLiteral("print")};
        s.valueLong = {QStringLiteral("require"),      QStringLiteral("import"),
                       QStringLiteral("loader"),       QStringLiteral("experimental-loader"),
                       QStringLiteral("input-type"),   QStringLiteral("conditions"),
                       QStringLiteral("title"),        QStringLiteral("env-file"),
                       QStringLiteral("inspect-port"), QStringLiteral("redirect-warnings")};
        break;
    case Kind::Bun:
        s.codeShort = QStringLiteral("ep");
        s.valueShort = QStringLiteral("r");
        s.codeLong = {QStringLiteral("eval"), QStringLiteral("print")};
        s.valueLong = {QStringLiteral("preload"), QStringLiteral("require"),   QStringLiteral("cwd"),
                       QStringLiteral("config"),  QStringLiteral("env-file"),  QStringLiteral("define"),
                       QStringLiteral("loader"),  QStringLiteral("conditions")};
        break;
    case Kind::Deno: // read from its "eval" subcommand on: "deno eval [OPTIONS] CODE [ARGS]"
        s.valueShort = QStringLiteral("cL");
        s.valueLong = {QStringLiteral("ext"),      QStringLiteral("import-map"), QStringLiteral("config"),
                       QStringLiteral("location"), QStringLiteral("seed"),       QStringLiteral("cert"),
                       QStringLiteral("log-level")};
        s.firstOperandIsCode = true;
        break;
    case Kind::Php:
        s.codeShort = QStringLiteral("rBRE");
        s.valueShort = QStringLiteral("cdzFf");
        break;
    case Kind::Lua:
        s.codeShort = QStringLiteral("e");
        s.valueShort = QStringLiteral("lj");
        break;
    case Kind::R:
        s.codeShort = QStringLiteral("e");
        break;
    case Kind::AppleScript:
        s.codeShort = QStringLiteral("e");
        s.valueShort = QStringLiteral("ls");
        break;
    case Kind::Awk:
        s.codeShort = QStringLiteral("e");
        s.valueShort = QStringLiteral("vFilW");
        s.programShort = QStringLiteral("fE");
        s.codeLong = {QStringLiteral("source")};
        s.valueLong = {QStringLiteral("assign"), QStringLiteral("field-separator"), QStringLiteral("include"),
                       QStringLiteral("load")};
        s.programLong = {QStringLiteral("file"), QStringLiteral("exec")};
        s.firstOperandIsCode = true;
        break;
    case Kind::Sed:
        s.codeShort = QStringLiteral("e");
        s.valueShort = QStringLiteral("l");
        s.programShort = QStringLiteral("f");
        s.codeLong = {QStringLiteral("expression")};
        s.valueLong = {QStringLiteral("line-length")};
        s.programLong = {QStringLiteral("file")};
        s.firstOperandIsCode = true;
        break;
    case Kind::PowerShell:
    case Kind::WindowsPowerShell:
        break; // read by powerShellCode()
    }
    return s;
}

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

Reading readOptions(const QStringList &argv, qsizetype program, const Syntax &syntax)
{
    Reading r;
    bool operandIsCode = syntax.firstOperandIsCode;
    QString flagOption;
    qsizetype i = program + 1;
    while (i < argv.size()) {
        const QString &e = argv[i];
        if (e == QLatin1String("--") || (syntax.plusOptions && e == QLatin1String("-"))) {
            ++i;
            break;
        }
        const bool option = e.size() > 1 && (e.startsWith(QLatin1Char('-')) ||
                                             (syntax.plusOptions && e.startsWith(QLatin1Char('+'))));
        if (!option)
            break;
        if (e.startsWith(QLatin1String("--"))) {
            const qsizetype eq = e.indexOf(QLatin1Char('='));
            const QString name = eq < 0 ? e.mid(2) : e.mid(2, eq - 2);
            if (hasPlaceholder(name)) {
                r.placeholderOption = i;
                return r;
            }
            const qsizetype next = eq < 0 ? i + 2 : i + 1;
            if (syntax.codeLong.contains(name)) {
                r.code.append({eq < 0 ? i + 1 : i, eq < 0 ? e : e.left(eq)});
                operandIsCode = false;
            } else if (syntax.programLong.contains(name)) {
                operandIsCode = false;
            } else if (!syntax.valueLong.contains(name)) {
                ++i;
                continue;
            }
            i = next;
            continue;
        }
        const qsizetype placeholderAt = placeholderPattern().match(e).capturedStart();
        qsizetype next = i + 1;
        for (qsizetype k = 1; k < e.size(); ++k) {
            if (k == placeholderAt) {
                r.placeholderOption = i;
                return r;
            }
            const QChar c = e[k];
            bool attached = k + 1 < e.size();
            if (syntax.codeShort.contains(c)) {
                // A rest made only of code options is no value: node -pe CODE.
                const QString rest = e.mid(k + 1);
                attached = std::any_of(rest.cbegin(), rest.cend(),
                                       [&syntax](QChar o) { return !syntax.codeShort.contains(o); });
                r.code.append({attached ? i : i + 1, attached ? e.left(k + 1) : e});
                operandIsCode = false;
            } else if (syntax.stopShort.contains(c)) {
                return r;
            } else if (syntax.programShort.contains(c)) {
                operandIsCode = false;
            } else if (!syntax.valueShort.contains(c)) {
                if (syntax.flagShort.contains(c)) {
                    operandIsCode = true;
                    flagOption = e;
                }
                continue;
            }
            if (!attached)
                next = i + 2;
            break;
        }
        i = next;
    }
    if (operandIsCode && i < argv.size())
        r.code.append({i, flagOption});
    return r;
}

// pwsh -Command runs all that follows as one script, -EncodedCommand a base64 one, and
// -CommandWithArgs the next element with the rest as $args; -File names a script file.
Reading powerShellCode(const QStringList &argv, qsizetype program, bool windows)
{
    Reading r;
    for (qsizetype i = program + 1; i < argv.size(); ++i) {
        const QString &e = argv[i];
        const bool parameter =
            e.size() > 1 && (e.startsWith(QLatin1Char('-')) || (windows && e.startsWith(QLatin1Char('/'))));
        if (!parameter) {
            if (windows && hasPlaceholder(e)) {
                r.code.append({i, QString()});
                return r;
            }
            continue;
        }
        const QString option = e.left(e.indexOf(QLatin1Char(':'))); // -Command:CODE
        const QString name = option.mid(option.startsWith(QLatin1String("--")) ? 2 : 1).toLower();
        if (hasPlaceholder(name)) {
            r.placeholderOption = i;
            return r;
        }
        const auto prefixOf = [&name](const char *full, qsizetype least) {
            return name.size() >= least && QLatin1String(full).startsWith(name);
        };
        if (name == QLatin1String("f") || prefixOf("file", 2))
            return r;
        if (name == QLatin1String("cwa") || prefixOf("commandwithargs", 8)) {
            r.code.append({i + 1, option});
            return r;
        }
        if (name == QLatin1String("c") || name == QLatin1String("e") || name == QLatin1String("ec") ||
            prefixOf("command", 3) || prefixOf("encodedcommand", 3)) {
            for (qsizetype j = i; j < argv.size(); ++j) {
                if (hasPlaceholder(argv[j])) {
                    r.code.append({j, option});
                    break;
                }
            }
            return r;
        }
    }
    return r;
}

QString displayName(const QString &element)
{
    return element.mid(
        std::max(element.lastIndexOf(QLatin1Char('/')), element.lastIndexOf(QLatin1Char('\\'))) + 1);
}

QString quoted(const QStringList &argv)
{
    QStringList parts;
    for (const QString &e : argv)
        parts.append(QString::fromStdString(nlohmann::json(e.toStdString()).dump()));
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// The placeholder names of one element, each once, in order.
QStringList distinctNames(const QString &element)
{
    QStringList names;
    auto it = placeholderPattern().globalMatch(element);
    while (it.hasNext()) {
        const QString name = it.next().captured(1);
        if (!names.contains(name))
            names.append(name);
    }
    return names;
}

// A shell script with each placeholder replaced by its positional parameter, quoted for where it
// stands: "$1" outside quotes, $1 inside double quotes, '"$1"' inside single quotes.
QString shellPositional(const QString &script, const QStringList &names, int first)
{
    const auto parameter = [&](const QString &name) {
        const int n = first + static_cast<int>(names.indexOf(name));
        return n < 10 ? QStringLiteral("$%1").arg(n) : QStringLiteral("${%1}").arg(n);
    };
    QString out;
    enum { Plain, Single, Double } state = Plain;
    qsizetype i = 0;
    while (i < script.size()) {
        const auto m = placeholderPattern().match(script, i, QRegularExpression::NormalMatch,
                                                  QRegularExpression::AnchorAtOffsetMatchOption);
        if (m.hasMatch()) {
            const QString p = parameter(m.captured(1));
            const qsizetype end = m.capturedEnd();
            if (state == Single && script[i - 1] == QLatin1Char('\'') && end < script.size() &&
                script[end] == QLatin1Char('\'')) {
                out.chop(1); // '{x}' becomes "$1"
                out += QLatin1Char('"') + p + QLatin1Char('"');
                state = Plain;
                i = end + 1;
                continue;
            }
            if (state == Plain)
                out += QLatin1Char('"') + p + QLatin1Char('"');
            else if (state == Double)
                out += p;
            else
                out += QStringLiteral("'\"%1\"'").arg(p);
            i = end;
            continue;
        }
        const QChar c = script[i];
        out += c;
        if (c == QLatin1Char('\\') && state != Single && i + 1 < script.size()) {
            out += script[i + 1];
            i += 2;
            continue;
        }
        if (c == QLatin1Char('\'') && state != Double)
            state = state == Single ? Plain : Single;
        else if (c == QLatin1Char('"') && state != Single)
            state = state == Double ? Plain : Double;
        ++i;
    }
    return out;
}

// Code with each placeholder replaced by an expression reading the argument; a placeholder that
// fills a whole string literal ('{x}' or "{x}") takes the literal's place.
QString withAccessors(const QString &code, const std::function<QString(const QString &name)> &accessor)
{
    QString out;
    qsizetype last = 0;
    auto it = placeholderPattern().globalMatch(code);
    while (it.hasNext()) {
        const auto m = it.next();
        qsizetype start = m.capturedStart();
        qsizetype end = m.capturedEnd();
        if (start > last && end < code.size() && code[start - 1] == code[end] &&
            (code[end] == QLatin1Char('\'') || code[end] == QLatin1Char('"'))) {
            --start;
            ++end;
        }
        out += code.mid(last, start - last);
        out += accessor(m.captured(1));
        last = end;
    }
    return out + code.mid(last);
}

QString codeMessage(const QStringList &argv, qsizetype program, Kind kind, const Code &code)
{
    const QString name = displayName(argv[program]);
    const QString where = code.option.isEmpty() ? QStringLiteral("the %1 program").arg(name)
                                                : QStringLiteral("the %1 %2 script").arg(name, code.option);
    const QString script = argv[code.element];
    const QStringList names = distinctNames(script);
    const int trailing = static_cast<int>(argv.size() - code.element - 1);
    QStringList form = argv.mid(0, code.element);
    QStringList appended;
    for (const QString &n : names)
        appended.append(QStringLiteral("{%1}").arg(n));

    struct Accessor final
    {
        const char *language;
        const char *source;
        const char *expression;
        int first;
    };
    std::optional<Accessor> accessor;
    switch (kind) {
    case Kind::PosixShell: {
        // A script that reads the elements after it keeps them as $0, $1...; the new ones follow.
        // Otherwise those elements belong to whatever ran the shell (find -exec ... ';'), and the
        // new ones go right after the script.
        static const QRegularExpression readsPositionals(QStringLiteral("\\$\\{?[0-9@*#]"));
        const bool after = trailing > 0 && script.contains(readsPositionals);
        form.append(shellPositional(script, names, after ? trailing : 1));
        if (after)
            form += argv.mid(code.element + 1) + appended;
        else
            form += QStringList{name} + appended + argv.mid(code.element + 1);
        return QStringLiteral("a placeholder inside %1 is shell code: pass it as a positional argument "
                              "instead: %2")
            .arg(where, quoted(form));
    }
    case Kind::Python:
        accessor = Accessor{"Python", "sys.argv", "sys.argv[%1]", trailing + 1};
        break;
    case Kind::Perl:
        accessor = Accessor{"Perl", "@ARGV", "$ARGV[%1]", trailing};
        break;
    case Kind::Ruby:
        accessor = Accessor{"Ruby", "ARGV", "ARGV[%1]", trailing};
        break;
    case Kind::Node:
        accessor = Accessor{"JavaScript", "process.argv", "process.argv[%1]", trailing + 1};
        break;
    case Kind::Deno:
        accessor = Accessor{"JavaScript", "Deno.args", "Deno.args[%1]", trailing};
        break;
    case Kind::Php:
        accessor = Accessor{"PHP", "$argv", "$argv[%1]", trailing + 1};
        break;
    case Kind::R:
        accessor = Accessor{"R", "commandArgs(trailingOnly = TRUE)", "commandArgs(trailingOnly = TRUE)[%1]",
                            trailing + 1};
        break;
    case Kind::Awk: {
        // awk -v NAME=VALUE: the value is data (escapes aside), read as the variable NAME.
        QStringList variables;
        for (const QString &n : names)
            variables += QStringList{QStringLiteral("-v"), QStringLiteral("%1={%1}").arg(n)};
        form.append(withAccessors(script, [](const QString &n) { return n; }));
        form += argv.mid(code.element + 1);
        form = form.mid(0, program + 1) + variables + form.mid(program + 1);
        return QStringLiteral("a placeholder inside %1 is awk code: pass it as a variable instead: %2")
            .arg(where, quoted(form));
    }
    case Kind::Lua:
        return QStringLiteral(
                   "a placeholder inside %1 is Lua code: pass it as an argument to a script file and "
                   "read it from arg instead: %2")
            .arg(where, quoted(QStringList{name, QStringLiteral("/path/to/script.lua")} + appended));
    case Kind::PowerShell:
    case Kind::WindowsPowerShell:
        return QStringLiteral(
                   "a placeholder inside %1 is PowerShell code: pass it as an argument to a script "
                   "file and read it from $args instead: %2")
            .arg(where,
                 quoted(QStringList{name, QStringLiteral("-File"), QStringLiteral("/path/to/script.ps1")} +
                        appended));
    case Kind::Fish:
        return QStringLiteral(
                   "a placeholder inside %1 is fish code: pass it as an argument after the script and "
                   "read it from $argv instead")
            .arg(where);
    case Kind::OtherShell:
        return QStringLiteral(
                   "a placeholder inside %1 is shell code: pass it as an argument after the script "
                   "instead")
            .arg(where);
    case Kind::Bun:
        return QStringLiteral(
                   "a placeholder inside %1 is JavaScript code: pass it as an argument after the script "
                   "and read it from process.argv instead")
            .arg(where);
    case Kind::AppleScript:
        return QStringLiteral("a placeholder inside %1 is AppleScript code: pass it as an argument after the "
                              "script and read it in \"on run argv\" instead")
            .arg(where);
    case Kind::Sed:
        return QStringLiteral(
                   "a placeholder inside %1 is sed code (its e and w commands run programs and write "
                   "files): keep the script fixed, or use a program that takes the value as an "
                   "argument")
            .arg(where);
    }
    QString rewritten = withAccessors(script, [&](const QString &n) {
        return QString::fromLatin1(accessor->expression)
            .arg(accessor->first + static_cast<int>(names.indexOf(n)));
    });
    static const QRegularExpression importsSys(QStringLiteral("\\bimport\\b[^;\\n]*\\bsys\\b"));
    if (kind == Kind::Python && !rewritten.contains(importsSys))
        rewritten.prepend(QStringLiteral("import sys; "));
    form.append(rewritten);
    form += argv.mid(code.element + 1);
    return QStringLiteral("a placeholder inside %1 is %2 code: pass it as an argument and read it from %3 "
                          "instead: %4")
        .arg(where, QLatin1String(accessor->language), QLatin1String(accessor->source),
             quoted(form + appended));
}

QString placeholderOptionMessage(const QString &option, const QString &program)
{
    return QStringLiteral("a placeholder inside the option \"%1\" of %2 lets the agent choose the option, "
                          "and one may run code: write the option literally")
        .arg(option, displayName(program));
}

// env [OPTION]... [NAME=VALUE]... [COMMAND [ARG]...]: -S splits a string into a command line, and a
// placeholder where an assignment or the program stands decides which is which, and so what runs.
std::optional<QString> envProblem(const QStringList &argv, qsizetype program)
{
    const QString env = displayName(argv[program]);
    const auto split = [&](qsizetype element, const QString &option) -> std::optional<QString> {
        if (element >= argv.size() || !hasPlaceholder(argv[element]))
            return std::nullopt;
        return QStringLiteral(
                   "a placeholder inside the %1 %2 string is split into a command line: pass it as "
                   "an element of its own after the string instead")
            .arg(env, option);
    };
    bool options = true;
    for (qsizetype i = program + 1; i < argv.size(); ++i) {
        const QString &e = argv[i];
        if (options && e == QLatin1String("--")) {
            options = false;
            continue;
        }
        if (options && e.size() > 1 && e.startsWith(QLatin1String("--"))) {
            const qsizetype eq = e.indexOf(QLatin1Char('='));
            const QString name = eq < 0 ? e.mid(2) : e.mid(2, eq - 2);
            if (hasPlaceholder(name))
                return placeholderOptionMessage(e, argv[program]);
            if (name == QLatin1String("split-string")) {
                if (auto p = split(eq < 0 ? i + 1 : i, e.left(eq)))
                    return p;
            }
            if (eq < 0 && (name == QLatin1String("split-string") || name == QLatin1String("unset") ||
                           name == QLatin1String("chdir")))
                ++i;
            continue;
        }
        if (options && e.size() > 1 && e.startsWith(QLatin1Char('-'))) {
            const qsizetype placeholderAt = placeholderPattern().match(e).capturedStart();
            for (qsizetype k = 1; k < e.size(); ++k) {
                if (k == placeholderAt)
                    return placeholderOptionMessage(e, argv[program]);
                const QChar c = e[k];
                const bool attached = k + 1 < e.size();
                if (c == QLatin1Char('S')) {
                    if (auto p = split(attached ? i : i + 1, e.left(k + 1)))
                        return p;
                } else if (c != QLatin1Char('u') && c != QLatin1Char('C') && c != QLatin1Char('P')) {
                    continue;
                }
                if (!attached)
                    ++i;
                break;
            }
            continue;
        }
        if (options && e == QLatin1String("-"))
            continue;
        options = false;
        const qsizetype eq = e.indexOf(QLatin1Char('='));
        if (eq >= 0 ? hasPlaceholder(e.left(eq)) : hasPlaceholder(e))
            return QStringLiteral(
                       "a placeholder among %1's assignments and program decides what runs (a value "
                       "with '=' becomes an assignment): write the program and the variable names "
                       "literally")
                .arg(env);
        if (eq < 0)
            return std::nullopt; // the program, read at its own place
    }
    return std::nullopt;
}

// Programs that join what follows into one shell command line: ssh runs the words after the host
// through the remote user's shell; watch runs its words through sh -c unless -x (--exec); su and
// runuser run -c's string (and --session-command's) through the target user's shell. A placeholder
// there is code, and no form passes it as an argument: the command must be written literally.
std::optional<QString> joinerProblem(const QStringList &argv, qsizetype at)
{
    const QString name = displayName(argv[at]);
    const auto anyAfter = [&](qsizetype from) {
        for (qsizetype i = from; i < argv.size(); ++i) {
            if (hasPlaceholder(argv[i]))
                return true;
        }
        return false;
    };
    if (name == QLatin1String("ssh")) {
        static const QString kTakesValue = QStringLiteral("BbcDEeFIiJLlmOopQRSWw");
        qsizetype i = at + 1;
        for (; i < argv.size(); ++i) {
            const QString &e = argv[i];
            if (e == QLatin1String("--")) {
                ++i;
                break;
            }
            if (!e.startsWith(QLatin1Char('-')) || e.size() < 2)
                break;
            for (qsizetype k = 1; k < e.size(); ++k) {
                if (kTakesValue.contains(e[k])) {
                    if (k + 1 == e.size())
                        ++i; // the value is the next element
                    break;
                }
            }
        }
        if (anyAfter(i + 1)) // i: the host
            return QStringLiteral("ssh joins the words after the host into one command line that the remote "
                                  "shell runs: a placeholder there is code on that host. Write the remote "
                                  "command literally (a script there that takes no values from here)");
        return std::nullopt;
    }
    if (name == QLatin1String("watch")) {
        for (qsizetype i = at + 1; i < argv.size() && argv[i].startsWith(QLatin1Char('-')); ++i) {
            if (argv[i] == QLatin1String("--exec") ||
                (!argv[i].startsWith(QLatin1String("--")) && argv[i].contains(QLatin1Char('x'))))
                return std::nullopt; // runs its words without a shell
        }
        if (anyAfter(at + 1))
            return QStringLiteral(
                "watch runs its words through sh -c: a placeholder there is shell code. Add "
                "-x (--exec) so that it runs them without a shell");
        return std::nullopt;
    }
    if (name == QLatin1String("su") || name == QLatin1String("runuser")) {
        for (qsizetype i = at + 1; i < argv.size(); ++i) {
            const QString &e = argv[i];
            const bool command = e == QLatin1String("-c") || e == QLatin1String("--command") ||
                                 e == QLatin1String("--session-command");
            if ((command && i + 1 < argv.size() && hasPlaceholder(argv[i + 1])) ||
                ((e.startsWith(QLatin1String("--command=")) ||
                  e.startsWith(QLatin1String("--session-command="))) &&
                 hasPlaceholder(e)))
                return QStringLiteral(
                           "%1 runs the -c command through the user's shell: a placeholder in it is "
                           "shell code. Write the command literally")
                    .arg(name);
        }
    }
    return std::nullopt;
}

// Every program in the template is read, not only argv[0]: env, sudo, timeout, xargs,
// find -exec and kubectl exec all run the shell that follows them.
std::optional<QString> scriptProblem(const QStringList &argv)
{
    // A program can only run as code what follows it.
    qsizetype lastPlaceholder = argv.size() - 1;
    while (lastPlaceholder >= 0 && !hasPlaceholder(argv[lastPlaceholder]))
        --lastPlaceholder;
    for (qsizetype at = 0; at < lastPlaceholder; ++at) {
        if (hasPlaceholder(argv[at]))
            continue;
        if (displayName(argv[at]) == QLatin1String("env")) {
            if (auto p = envProblem(argv, at))
                return p;
            continue;
        }
        if (auto p = joinerProblem(argv, at))
            return p;
        const auto kind = kindOf(argv[at]);
        if (!kind)
            continue;
        Reading reading;
        if (*kind == Kind::PowerShell || *kind == Kind::WindowsPowerShell) {
            reading = powerShellCode(argv, at, *kind == Kind::WindowsPowerShell);
        } else if (*kind == Kind::Deno) {
            qsizetype sub = at + 1;
            while (sub < argv.size() && argv[sub].startsWith(QLatin1Char('-')) && !hasPlaceholder(argv[sub]))
                ++sub;
            if (sub >= argv.size() || argv[sub] != QLatin1String("eval"))
                continue;
            reading = readOptions(argv, sub, syntaxOf(*kind));
            for (Code &code : reading.code) {
                if (code.option.isEmpty())
                    code.option = QStringLiteral("eval");
            }
        } else {
            reading = readOptions(argv, at, syntaxOf(*kind));
        }
        if (reading.placeholderOption >= 0)
            return placeholderOptionMessage(argv[reading.placeholderOption], argv[at]);
        for (const Code &code : std::as_const(reading.code)) {
            if (code.element < argv.size() && hasPlaceholder(argv[code.element]))
                return codeMessage(argv, at, *kind, code);
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<QString> problem(const QStringList &argvTemplate)
{
    return scriptProblem(argvTemplate);
}

} // namespace Countersign::ScriptPlaceholders
