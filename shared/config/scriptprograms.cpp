#include "scriptprograms.h"

#include "scriptplaceholders.h"

#include <algorithm>
#include <map>

namespace Countersign::ScriptPrograms {

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
            if (ScriptPlaceholders::has(name)) {
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
        const qsizetype placeholderAt = ScriptPlaceholders::pattern().match(e).capturedStart();
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
            if (windows && ScriptPlaceholders::has(e)) {
                r.code.append({i, QString()});
                return r;
            }
            continue;
        }
        const QString option = e.left(e.indexOf(QLatin1Char(':'))); // -Command:CODE
        const QString name = option.mid(option.startsWith(QLatin1String("--")) ? 2 : 1).toLower();
        if (ScriptPlaceholders::has(name)) {
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
                if (ScriptPlaceholders::has(argv[j])) {
                    r.code.append({j, option});
                    break;
                }
            }
            return r;
        }
    }
    return r;
}

} // namespace Countersign::ScriptPrograms
