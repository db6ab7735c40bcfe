#pragma once

#include <QString>

namespace Countersign {

// Agent text as a human must read it: characters that are invisible or reorder what follows
// (bidirectional overrides and isolates, zero-width characters, controls other than line breaks and
// tabs) become a visible mark such as "⟦U+202E⟧", so "rm -rf /tmp/x" cannot hide a reversed "/" or
// a second line of words. Plain text: escape it before putting it in markup.
QString visibleText(const QString &text);

// Visible text as a label lays it out, so that no agent-chosen string moves the controls or freezes
// the window: at most kMaxLaidOut characters (then how many more there are), and a zero-width break
// opportunity (U+200C U+200B) inside any run of kMaxRun characters that has no space, so that a word-wrapped
// label never needs more width than that. The whole text (up to kMaxTooltip) belongs in the tooltip.
inline constexpr qsizetype kMaxLaidOut = 4000;
inline constexpr qsizetype kMaxRun = 40;
inline constexpr qsizetype kMaxTooltip = 16000;
QString laidOutText(const QString &visible);
QString tooltipText(const QString &visible);

} // namespace Countersign
