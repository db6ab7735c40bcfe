#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace Countersign {

// Colours a unified diff: added lines, removed lines, hunk headers and file headers. The colours
// follow the palette (light or dark) the document's widget uses.
class DiffHighlighter final : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    DiffHighlighter(QTextDocument *document, bool darkPalette);

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_added;
    QTextCharFormat m_removed;
    QTextCharFormat m_hunk;
    QTextCharFormat m_file;
};

} // namespace Countersign
