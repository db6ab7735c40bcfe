#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace Countersign {

// A label for text an agent wrote (most of what a card and a grant show): plain text, never
// rendered as markup (AutoText would render anything that looks like HTML: a 1px span hid half of
// a target), selectable, and when wrapped, taking the width it is given, so that agent text never
// sets the window's.
QLabel *agentLabel(QWidget *parent, const char *objectName, bool wrap = true);
// Agent text on such a label: visible (visibleText), laid out bounded (laidOutText), whole in the
// tooltip.
void showAgentText(QLabel *label, const QString &text);

} // namespace Countersign
