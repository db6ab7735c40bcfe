#include "visibletext.h"

#include <QStringView>

#include <algorithm>

namespace Countersign {

QString visibleText(const QString &text)
{
    QString out;
    out.reserve(text.size());
    // By code point: the invisible tag characters (U+E0000 to U+E007F) lie beyond the BMP.
    for (qsizetype i = 0; i < text.size(); ++i) {
        char32_t c = text[i].unicode();
        qsizetype length = 1;
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i], text[i + 1]);
            length = 2;
        }
        const QChar::Category category = QChar::category(c);
        const bool hidden = (category == QChar::Other_Control && c != U'\n' && c != U'\t') ||
                            category == QChar::Other_Format || category == QChar::Other_Surrogate ||
                            c == QChar::LineSeparator || c == QChar::ParagraphSeparator;
        if (hidden)
            out += QStringLiteral("\u27e6U+%1\u27e7").arg(quint32(c), 4, 16, QLatin1Char('0')).toUpper();
        else
            out += QStringView(text).mid(i, length);
        i += length - 1;
    }
    return out;
}

QString laidOutText(const QString &visible)
{
    const qsizetype shown = std::min(visible.size(), kMaxLaidOut);
    QString out;
    out.reserve(shown + shown / kMaxRun + 48);
    qsizetype run = 0;
    for (qsizetype i = 0; i < shown; ++i) {
        const QChar c = visible[i];
        run = c.isSpace() ? 0 : run + 1;
        if (run > kMaxRun && !c.isLowSurrogate()) {
            // A non-joiner first: a font's ligature ("ff") would swallow the break otherwise.
            out += QChar(0x200C);
            out += QChar(0x200B);
            run = 1;
        }
        out += c;
    }
    if (visible.size() > shown)
        out += QStringLiteral(" … (%1 more characters)").arg(visible.size() - shown);
    return out;
}

QString tooltipText(const QString &visible)
{
    return visible.size() <= kMaxTooltip
               ? visible
               : visible.left(kMaxTooltip) +
                     QStringLiteral(" … (%1 more characters)").arg(visible.size() - kMaxTooltip);
}

} // namespace Countersign
