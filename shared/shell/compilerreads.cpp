#include "projecttools.h"

#include "argtools.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::ProjectTools {

// What a compiler reads: its sources, the folders and files its options name (-I, -isystem,
// -include, ...), and what each source includes by a name Countersign can follow (a quoted name
// beside it, an absolute one): a source that includes a private key prints it with -E.
void compilerReads(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QStringList naming = ArgTools::words({"-I", "-isystem", "-iquote", "-idirafter", "-include",
                                                       "-imacros", "-iprefix", "--include-directory"});
    static const QRegularExpression include(
        QStringLiteral("^\\s*(?:#\\s*(?:include|include_next|import|embed)|\\.incbin|\\.include)\\s*([<\"]?)("
                       "[^>\"\\s]+)[>\"]?"),
        QRegularExpression::MultilineOption);
    QStringList pending; // files whose includes are read: the sources, then what they include
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (a.text.startsWith(QLatin1String("-Wp,")) || a.text.startsWith(QLatin1String("-Xpreprocessor")) ||
            a.text.startsWith(QLatin1String("-Wa,")) || a.text.startsWith(QLatin1String("-Xassembler"))) {
            c.unknown(QStringLiteral("%1 %2 hands options on to the preprocessor or the assembler")
                          .arg(program, a.text));
            continue;
        }
        const auto name = std::find_if(naming.cbegin(), naming.cend(),
                                       [&a](const QString &n) { return a.text.startsWith(n); });
        if (name != naming.cend()) {
            QString attached = a.text.mid(name->size());
            if (attached.startsWith(QLatin1Char('=')))
                attached.remove(0, 1);
            const Arg value =
                attached.isEmpty() ? args.value(++k) : Arg{attached, a.known, a.glob, a.variables};
            c.addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, value.text), value);
            if (name->startsWith(QLatin1String("-i")) && !name->startsWith(QLatin1String("-isystem")) &&
                !name->startsWith(QLatin1String("-iquote")) && !name->startsWith(QLatin1String("-idirafter")))
                pending.append(CommandCatalog::absolute(value, c.how().cwd));
            continue;
        }
        if (a.text.startsWith(QLatin1Char('-')))
            continue;
        c.addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, a.text), a);
        pending.append(CommandCatalog::absolute(a, c.how().cwd));
    }
    // Each file read, whatever its name (-x c reads any), and what it includes by a name that can be
    // followed (a quoted one beside it, an absolute one), to a bound: past it, not known.
    QStringList seen;
    while (!pending.isEmpty()) {
        const QString path = pending.takeFirst();
        const QFileInfo info(path);
        if (path.isEmpty() || seen.contains(path) || !info.isFile())
            continue;
        if (seen.size() >= 64) {
            c.unknown(QStringLiteral("%1 reads more included files than Countersign follows").arg(program));
            return;
        }
        seen.append(path);
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QString text = QString::fromUtf8(file.read(1024 * 1024));
        for (auto it = include.globalMatch(text); it.hasNext();) {
            const auto m = it.next();
            const QString included = m.captured(2).trimmed();
            const QString target = included.startsWith(QLatin1Char('/'))
                                       ? included
                                       : info.absolutePath() + QLatin1Char('/') + included;
            if (!included.startsWith(QLatin1Char('/')) &&
                (m.captured(1) == QLatin1String("<") || !QFileInfo::exists(target)))
                continue;
            c.add(Effect::Kind::Reads,
                  QStringLiteral("%1 reads %2, which %3 includes").arg(program, included, info.fileName()),
                  target);
            pending.append(target);
        }
    }
}

} // namespace Countersign::Shell::ProjectTools
