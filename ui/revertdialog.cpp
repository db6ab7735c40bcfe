#include "revertdialog.h"

#include "undo.h"
#include "visibletext.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Countersign {

RevertDialog::RevertDialog(const UndoPreview &preview, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("revertDialog"));
    setAttribute(Qt::WA_DeleteOnClose);
    const bool turn = preview.nonces.size() > 1;
    setWindowTitle(turn ? tr("Undo the agent's turn") : tr("Revert the agent's change"));
    const int files = int(preview.files.size());
    auto *question = new QLabel(
        turn ? tr("Put back what %n file(s) held before the turn's %1 calls? This applies the diff below; "
                  "what the files hold now is kept first.",
                  nullptr, files)
                   .arg(preview.nonces.size())
             : tr("Put back what %n file(s) held before the agent's change? This applies the diff below.",
                  nullptr, files),
        this);
    question->setObjectName(QStringLiteral("revertQuestion"));
    question->setWordWrap(true);
    question->setTextFormat(Qt::PlainText);
    auto *diff = new QPlainTextEdit(visibleText(preview.diff), this);
    diff->setObjectName(QStringLiteral("revertDiff"));
    diff->setReadOnly(true);
    diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *revert =
        buttons->addButton(turn ? tr("Undo the turn") : tr("Revert"), QDialogButtonBox::AcceptRole);
    revert->setObjectName(QStringLiteral("revertConfirm"));
    revert->setAutoDefault(false);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(question);
    layout->addWidget(diff, 1);
    layout->addWidget(buttons);
    resize(720, 420);
}

} // namespace Countersign
