#include "denyruledialog.h"

#include "denyrule.h"
#include "dialogbuttons.h"
#include "themecolours.h"
#include "visibletext.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Countersign {

namespace {

// JSON as the human reads it: indented, every character that would hide or reorder text made
// visible (JSON escapes the control characters; bidirectional and zero-width ones it leaves).
QString shownJson(const nlohmann::json &value)
{
    return visibleText(
        QString::fromStdString(value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)));
}

QPlainTextEdit *jsonView(const QString &name, const QString &text, QWidget *parent)
{
    auto *view = new QPlainTextEdit(text, parent);
    view->setObjectName(name);
    view->setReadOnly(true);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    view->setTabChangesFocus(true);
    return view;
}

QLabel *plainLabel(const QString &name, const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setObjectName(name);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

DenyRuleDialog::DenyRuleDialog(const QString &tool, const nlohmann::json &arguments, const DenyRule &rule,
                               const QString &configPath, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("denyRuleDialog"));
    setWindowTitle(tr("Deny this from now on?"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(plainLabel(
        QStringLiteral("denyRuleIntro"),
        tr("This rule goes first in the \"rules\" of %1, so it is read before every other rule: each "
           "call it matches is denied at once, without a card, and its agent is told so. A deny only "
           "narrows what runs, so Countersign applies it as soon as it reads the file again, and "
           "records the change in the audit log. The rest of the file is kept as it is.")
            .arg(configPath),
        this));
    layout->addWidget(plainLabel(QStringLiteral("denyRuleCallLabel"),
                                 tr("The declined call: %1, with the arguments").arg(visibleText(tool)),
                                 this));
    layout->addWidget(jsonView(QStringLiteral("denyRuleCall"), shownJson(arguments), this), 1);
    layout->addWidget(plainLabel(QStringLiteral("denyRuleTextLabel"), tr("The rule it adds:"), this));
    layout->addWidget(jsonView(QStringLiteral("denyRuleText"), shownJson(rule.toJson()), this), 1);
    QLabel *notes = plainLabel(
        QStringLiteral("denyRuleNotes"),
        rule.notes().isEmpty()
            ? tr("It matches this call exactly: the same tool with the same arguments (as every rule, it "
                 "looks only at the arguments it names, so the call with another argument added matches "
                 "too).")
            : tr("It denies more than this call:") + QLatin1Char('\n') + QStringLiteral("  • ") +
                  rule.notes().join(QStringLiteral("\n  • ")),
        this);
    if (!rule.notes().isEmpty())
        notes->setStyleSheet(ThemeColours::textCss(ThemeColours::warningText(palette())));
    layout->addWidget(notes);

    DialogButtons::addConfirmRow(this, layout, tr("Add the deny rule"), "confirmDenyRule", "cancelDenyRule");
    resize(640, 520);
}

} // namespace Countersign
