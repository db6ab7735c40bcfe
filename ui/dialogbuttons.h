#pragma once

#include <QBoxLayout>
#include <QDialog>
#include <QPushButton>

namespace Countersign::DialogButtons {

// A dialog's Cancel and confirm buttons, right-aligned, at the end of its layout. Neither is a
// default button: Enter typed elsewhere in the dialog accepts nothing; only a click on confirm
// (or its shortcut) accepts, and Cancel or Escape rejects.
inline QPushButton *addConfirmRow(QDialog *dialog, QBoxLayout *layout, const QString &confirmText,
                                  const char *confirmName, const char *cancelName)
{
    auto *confirm = new QPushButton(confirmText, dialog);
    confirm->setObjectName(QLatin1String(confirmName));
    confirm->setAutoDefault(false);
    auto *cancel = new QPushButton(QDialog::tr("Cancel"), dialog);
    cancel->setObjectName(QLatin1String(cancelName));
    cancel->setAutoDefault(false);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(cancel);
    buttons->addWidget(confirm);
    layout->addLayout(buttons);
    QObject::connect(confirm, &QPushButton::clicked, dialog, &QDialog::accept);
    QObject::connect(cancel, &QPushButton::clicked, dialog, &QDialog::reject);
    return confirm;
}

} // namespace Countersign::DialogButtons
