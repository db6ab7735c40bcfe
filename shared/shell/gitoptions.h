#pragma once

// How git reads its options (abbreviated long options, clusters of letters, "--"), and the readers
// of git's subcommands (gitsubcommands.cpp) that gitcommand.cpp picks from. Private to shared/shell.

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

// One git command line being read: where git runs, its subcommand and what follows it, and the
// effects each form records there.
struct GitCall final
{
    CommandCatalog &c;
    QString sub;
    QList<Arg> rest;
    QString cwd;
    bool cwdKnown = false;

    void reads(const QString &what) const { c.add(Effect::Kind::Reads, what, cwd, cwdKnown); }
    void writes(const QString &what) const { c.add(Effect::Kind::Writes, what, cwd, cwdKnown); }
    void discards(const QString &what) const { c.add(Effect::Kind::Deletes, what, cwd, cwdKnown); }
    void rewrites(const QString &what) const { c.add(Effect::Kind::History, what, cwd, cwdKnown); }
    void network(const QString &what) const { c.add(Effect::Kind::Network, what); }
};

// The subcommands that only read the repository, and those that change its own records.
const QStringList &readOnlyCommands();
const QStringList &historyCommands();

// One reader for each subcommand (or kind of subcommand), gitsubcommands.cpp.
void gitReadOnly(GitCall &g);
void gitPatch(GitCall &g);
void gitCommitting(GitCall &g);
void gitCheckout(GitCall &g);
void gitRestore(GitCall &g);
void gitReset(GitCall &g);
void gitClean(GitCall &g);
void gitStash(GitCall &g);
void gitBranch(GitCall &g);
void gitRm(GitCall &g);
void gitRebase(GitCall &g);
void gitRemoteTalk(GitCall &g);
void gitRemote(GitCall &g);
void gitConfig(GitCall &g);
void gitReflog(GitCall &g);
void gitWorktree(GitCall &g);
void gitHistory(GitCall &g);

} // namespace Countersign::Shell::GitCommand::Detail
