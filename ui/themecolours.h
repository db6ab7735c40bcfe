#pragma once

#include "plan.h"

#include <QColor>
#include <QPalette>
#include <QString>

namespace Countersign::ThemeColours {

// The colours of text that carries a meaning (an error, a warning, a risk level), chosen for the
// palette in use so that each stays readable on a light and on a dark theme: a contrast of at
// least 4.5:1 (WCAG AA) against the palette's window and base colours of both kinds of theme.

// Light text on a dark window.
bool isDark(const QPalette &palette);
QColor errorText(const QPalette &palette);
QColor warningText(const QPalette &palette);
QColor riskText(Risk risk, const QPalette &palette);
// A style sheet declaration ("color: #rrggbb") for a label's text.
QString textCss(const QColor &colour);
// The WCAG contrast ratio of two colours, 1 to 21.
double contrast(const QColor &a, const QColor &b);

} // namespace Countersign::ThemeColours
