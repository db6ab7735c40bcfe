#pragma once

#include "plan.h"

#include <QColor>
#include <QString>

namespace Countersign::RiskStyle {

// The colour and the words a risk level is shown with; colour is never the only signal.
QColor colour(Risk risk);
QString words(Risk risk, bool irreversible);

} // namespace Countersign::RiskStyle
