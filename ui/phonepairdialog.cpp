#include "phonepairdialog.h"

#include "phonepairing.h"
#include "qrcode.h"
#include "visibletext.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace Countersign {

PhonePairDialog::PhonePairDialog(PhonePairing &pairing, const QString &url, const QString &fingerprint,
                                 QWidget *parent)
    : QDialog(parent), m_pairing(pairing), m_url(url)
{
    setObjectName(QStringLiteral("phonePairDialog"));
    setWindowTitle(tr("Pair a phone"));
    m_qr = new QLabel(this);
    m_qr->setObjectName(QStringLiteral("pairQr"));
    m_qr->setAlignment(Qt::AlignCenter);
    m_link = new QLabel(this);
    m_link->setObjectName(QStringLiteral("pairUrl"));
    m_link->setTextFormat(Qt::PlainText);
    m_link->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_link->setWordWrap(true);
    auto *help =
        new QLabel(tr("Scan this code with the phone's camera and open the page. Its browser warns about the "
                      "certificate once: it is this console's own, SHA-256 %1.")
                       .arg(fingerprint),
                   this);
    help->setTextFormat(Qt::PlainText);
    help->setWordWrap(true);
    m_left = new QLabel(this);
    m_left->setObjectName(QStringLiteral("pairExpires"));
    m_question = new QLabel(this);
    m_question->setObjectName(QStringLiteral("pairQuestion"));
    m_question->setTextFormat(Qt::PlainText);
    m_question->setWordWrap(true);
    m_alert = new QLabel(this);
    m_alert->setObjectName(QStringLiteral("pairAlert"));
    m_alert->setTextFormat(Qt::PlainText);
    m_alert->setWordWrap(true);
    m_code = new QLineEdit(this);
    m_code->setObjectName(QStringLiteral("pairCode"));
    m_code->setPlaceholderText(tr("the six digits the phone's page shows"));
    m_code->setMaxLength(7);
    m_confirm = new QPushButton(tr("&Pair this phone"), this);
    m_confirm->setObjectName(QStringLiteral("confirmPairing"));
    m_refuse = new QPushButton(tr("&Refuse"), this);
    m_refuse->setObjectName(QStringLiteral("refusePairing"));
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(help);
    layout->addWidget(m_qr);
    layout->addWidget(m_link);
    layout->addWidget(m_left);
    layout->addWidget(m_question);
    layout->addWidget(m_alert);
    layout->addWidget(m_code);
    layout->addWidget(m_confirm);
    layout->addWidget(m_refuse);
    layout->addWidget(close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_refuse, &QPushButton::clicked, this, [this] {
        m_pairing.refuse(m_offer);
        startOver();
        m_question->setText(tr("Refused. Scan the new code to try again."));
    });
    connect(m_confirm, &QPushButton::clicked, this, [this] {
        auto device = m_pairing.confirm(m_offer);
        m_confirm->setEnabled(false);
        m_refuse->setEnabled(false);
        m_code->setEnabled(false);
        if (!device) {
            m_question->setText(tr("Not paired: %1").arg(device.error()));
            return;
        }
        m_question->setText(tr("Paired: %1. Its decisions show as phone:%1.").arg(device.value().name));
        Q_EMIT paired(device.value().id);
    });
    connect(m_code, &QLineEdit::textChanged, this, [this](const QString &typed) {
        QString digits = typed;
        digits.remove(QLatin1Char(' '));
        m_confirm->setEnabled(!m_offer.isEmpty() && digits == m_expected);
    });
    connect(&m_pairing, &PhonePairing::offered, this, [this](const PhonePairing::Offer &offer) {
        m_offer = offer.id;
        m_expected = QString(offer.code).remove(QLatin1Char(' '));
        m_timer->stop();
        m_qr->setPixmap(QPixmap());
        m_left->clear();
        m_question->setText(
            tr("A phone asks to pair, named: %1\nType the six digits its page shows. If it shows "
               "none, or you did not just scan this code, refuse.")
                .arg(visibleText(offer.name)));
        m_code->setEnabled(true);
        m_code->clear();
        m_confirm->setEnabled(false);
        m_refuse->setEnabled(true);
        m_code->setFocus();
    });
    connect(&m_pairing, &PhonePairing::wrongOffer, this, [this](int count) {
        m_wrong = count;
        showAlert();
    });
    connect(&m_pairing, &PhonePairing::secretReused, this, [this] {
        m_reused = true;
        showAlert();
    });
    m_timer = new QTimer(this);
    connect(m_timer, &QTimer::timeout, this, &PhonePairDialog::tick);
    startOver();
}

PhonePairDialog::~PhonePairDialog()
{
    m_pairing.stop();
}

void PhonePairDialog::startOver()
{
    const QString secret = m_pairing.start();
    const QString link = m_url + QStringLiteral("#pair=") + secret;
    m_qr->setPixmap(QPixmap::fromImage(qrCode(link.toUtf8())));
    m_link->setText(link);
    m_offer.clear();
    m_expected.clear();
    m_question->clear();
    m_wrong = 0;
    m_reused = false;
    m_alert->clear();
    m_code->clear();
    m_code->setEnabled(false);
    m_confirm->setEnabled(false);
    m_refuse->setEnabled(false);
    m_timer->start(1000);
    tick();
}

void PhonePairDialog::showAlert()
{
    QStringList lines;
    if (m_reused)
        lines.append(tr("Another phone offered this code after the first one: someone else may have read "
                        "it. Pair only if the six digits match the phone in your hand; otherwise refuse."));
    if (m_wrong > 0)
        lines.append(m_wrong == 1
                         ? tr("1 offer with a wrong code since this code was shown.")
                         : tr("%1 offers with a wrong code since this code was shown.").arg(m_wrong));
    m_alert->setText(lines.join(QLatin1Char('\n')));
}

void PhonePairDialog::tick()
{
    const qint64 left = (m_pairing.secretLeftMs() + 999) / 1000;
    if (left <= 0) {
        m_timer->stop();
        m_qr->setPixmap(QPixmap());
        m_left->setText(tr("This code has expired or was used. Close and pair again."));
        return;
    }
    m_left->setText(
        tr("The code works once, for %1:%2 more.").arg(left / 60).arg(left % 60, 2, 10, QLatin1Char('0')));
}

} // namespace Countersign
