#include "riskstyle.h"

#include <QCoreApplication>

namespace Countersign::RiskStyle {

QColor colour(Risk risk)
{
    switch (risk) {
    case Risk::Low:
        return QColor(0x2d, 0xa4, 0x4e);
    case Risk::Medium:
        return QColor(0xbf, 0x87, 0x00);
    case Risk::High:
        return QColor(0xe3, 0x62, 0x09);
    case Risk::Critical:
        return QColor(0xcf, 0x22, 0x2e);
    }
    return {};
}

QString words(Risk risk, bool irreversible)
{
    const char *level = "";
    switch (risk) {
    case Risk::Low:
        level = QT_TRANSLATE_NOOP("RiskStyle", "Low risk");
        break;
    case Risk::Medium:
        level = QT_TRANSLATE_NOOP("RiskStyle", "Medium risk");
        break;
    case Risk::High:
        level = QT_TRANSLATE_NOOP("RiskStyle", "High risk");
        break;
    case Risk::Critical:
        level = QT_TRANSLATE_NOOP("RiskStyle", "Critical risk");
        break;
    }
    QString text = QCoreApplication::translate("RiskStyle", level);
    if (irreversible)
        text += QCoreApplication::translate("RiskStyle", " · irreversible");
    return text;
}

} // namespace Countersign::RiskStyle
