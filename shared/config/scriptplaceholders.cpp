#include "scriptplaceholders.h"

#include "scriptprograms.h"

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

using namespace ScriptPrograms;

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
