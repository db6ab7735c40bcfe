#include "configguard.h"

#include "approvalqueue.h"
#include "auditstore.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcConfigGuard, "countersign.config")

namespace Countersign {

using json = nlohmann::json;

ConfigGuard::ConfigGuard(Config inForce, AuditStore &audit, Widening widening, QObject *parent)
    : QObject(parent), m_inForce(std::move(inForce)), m_audit(audit), m_widening(widening)
{
}

ConfigGuard::~ConfigGuard() = default;

void ConfigGuard::offer(const Config &config)
{
    const bool wasPending = hasPending();
    m_pending.reset();
    m_pendingChange = {};
    const PolicyChange change = PolicyChange::compare(m_inForce, config);
    if (change.widens()) {
        if (m_widening == Widening::WaitForRestart) {
            record(QStringLiteral("policy-widening-waiting"), change, config.sourcePath(), false);
            if (wasPending)
                Q_EMIT pendingChanged();
            Q_EMIT waitingForRestart(change, config.sourcePath());
            return;
        }
        // Nothing of it applies, not even its narrowing half: what was accepted is what runs.
        m_pending = config;
        m_pendingChange = change;
        Q_EMIT pendingChanged();
        return;
    }
    // Narrowing applies even when its audit row cannot be written: refusing it would keep the
    // wider policy in force.
    if (change.narrows())
        record(QStringLiteral("policy-narrowed"), change, config.sourcePath(), false);
    if (wasPending)
        Q_EMIT pendingChanged();
    apply(config);
}

void ConfigGuard::accept()
{
    if (!m_pending)
        return;
    if (!record(QStringLiteral("policy-widened-accepted"), m_pendingChange, m_pending->sourcePath(), true))
        return; // no widening without its record
    Config accepted = std::move(*m_pending);
    m_pending.reset();
    m_pendingChange = {};
    Q_EMIT pendingChanged();
    apply(std::move(accepted));
}

void ConfigGuard::keepCurrent()
{
    if (!m_pending)
        return;
    record(QStringLiteral("policy-widened-rejected"), m_pendingChange, m_pending->sourcePath(), true);
    m_pending.reset();
    m_pendingChange = {};
    Q_EMIT pendingChanged();
}

bool ConfigGuard::record(const QString &event, const PolicyChange &change, const QString &sourcePath,
                         bool withDecider)
{
    nlohmann::json detail = change.toJson();
    detail["file"] = sourcePath.toStdString();
    if (withDecider)
        detail["by"] = ApprovalQueue::consoleUser().toStdString();
    if (auto recorded = m_audit.recordEvent(event, detail); !recorded) {
        qCWarning(lcConfigGuard) << "cannot record" << event << ":" << recorded.error();
        Q_EMIT storeError(tr("The configuration change could not be recorded in the audit log (%1): %2")
                              .arg(event, recorded.error()));
        return false;
    }
    return true;
}

void ConfigGuard::apply(Config config)
{
    m_inForce = std::move(config);
    recordInForce();
    Q_EMIT applied(m_inForce);
}

void ConfigGuard::recordInForce()
{
    const std::string text = m_inForce.sourceText().toStdString();
    auto last = m_audit.lastEvent(QStringLiteral("policy-in-force"));
    if (last && last.value().is_object() && last.value().value("text", json()) == text)
        return;
    if (auto recorded = m_audit.recordEvent(QStringLiteral("policy-in-force"),
                                            {{"file", m_inForce.sourcePath().toStdString()}, {"text", text}});
        !recorded)
        Q_EMIT storeError(tr("The configuration in force could not be recorded in the audit log: %1")
                              .arg(recorded.error()));
}

void ConfigGuard::recordStart()
{
    auto last = m_audit.lastEvent(QStringLiteral("policy-in-force"));
    if (!last) {
        Q_EMIT storeError(tr("The last recorded configuration cannot be read: %1").arg(last.error()));
        return;
    }
    const json text = last.value().is_object() ? last.value().value("text", json()) : json();
    if (text.is_string()) {
        const QByteArray before = QByteArray::fromStdString(text.get<std::string>());
        auto previous = Config::parse(before, m_inForce.sourcePath());
        const PolicyChange change =
            previous ? PolicyChange::compare(previous.value(), m_inForce) : PolicyChange();
        if (previous && change.widens()) {
            record(QStringLiteral("policy-widened-at-start"), change, m_inForce.sourcePath(), false);
            Q_EMIT widenedWhileStopped(change, m_inForce.sourcePath());
        } else if (previous && change.narrows()) {
            record(QStringLiteral("policy-narrowed"), change, m_inForce.sourcePath(), false);
        }
    }
    recordInForce();
}

} // namespace Countersign
