#include "diffhighlighter.h"

namespace Countersign {

DiffHighlighter::DiffHighlighter(QTextDocument *document, bool darkPalette) : QSyntaxHighlighter(document)
{
    m_added.setForeground(darkPalette ? QColor(0x7e, 0xe7, 0x87) : QColor(0x11, 0x63, 0x29));
    m_added.setBackground(darkPalette ? QColor(0x1a, 0x3d, 0x24) : QColor(0xe6, 0xff, 0xec));
    m_removed.setForeground(darkPalette ? QColor(0xff, 0xa1, 0x98) : QColor(0x82, 0x07, 0x1e));
    m_removed.setBackground(darkPalette ? QColor(0x4a, 0x1d, 0x1d) : QColor(0xff, 0xeb, 0xe9));
    m_hunk.setForeground(darkPalette ? QColor(0x79, 0xc0, 0xff) : QColor(0x05, 0x50, 0xae));
    m_file.setFontWeight(QFont::Bold);
}

void DiffHighlighter::highlightBlock(const QString &text)
{
    if (text.startsWith(QLatin1String("+++")) || text.startsWith(QLatin1String("---")) ||
        text.startsWith(QLatin1String("diff ")))
        setFormat(0, int(text.size()), m_file);
    else if (text.startsWith(QLatin1String("@@")))
        setFormat(0, int(text.size()), m_hunk);
    else if (text.startsWith(QLatin1Char('+')))
        setFormat(0, int(text.size()), m_added);
    else if (text.startsWith(QLatin1Char('-')))
        setFormat(0, int(text.size()), m_removed);
}

} // namespace Countersign
