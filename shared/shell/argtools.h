#pragma once

#include "commandcatalog.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <initializer_list>

// Small helpers the program readers share: lists of words, operands and options as GNU tools
// read them.
namespace Countersign::Shell::ArgTools {

inline QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out.append(QLatin1String(w));
    return out;
}

// "-abc": a cluster of one-letter options.
inline bool isOptionCluster(const Arg &a)
{
    return a.known && a.text.size() > 1 && a.text.startsWith(QLatin1Char('-')) &&
           !a.text.startsWith(QLatin1String("--"));
}

// The operands (options and the values of valued ones skipped; everything after "--").
inline QList<Arg> operands(const QList<Arg> &args, const QStringList &valued = {})
{
    QList<Arg> out;
    bool only = false;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!only && a.known && a.text == QLatin1String("--")) {
            only = true;
            continue;
        }
        if (!only && CommandCatalog::isOption(a)) {
            if (valued.contains(a.text))
                ++k;
            continue;
        }
        out.append(a);
    }
    return out;
}

// The index of the first argument that is not an option (valued options' values skipped), or -1.
inline int subcommandIndex(const QList<Arg> &args, const QStringList &valued = {})
{
    for (qsizetype k = 1; k < args.size(); ++k) {
        if (CommandCatalog::isOption(args.at(k))) {
            if (valued.contains(args.at(k).text))
                ++k;
            continue;
        }
        return int(k);
    }
    return -1;
}

inline QStringList operandsAfter(const QList<Arg> &args, int from)
{
    QStringList out;
    for (qsizetype k = from; k < args.size(); ++k) {
        if (!CommandCatalog::isOption(args.at(k)))
            out.append(args.at(k).text);
    }
    return out;
}

// Whether an option is given: a letter in a cluster, or a long form (abbreviated as GNU allows).
inline bool hasOption(const QList<Arg> &args, QChar letter, const QStringList &longForms = {})
{
    for (const Arg &a : args.mid(1)) {
        if (a.text == QLatin1String("--"))
            break;
        if (a.text.startsWith(QLatin1String("--"))) {
            for (const QString &l : longForms) {
                if (l.startsWith(a.text.section(QLatin1Char('='), 0, 0)) && a.text.size() > 3)
                    return true; // long options may be abbreviated
            }
        } else if (a.text.startsWith(QLatin1Char('-')) && a.text.mid(1).contains(letter)) {
            return true;
        }
    }
    return false;
}

// Targets and scripts that reach past the project (make install, npm run publish).
inline bool publishing(const QString &target)
{
    static const QStringList targets = words({"install", "uninstall", "deploy", "publish", "release",
                                              "upload", "push", "dist-upload", "docker-push"});
    return targets.contains(target);
}

} // namespace Countersign::Shell::ArgTools
