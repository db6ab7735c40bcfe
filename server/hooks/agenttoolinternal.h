#pragma once

// What agenttool.cpp and agenttoolplan.cpp share, and nothing outside them reads.
#include "filepath.h"

#include <QChar>
#include <QDir>
#include <QString>

namespace Countersign::AgentToolInternal {

// The most files inside the roots a shell plan records (with their hashes) from its command line.
constexpr int kMaxNamedFiles = 32;

// A path the agent gave, absolute: relative ones are read against the call's working folder.
inline QString absoluteIn(const QString &path, const QString &cwd)
{
    if (path.isEmpty())
        return {};
    return QDir::cleanPath(FilePath::isAbsolute(path) ? path : cwd + QLatin1Char('/') + path);
}

// A line of a card: breaks as spaces, cut with an ellipsis past max characters.
inline QString shortened(QString text, int max = 80)
{
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text.size() > max ? text.left(max - 1) + QChar(0x2026) : text;
}

} // namespace Countersign::AgentToolInternal
