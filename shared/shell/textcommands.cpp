#include "textcommands.h"

#include "argtools.h"
#include "codestrings.h"

#include <QRegularExpression>

namespace Countersign::Shell::TextCommands {

using namespace ArgTools;

namespace {

// sed: -i edits its files; the script's w, W, r, R and e commands (and s///w, s///e) write, read or
// run programs. Options are read as GNU sed reads them (-n, -E, -s, -z, -u clustered; -e and -f
// with their value attached or next; -i with an attached suffix; long ones abbreviated). A script
// is scanned with its regular expressions and replacements taken out: any w, W, r, R, e or F left
// (or an s command's w or e flag) makes it unknown.
bool sedScriptRisky(const QString &script)
{
    QString rest;
    qsizetype i = 0;
    const qsizetype n = script.size();
    const auto skipDelimited = [&](QChar delim, int parts) {
        for (int p = 0; p < parts && i < n; ++p) {
            while (i < n && script.at(i) != delim) {
                if (script.at(i) == QLatin1Char('\\'))
                    ++i;
                else if (script.at(i) == QLatin1Char('\n') && delim != QLatin1Char('\n'))
                    return false;
                ++i;
            }
            if (i >= n)
                return false;
            ++i; // the delimiter
        }
        return true;
    };
    while (i < n) {
        const QChar ch = script.at(i);
        if (ch == QLatin1Char('/')) { // an address /re/
            ++i;
            if (!skipDelimited(QLatin1Char('/'), 1))
                return true;
            continue;
        }
        if (ch == QLatin1Char('\\') && i + 1 < n) { // an address \cREc
            const QChar d = script.at(i + 1);
            i += 2;
            if (!skipDelimited(d, 1))
                return true;
            continue;
        }
        if (ch == QLatin1Char('s') || ch == QLatin1Char('y')) {
            if (i + 1 >= n)
                return true;
            const QChar d = script.at(i + 1);
            if (d == QLatin1Char('\n') || d == QLatin1Char('\\'))
                return true;
            i += 2;
            if (!skipDelimited(d, 2))
                return true;
            if (ch == QLatin1Char('s')) {
                while (i < n && (script.at(i).isLetterOrNumber())) {
                    if (script.at(i) == QLatin1Char('w') || script.at(i) == QLatin1Char('e') ||
                        script.at(i) == QLatin1Char('W'))
                        return true;
                    ++i;
                }
            }
            continue;
        }
        if (ch == QLatin1Char('a') || ch == QLatin1Char('i') || ch == QLatin1Char('c')) {
            // Text to the end of the line: taken as it is (it holds no command).
            while (i < n && script.at(i) != QLatin1Char('\n'))
                ++i;
            continue;
        }
        if (ch == QLatin1Char(':') || ch == QLatin1Char('b') || ch == QLatin1Char('t') ||
            ch == QLatin1Char('T')) {
            // A label: to the end of the line or the next ';'.
            ++i;
            while (i < n && script.at(i) != QLatin1Char('\n') && script.at(i) != QLatin1Char(';'))
                ++i;
            continue;
        }
        rest += ch;
        ++i;
    }
    static const QRegularExpression risky(QStringLiteral("[wWrReF]"));
    return risky.match(rest).hasMatch();
}

void sed(CommandCatalog &c, const QList<Arg> &args)
{
    bool inPlace = false;
    bool scriptGiven = false;
    QStringList scripts;
    QList<Arg> files;
    const auto unknownScript = [&c](const Arg &a) {
        if (!a.known) {
            c.unknown(QStringLiteral("a sed script that expands"));
            return true;
        }
        return false;
    };
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!CommandCatalog::isOption(a)) {
            if (!scriptGiven) {
                scriptGiven = true;
                if (unknownScript(a))
                    return;
                scripts.append(a.text);
            } else {
                files.append(a);
            }
            continue;
        }
        if (a.text.startsWith(QLatin1String("--"))) {
            const QString name = a.text.section(QLatin1Char('='), 0, 0);
            const auto is = [&name](const char *full) {
                return name.size() >= 3 && QLatin1String(full).startsWith(name);
            };
            if (is("--expression")) {
                scriptGiven = true;
                const Arg value = a.text.contains(QLatin1Char('='))
                                      ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}}
                                      : args.value(++k);
                if (unknownScript(value))
                    return;
                scripts.append(value.text);
            } else if (is("--in-place")) {
                inPlace = true;
                if (a.text.section(QLatin1Char('='), 1).contains(QLatin1Char('/')) ||
                    a.text.section(QLatin1Char('='), 1).contains(QLatin1Char('*'))) {
                    c.unknown(QStringLiteral("sed --in-place writes its backup elsewhere"));
                    return;
                }
            } else if (is("--quiet") || is("--silent") || is("--regexp-extended") || is("--separate") ||
                       is("--null-data") || is("--unbuffered") || is("--posix") || is("--debug") ||
                       is("--sandbox") || is("--follow-symlinks") || is("--line-length")) {
                continue;
            } else {
                c.unknown(QStringLiteral("sed %1 is not an option Countersign knows").arg(a.text));
                return;
            }
            continue;
        }
        for (qsizetype i = 1; i < a.text.size(); ++i) {
            const QChar l = a.text.at(i);
            if (l == QLatin1Char('i')) { // -i[SUFFIX]: the rest of the cluster is the suffix
                inPlace = true;
                if (a.text.mid(i + 1).contains(QLatin1Char('/')) ||
                    a.text.mid(i + 1).contains(QLatin1Char('*'))) {
                    c.unknown(QStringLiteral("sed -i%1 writes its backup elsewhere").arg(a.text.mid(i + 1)));
                    return;
                }
                break;
            }
            if (l == QLatin1Char('e')) {
                scriptGiven = true;
                const Arg value =
                    i + 1 < a.text.size() ? Arg{a.text.mid(i + 1), a.known, false, {}} : args.value(++k);
                if (unknownScript(value))
                    return;
                scripts.append(value.text);
                break;
            }
            if (l == QLatin1Char('f')) {
                c.unknown(QStringLiteral("sed -f runs a script from a file"));
                return;
            }
            if (l == QLatin1Char('l')) { // -l N
                if (i + 1 == a.text.size())
                    ++k;
                break;
            }
            if (!QStringLiteral("nEsrzu").contains(l)) {
                c.unknown(QStringLiteral("sed -%1 is not an option Countersign knows").arg(l));
                return;
            }
        }
    }
    for (const QString &script : scripts) {
        if (sedScriptRisky(script)) {
            c.unknown(QStringLiteral("the sed script writes a file, reads one or runs a program (w, r, e)"));
            return;
        }
    }
    for (const Arg &f : files) {
        if (inPlace)
            c.addReplace(QStringLiteral("sed edits %1").arg(f.text), f);
        else
            c.addPath(Effect::Kind::Reads, QStringLiteral("sed reads %1").arg(f.text), f);
    }
    if (files.isEmpty())
        c.add(Effect::Kind::Reads, QStringLiteral("sed edits its input"));
}

// awk: system(), pipes, getline from a command and print > file write or run programs.
void awk(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    bool scriptSeen = false;
    QList<Arg> files;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (a.text == QLatin1String("-v") || a.text == QLatin1String("-F")) {
            ++k;
            continue;
        }
        if (CommandCatalog::isOption(a)) {
            // -F: and -vname=value only; -f, --source, -e, --exec, -l, -E and the rest read or run more.
            if (a.text.startsWith(QLatin1String("-F")) || a.text.startsWith(QLatin1String("-v")))
                continue;
            c.unknown(QStringLiteral("%1 %2 reads or runs more than its program").arg(program, a.text));
            return;
        }
        if (!scriptSeen) {
            scriptSeen = true;
            // (FILENAME only names the file being read.)
            static const QRegularExpression danger(QStringLiteral(
                "system|print[^;}]*[>|]|getline|ENVIRON|PROCINFO|@|fflush|ARGV|ARGC|close|\\|&"));
            if (!a.known) {
                c.unknown(QStringLiteral("the %1 program is only known when the line runs").arg(program));
                return;
            }
            if (const QRegularExpressionMatch m = danger.match(a.text); m.hasMatch()) {
                // The card quotes the statement that holds it.
                static const QRegularExpression end(QStringLiteral("[;{}\n]"));
                const qsizetype from = a.text.left(m.capturedStart()).lastIndexOf(end) + 1;
                qsizetype to = a.text.indexOf(end, m.capturedEnd());
                const QString statement =
                    CodeStrings::quoted(a.text.mid(from, (to < 0 ? a.text.size() : to) - from).trimmed());
                c.unknown(QStringLiteral("the %1 program's %2 writes files, runs commands or reads the "
                                         "environment")
                              .arg(program, statement));
                return;
            }
            continue;
        }
        // NAME=VALUE is an assignment only where NAME is an awk identifier: ./k=/../../.ssh/id_rsa is
        // a file, read where it leads. An assignment's value is not read, unless it is not known.
        static const QRegularExpression assignment(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*="));
        if (!a.known || !assignment.match(a.text).hasMatch())
            files.append(a);
    }
    for (const Arg &f : files)
        c.addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, f.text), f);
    if (files.isEmpty())
        c.add(Effect::Kind::Reads, QStringLiteral("%1 reads its input").arg(program));
}

} // namespace

bool read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    if (program == QLatin1String("sed") || program == QLatin1String("gsed")) {
        sed(c, args);
        return true;
    }
    if (program == QLatin1String("awk") || program == QLatin1String("gawk") ||
        program == QLatin1String("mawk") || program == QLatin1String("nawk")) {
        awk(c, program, args);
        return true;
    }
    return false;
}

} // namespace Countersign::Shell::TextCommands
