#pragma once

#include <QtGlobal>

namespace Countersign {

struct Plan;

// How long a card takes to read: the console's minimum time on screen (cardMinimumSeconds), plus
// its words (the plan's title, prompt, summary, targets and diff: what the card shows) at
// kWordsPerSecond, the reading part capped at kCapMs. An approval made sooner, counted from the
// card's creation, cannot have followed a reading of the card.
//
// The figure: 4 words a second is 240 words a minute, the mean silent reading rate of adults for
// non-fiction (Brysbaert 2019, 238 wpm); a card is read for a decision, and a diff reads slower than
// prose, so an approval faster than this was faster than an attentive reading. The cap: past two
// minutes of words (480) a reviewer reads a long diff selectively, and the warning is meant for
// approvals that cannot have been a reading at all, not for every long diff.
class ReadingTime final
{
public:
    static constexpr double kWordsPerSecond = 4.0;
    static constexpr qint64 kCapMs = 120'000;

    // The words the card shows: runs of characters between white space.
    static qint64 words(const Plan &plan);
    // The reading time in ms for a card of this plan under this minimum (negative taken as 0).
    static qint64 ms(const Plan &plan, double cardMinimumSeconds);
    // The longest reading time any card can have under this minimum.
    static qint64 longestMs(double cardMinimumSeconds);
};

} // namespace Countersign
