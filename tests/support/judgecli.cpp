// countersign-test-judge: the standard-mode judgement of command lines, for attack reviews and
// corpus work by hand. Reads one line per argument (or, with -, NUL-separated lines on stdin),
// judged in CWD with roots ROOT and home HOME; prints one JSON object per line (with what a
// destructive one would lose, as its card says).
//   countersign-test-judge ROOT HOME CWD [--strict] LINE... | -
#include "blastradius.h"
#include "commandjudge.h"
#include "workspace.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QFile>

#include <cstdio>

using namespace Countersign;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    if (args.size() < 4) {
        std::fputs("usage: countersign-test-judge ROOT HOME CWD [--strict] LINE... | -\n", stderr);
        return 2;
    }
    const Workspace ws({args.at(0)});
    const QString home = args.at(1), cwd = args.at(2);
    args = args.mid(3);
    CommandJudge::Mode mode = CommandJudge::Mode::Standard;
    if (args.value(0) == QLatin1String("--strict")) {
        mode = CommandJudge::Mode::Strict;
        args.removeFirst();
    }
    if (args == QStringList{QStringLiteral("-")}) {
        QFile in;
        if (!in.open(stdin, QIODevice::ReadOnly))
            return 2;
        args.clear();
        for (const QByteArray &line : in.readAll().split('\0')) {
            if (!line.isEmpty())
                args.append(QString::fromUtf8(line));
        }
    }
    const CommandJudge judge(&ws, mode, home);
    for (const QString &line : args) {
        const CommandJudge::Judgement judged = judge.line(line, cwd);
        nlohmann::json out = judged.toJson();
        out["line"] = line.toStdString();
        if (judged.destructive || !judged.targets.isEmpty()) { // what the card would say would be lost
            const BlastRadius radius =
                BlastRadius::of(Shell::CommandEffects::ofLine(line, {cwd, home}), home, judged.targets);
            out["lost"] = radius.sentences.join(QLatin1Char(' ')).toStdString();
            if (!radius.diff.isEmpty())
                out["diff"] = radius.diff.toStdString();
        }
        std::puts(out.dump().c_str());
    }
    return 0;
}
