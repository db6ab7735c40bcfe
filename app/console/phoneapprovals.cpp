#include "phoneapprovals.h"

#include "cardnotifier.h"
#include "cardsightings.h"

#include "config.h"
#include "phonecertificate.h"
#include "phonedevices.h"
#include "phonepairing.h"
#include "phoneserver.h"

#include <QDir>

#include <cstdio>

namespace Countersign {

PhoneApprovals::PhoneApprovals(ApprovalQueue &queue, AuditStore &audit, const Clock &clock,
                               const QString &dataDir, QObject *parent)
    : QObject(parent), m_queue(queue), m_audit(audit), m_clock(clock),
      m_folder(QDir(dataDir).filePath(QStringLiteral("phone"))),
      m_devices(std::make_unique<PhoneDevices>(PhoneDevices::pathIn(dataDir), clock, audit)),
      m_pairing(std::make_unique<PhonePairing>(*m_devices, clock))
{
    if (auto loaded = m_devices->load(); !loaded)
        std::fprintf(stderr, "countersign: %s\n", qPrintable(loaded.error()));
}

PhoneApprovals::~PhoneApprovals() = default;

void PhoneApprovals::setGrants(Grants *grants)
{
    m_grants = grants;
    if (m_server)
        m_server->setGrants(grants);
}

void PhoneApprovals::setSightings(CardSightings *sightings)
{
    m_sightings = sightings;
    if (m_server)
        m_server->setSightings(sightings);
    if (!m_notifier) {
        m_notifier = new CardNotifier(this);
        connect(m_notifier, &CardNotifier::failed, this, [](const QString &why) {
            std::fprintf(stderr, "countersign: the notifier was not reached: %s\n", qPrintable(why));
        });
    }
    connect(sightings, &CardSightings::unseen, m_notifier, [this] {
        m_notifier->setPageUrl(url());
        m_notifier->notify();
    });
}

QString PhoneApprovals::url() const
{
    return m_server ? m_server->url() : QString();
}

Status PhoneApprovals::apply(const Config &config)
{
    m_cardMinimumMs = qRound64(config.cardMinimumSeconds() * 1000.0);
    if (m_server)
        m_server->setCardMinimumMs(m_cardMinimumMs);
    if (m_sightings)
        m_sightings->configure(config);
    if (m_notifier)
        m_notifier->setUrl(config.notifyUrl());
    const QString wanted = config.phoneHost().isEmpty()
                               ? QString()
                               : QStringLiteral("%1:%2").arg(config.phoneHost()).arg(config.phonePort());
    if (wanted == m_listening && (m_server || wanted.isEmpty()))
        return success();
    m_server.reset();
    m_pairing->stop();
    m_listening = wanted;
    m_fingerprint.clear();
    m_renewal.clear();
    m_problem.clear();
    if (wanted.isEmpty()) {
        Q_EMIT changed({}, {});
        return success();
    }
    const auto fail = [this](const QString &why) {
        const QString problem = QStringLiteral("phone approvals are off: %1").arg(why);
        std::fprintf(stderr, "countersign: %s\n", qPrintable(problem));
        std::fflush(stderr);
        m_server.reset();
        m_problem = problem;
        Q_EMIT changed({}, problem);
        return failure(problem);
    };
    auto certificate = PhoneCertificate::loadOrMake(m_folder, config.phoneHost());
    if (!certificate)
        return fail(certificate.error());
    m_server = std::make_unique<PhoneServer>(m_queue, m_audit, *m_devices, *m_pairing, m_clock);
    m_server->setSightings(m_sightings);
    m_server->setGrants(m_grants);
    m_server->setCardMinimumMs(m_cardMinimumMs);
    auto port = m_server->listen(config.phoneHost(), config.phonePort(), certificate.value());
    if (!port)
        return fail(port.error());
    m_fingerprint = certificate.value().fingerprint();
    if (!certificate.value().replacedFingerprint.isEmpty()) {
        m_renewal = QStringLiteral("The certificate was made again (%1): it was SHA-256 %2. A phone paired "
                                   "before shows its browser's warning once more; before accepting it, check "
                                   "that the browser shows SHA-256 %3.")
                        .arg(certificate.value().replacedBecause, certificate.value().replacedFingerprint,
                             m_fingerprint);
        std::fprintf(stderr, "countersign: %s\n", qPrintable(m_renewal));
    }
    std::fprintf(stderr, "countersign: phone approvals on %s (certificate SHA-256 %s)\n", qPrintable(url()),
                 qPrintable(m_fingerprint));
    std::fflush(stderr);
    Q_EMIT changed(url(), {});
    return success();
}

Status PhoneApprovals::revoke(const QString &deviceId)
{
    if (auto revoked = m_devices->revoke(deviceId); !revoked)
        return revoked;
    if (m_server)
        m_server->deviceRevoked(deviceId);
    return success();
}

} // namespace Countersign
