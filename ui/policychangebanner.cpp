#include "policychangebanner.h"

#include "policychange.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Countersign {

namespace {

QString bulleted(const QList<PolicyChangeItem> &items)
{
    QStringList lines;
    for (const PolicyChangeItem &item : items)
        lines.append(QStringLiteral("  • ") + item.text());
    return lines.join(QLatin1Char('\n'));
}

} // namespace

PolicyChangeBanner::PolicyChangeBanner(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("policyChangeBanner"));
    setFrameShape(QFrame::StyledPanel);
    // A light banner on every theme, so its labels' text is dark on every theme too.
    setStyleSheet(QStringLiteral("#policyChangeBanner { background: #ffebe9; border: 1px solid #cf222e; "
                                 "border-radius: 4px } #policyChangeBanner > QLabel { color: #1f2328 }"));
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("policyChangeTitle"));
    m_title->setTextFormat(Qt::PlainText); // names the file, which the agent may have chosen
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_changes = new QPlainTextEdit(this);
    m_changes->setObjectName(QStringLiteral("policyChangeText"));
    m_changes->setReadOnly(true);
    m_changes->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_changes->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_changes->setMaximumHeight(160);
    // Neither button is a default one: Enter typed elsewhere must not accept a wider policy.
    m_accept = new QPushButton(tr("Accept"), this);
    m_accept->setObjectName(QStringLiteral("acceptPolicyChange"));
    m_accept->setAutoDefault(false);
    m_keep = new QPushButton(tr("Keep current"), this);
    m_keep->setObjectName(QStringLiteral("keepCurrentPolicy"));
    m_keep->setAutoDefault(false);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_keep);
    buttons->addWidget(m_accept);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_changes);
    layout->addLayout(buttons);
    // The file can change again while the human reads: Accept waits a moment after every change of
    // the text, so a click meant for one change never accepts another, unread.
    m_settle = new QTimer(this);
    m_settle->setSingleShot(true);
    m_settle->setInterval(kSettleMs);
    connect(m_settle, &QTimer::timeout, m_accept, [this] { m_accept->setEnabled(true); });
    connect(m_accept, &QPushButton::clicked, this, &PolicyChangeBanner::acceptClicked);
    connect(m_keep, &QPushButton::clicked, this, &PolicyChangeBanner::keepCurrentClicked);
}

void PolicyChangeBanner::setChange(const PolicyChange &change, const QString &sourcePath, const QString &when)
{
    const QString file = when.isEmpty() ? sourcePath : tr("%1 (%2)").arg(sourcePath, when);
    QString text = tr("Widens (before → after):") + QLatin1Char('\n') + bulleted(change.widening());
    if (change.narrows())
        text += QLatin1String("\n\n") + tr("Narrows, applied with it (before → after):") + QLatin1Char('\n') +
                bulleted(change.narrowing());
    setText(tr("The configuration in %1 widens what runs without you. Nothing of it applies "
               "until you accept it; Keep current leaves the configuration in force as it is.")
                .arg(file),
            text);
}

void PolicyChangeBanner::setUpstreamChange(const QString &upstream, const QStringList &widening)
{
    QStringList lines;
    for (const QString &line : widening)
        lines.append(QStringLiteral("  • ") + line);
    setText(tr("Upstream %1 changed what it says of its tools, and that widens what runs without you. "
               "Its tools keep what you accepted (a new one asks) until you accept; Keep current "
               "leaves them so.")
                .arg(upstream),
            tr("Widens:") + QLatin1Char('\n') + lines.join(QLatin1Char('\n')));
}

void PolicyChangeBanner::setText(const QString &title, const QString &text)
{
    m_title->setText(title);
    if (m_changes->toPlainText() != text || !m_accept->isEnabled()) {
        m_accept->setEnabled(false);
        m_settle->start();
    }
    m_changes->setPlainText(text);
}

} // namespace Countersign
