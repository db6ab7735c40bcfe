#pragma once

#include <QString>

namespace Countersign {

// Agent text as a human must read it: characters that are invisible or reorder what follows
// (bidirectional overrides and isolates, zero-width characters, controls other than line breaks and
// tabs) become a visible mark such as "⟦U+202E⟧", so "rm -rf /tmp/x" cannot hide a reversed "/" or
// a second line of words. Plain text: escape it before putting it in markup.
QString visibleText(const QString &text);

} // namespace Countersign
