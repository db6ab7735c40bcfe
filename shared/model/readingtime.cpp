#include "readingtime.h"

#include "plan.h"

#include <QChar>

#include <algorithm>
#include <cmath>

namespace Countersign {

namespace {

qint64 wordsIn(const QString &text)
{
    qint64 count = 0;
    bool inWord = false;
    for (const QChar c : text) {
        const bool space = c.isSpace();
        if (!space && !inWord)
            ++count;
        inWord = !space;
    }
    return count;
}

qint64 minimumMs(double cardMinimumSeconds)
{
    return std::max<qint64>(0, std::llround(cardMinimumSeconds * 1000.0));
}

} // namespace

qint64 ReadingTime::words(const Plan &plan)
{
    qint64 count = wordsIn(plan.title) + wordsIn(plan.prompt) + wordsIn(plan.summary) + wordsIn(plan.diff);
    for (const QString &target : plan.targets)
        count += wordsIn(target);
    return count;
}

qint64 ReadingTime::ms(const Plan &plan, double cardMinimumSeconds)
{
    const qint64 reading = std::llround(double(words(plan)) * 1000.0 / kWordsPerSecond);
    return minimumMs(cardMinimumSeconds) + std::min(reading, kCapMs);
}

qint64 ReadingTime::longestMs(double cardMinimumSeconds)
{
    return minimumMs(cardMinimumSeconds) + kCapMs;
}

} // namespace Countersign
