#include "themecolours.h"

#include <cmath>

namespace Countersign::ThemeColours {

namespace {

// One colour for light themes, one for dark ones.
QColor pick(const QPalette &palette, QRgb light, QRgb dark)
{
    return QColor::fromRgb(isDark(palette) ? dark : light);
}

double luminance(const QColor &colour)
{
    const auto linear = [](double c) {
        return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) +
           0.0722 * linear(colour.blueF());
}

} // namespace

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QColor errorText(const QPalette &palette)
{
    return pick(palette, 0xb42318, 0xff7b72);
}

QColor warningText(const QPalette &palette)
{
    return pick(palette, 0x805600, 0xe3b341);
}

QColor riskText(Risk risk, const QPalette &palette)
{
    switch (risk) {
    case Risk::Low:
        return pick(palette, 0x116329, 0x3fb950);
    case Risk::Medium:
        return pick(palette, 0x805600, 0xd29922);
    case Risk::High:
        return pick(palette, 0xa33c00, 0xf0883e);
    case Risk::Critical:
        break;
    }
    return errorText(palette);
}

QString textCss(const QColor &colour)
{
    return QStringLiteral("color: %1").arg(colour.name());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace Countersign::ThemeColours
