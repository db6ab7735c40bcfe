#pragma once

#include <QDialog>

namespace Countersign {

struct UndoPreview;

// Asks before a revert, showing exactly what it writes: the diff from what the files hold now to
// what they held before the agent's change (or the whole turn's changes, taken back as one), as
// plain text with what a terminal would act on shown as marks. Cancel is the default; Revert
// (objectName "revertConfirm") accepts. objectName "revertDialog", its diff "revertDiff".
class RevertDialog final : public QDialog
{
    Q_OBJECT
public:
    RevertDialog(const UndoPreview &preview, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(RevertDialog)
};

} // namespace Countersign
