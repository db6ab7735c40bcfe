#include "grantdialog.h"

#include "clock.h"
#include "dialogbuttons.h"
#include "visibletext.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace Countersign {

namespace {

QLabel *plainLabel(const QString &text, QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setTextFormat(Qt::PlainText); // the agent chose the call's arguments
    l->setWordWrap(true);
    l->setText(laidOutText(visibleText(text)));
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}

} // namespace

GrantDialog::GrantDialog(const QList<Grant> &offers, const Clock &clock, const QString &agentSession,
                         QWidget *parent)
    : QDialog(parent), m_offers(offers), m_clock(clock), m_session(agentSession)
{
    setObjectName(QStringLiteral("grantDialog"));
    const bool allow = !offers.isEmpty() && offers.first().verdict == Verdict::Allow;
    setWindowTitle(allow ? tr("Allow from now on") : tr("Deny from now on"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(plainLabel(
        allow ? tr("Calls this covers will run with no card, for connection \"%1\" alone. A call whose plan "
                   "cannot be taken back, or that tries again what you declined, still asks.")
                    .arg(offers.value(0).principal)
              : tr("Calls this covers will be refused with no card, for connection \"%1\" alone.")
                    .arg(offers.value(0).principal),
        this));
    m_scopes = new QButtonGroup(this);
    for (int i = 0; i < offers.size(); ++i) {
        const Grant &offer = offers.at(i);
        auto *radio = new QRadioButton(this);
        radio->setObjectName(QStringLiteral("grantScope_%1").arg(grantScopeName(offer.scope)));
        // A radio button reads & as a mnemonic: the agent's text keeps its own.
        radio->setText(
            laidOutText(visibleText(offer.describe())).replace(QLatin1Char('&'), QStringLiteral("&&")));
        m_scopes->addButton(radio, i);
        layout->addWidget(radio);
        if (const QString beyond = offer.beyond(); !beyond.isEmpty()) {
            auto *note = plainLabel((allow ? tr("Lets through %1") : tr("Refuses %1")).arg(beyond), this);
            note->setContentsMargins(24, 0, 0, 4);
            layout->addWidget(note);
        }
    }
    if (auto *first = m_scopes->button(0))
        first->setChecked(true); // the narrowest
    m_lasts = new QComboBox(this);
    m_lasts->setObjectName(QStringLiteral("grantLasts"));
    m_lasts->addItem(tr("for an hour"), int(Lasts::Hour));
    m_lasts->addItem(tr("until midnight"), int(Lasts::Today));
    if (!m_session.isEmpty())
        m_lasts->addItem(tr("while this agent session lasts (at most a day)"), int(Lasts::Session));
    m_lasts->addItem(tr("until I revoke it (Settings)"), int(Lasts::Always));
    auto *lastsRow = new QHBoxLayout;
    lastsRow->addWidget(new QLabel(tr("It holds"), this));
    lastsRow->addWidget(m_lasts, 1);
    layout->addLayout(lastsRow);
    layout->addWidget(new QLabel(tr("The rule it writes in the audit log:"), this));
    m_rule = plainLabel(QString(), this);
    m_rule->setObjectName(QStringLiteral("grantRule"));
    m_rule->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_rule);

    DialogButtons::addConfirmRow(this, layout, allow ? tr("Allow from now on") : tr("Deny from now on"),
                                 "confirmGrant", "cancelGrant");
    connect(m_scopes, &QButtonGroup::idClicked, this, &GrantDialog::showRule);
    connect(m_lasts, &QComboBox::currentIndexChanged, this, &GrantDialog::showRule);
    showRule();
}

void GrantDialog::choose(int offer, Lasts lasts)
{
    if (auto *button = m_scopes->button(offer))
        button->setChecked(true);
    m_lasts->setCurrentIndex(m_lasts->findData(int(lasts)));
    showRule();
}

Grant GrantDialog::chosen() const
{
    Grant grant = m_offers.value(std::max(0, m_scopes->checkedId()));
    const qint64 now = m_clock.nowMs();
    switch (Lasts(m_lasts->currentData().toInt())) {
    case Lasts::Hour:
        grant.expiresMs = now + 3600 * 1000;
        break;
    case Lasts::Today: {
        const QDateTime midnight(QDateTime::fromMSecsSinceEpoch(now).date().addDays(1), QTime(0, 0));
        grant.expiresMs = std::max(now + 60'000, midnight.toMSecsSinceEpoch());
        break;
    }
    case Lasts::Session:
        grant.session = m_session;
        grant.expiresMs = now + kSessionGrantMs;
        break;
    case Lasts::Always:
        grant.expiresMs = 0;
        break;
    }
    return grant;
}

void GrantDialog::showRule()
{
    nlohmann::json rule = chosen().toJson();
    rule.erase("createdMs");
    rule.erase("by");
    m_rule->setText(laidOutText(visibleText(QString::fromStdString(rule.dump(2)))));
}

} // namespace Countersign
