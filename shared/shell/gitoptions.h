#pragma once

// How git reads its options (abbreviated long options, clusters of letters, "--"), for the reader
// of git's subcommands (gitcommand.cpp). Private to shared/shell.

#include "commandcatalog.h"

#include <QStringList>

namespace Countersign::Shell::GitCommand::Detail {

inline QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out.append(QLatin1String(w));
    return out;
}

// The long option a (possibly abbreviated) spelling stands for among known, as git resolves it:
// exact, else the one option it is a prefix of; empty when none or ambiguous.
inline QString longOption(const QString &spelled, const QStringList &known)
{
    const QString name = spelled.section(QLatin1Char('='), 0, 0);
    if (known.contains(name))
        return name;
    QString found;
    for (const QString &k : known) {
        if (k.startsWith(name) && name.size() > 2) {
            if (!found.isEmpty())
                return {};
            found = k;
        }
    }
    return found;
}

struct Parsed final
{
    QStringList shortFlags; // each letter of each -abc cluster
    QStringList longs;      // resolved long options
    QList<Arg> operands;
    bool unknownOption = false;
    QString unknownText;
    bool dashDash = false;
    qsizetype dashDashAt = -1; // index in operands where "--" came
};

inline Parsed parse(const QList<Arg> &args, const QStringList &longs, const QStringList &valuedShort = {},
                    const QStringList &valuedLong = {})
{
    Parsed p;
    for (qsizetype k = 0; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (p.dashDash || !a.known || !a.text.startsWith(QLatin1Char('-')) || a.text == QLatin1String("-")) {
            p.operands.append(a);
            continue;
        }
        if (a.text == QLatin1String("--")) {
            p.dashDash = true;
            p.dashDashAt = p.operands.size();
            continue;
        }
        if (a.text.startsWith(QLatin1String("--"))) {
            QString resolved = longOption(a.text, longs + valuedLong);
            if (resolved.isEmpty() && a.text.startsWith(QLatin1String("--no-")))
                resolved = longOption(QStringLiteral("--") + a.text.mid(5), longs + valuedLong).isEmpty()
                               ? QString()
                               : a.text;
            if (resolved.isEmpty()) {
                p.unknownOption = true;
                p.unknownText = a.text;
                continue;
            }
            p.longs.append(resolved);
            if (valuedLong.contains(resolved) && !a.text.contains(QLatin1Char('=')))
                ++k;
            continue;
        }
        for (qsizetype i = 1; i < a.text.size(); ++i) {
            const QString letter = a.text.at(i);
            p.shortFlags.append(letter);
            if (valuedShort.contains(letter)) {
                if (i == a.text.size() - 1)
                    ++k;
                break;
            }
        }
    }
    return p;
}

inline bool has(const Parsed &p, const char *shortFlag, const char *longFlag = nullptr)
{
    return (shortFlag && p.shortFlags.contains(QLatin1String(shortFlag))) ||
           (longFlag && p.longs.contains(QLatin1String(longFlag)));
}

} // namespace Countersign::Shell::GitCommand::Detail
