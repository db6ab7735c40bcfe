#include "configguard.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "canonicaljson.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSaveFile>

Q_LOGGING_CATEGORY(lcConfigGuard, "countersign.config")

namespace Countersign {

using json = nlohmann::json;

namespace {
// What a refusal is remembered by: the text of the file refused.
std::string digestOf(const QByteArray &text)
{
    return CanonicalJson::sha256Hex(text).toStdString();
}

QString timeText(const QDateTime &when)
{
    return when.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

// When the file was changed, as a person reads it.
QString changedText(const Config &config)
{
    const QFileInfo file(config.sourcePath());
    return file.exists() ? ConfigGuard::tr("changed %1").arg(timeText(file.lastModified())) : QString();
}
} // namespace

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
    m_pendingWhen.clear();
    const PolicyChange change = PolicyChange::compare(m_inForce, config);
    if (change.widens()) {
        hold(config, change, changedText(config), false);
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
    m_pendingWhen.clear();
    Q_EMIT pendingChanged();
    apply(std::move(accepted));
}

void ConfigGuard::keepCurrent()
{
    if (!m_pending)
        return;
    // Remembered by the file's text: the next start does not ask again for the same file.
    record(QStringLiteral("policy-widened-rejected"), m_pendingChange, m_pending->sourcePath(), true,
           {{"digest", digestOf(m_pending->sourceText())}});
    m_pending.reset();
    m_pendingChange = {};
    m_pendingWhen.clear();
    Q_EMIT pendingChanged();
}

bool ConfigGuard::record(const QString &event, const PolicyChange &change, const QString &sourcePath,
                         bool withDecider, const json &more)
{
    json detail = change.toJson();
    detail.update(more);
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

void ConfigGuard::hold(Config config, const PolicyChange &change, const QString &when, bool atStart)
{
    // A live edit the window asks about is recorded when decided; one found at start, or that no
    // window can decide, is recorded now.
    if (atStart || m_widening == Widening::HeldForWindow)
        record(QStringLiteral("policy-widening-waiting"), change, config.sourcePath(), false,
               {{"digest", digestOf(config.sourceText())}, {"atStart", atStart}});
    if (m_widening == Widening::HeldForWindow) {
        Q_EMIT heldForWindow(change, config.sourcePath());
        return;
    }
    // Nothing of it applies, not even its narrowing half: what was accepted is what runs.
    m_pending = std::move(config);
    m_pendingChange = change;
    m_pendingWhen = when;
    Q_EMIT pendingChanged();
}

void ConfigGuard::apply(Config config)
{
    m_inForce = std::move(config);
    recordInForce();
    Q_EMIT applied(m_inForce);
}

void ConfigGuard::recordInForce()
{
    if (!m_baselineFile.isEmpty()) {
        QFile current(m_baselineFile);
        if (!current.open(QIODevice::ReadOnly) || current.readAll() != m_inForce.sourceText()) {
            current.close();
            QSaveFile copy(m_baselineFile);
            if (!copy.open(QIODevice::WriteOnly) ||
                copy.write(m_inForce.sourceText()) != m_inForce.sourceText().size() || !copy.commit())
                Q_EMIT storeError(tr("The configuration in force could not be kept in %1: %2")
                                      .arg(m_baselineFile, copy.errorString()));
            QFile::setPermissions(m_baselineFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        }
    }
    const std::string text = m_inForce.sourceText().toStdString();
    auto last = m_audit.lastEvent(QStringLiteral("policy-in-force"));
    if (last && last.value().is_object() && last.value().value("text", json()) == text)
        return;
    if (auto recorded = m_audit.recordEvent(
            QStringLiteral("policy-in-force"),
            {{"file", m_inForce.sourcePath().toStdString()},
             {"text", text},
             {"since", QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()}});
        !recorded)
        Q_EMIT storeError(tr("The configuration in force could not be recorded in the audit log: %1")
                              .arg(recorded.error()));
}

void ConfigGuard::recordStart()
{
    json accepted;
    if (QFile copy(m_baselineFile); !m_baselineFile.isEmpty() && copy.open(QIODevice::ReadOnly)) {
        // This folder's own copy first: it does not change with the store the file names.
        accepted = {
            {"text", copy.readAll().toStdString()},
            {"since", QFileInfo(m_baselineFile).lastModified().toUTC().toString(Qt::ISODate).toStdString()}};
    } else if (auto last = m_audit.lastEvent(QStringLiteral("policy-in-force")); !last) {
        Q_EMIT storeError(tr("The last recorded configuration cannot be read: %1").arg(last.error()));
    } else if (!last.value().is_object() || !last.value().value("text", json()).is_string()) {
        recordInForce(); // the first start: the file is what the human set up
        return;
    } else {
        accepted = last.value();
    }
    // The configuration accepted last. An empty text is the defaults (no file then); one that
    // cannot be read (or no record that can) is taken as the defaults too: the narrowest baseline,
    // so whatever the file adds waits for the human rather than running unasked.
    const std::string text = accepted.is_object() ? accepted.value("text", std::string()) : std::string();
    Result<Config> previous = Config();
    if (!text.empty()) {
        previous = Config::parse(QByteArray::fromStdString(text), m_inForce.sourcePath());
        if (!previous) {
            qCWarning(lcConfigGuard) << "the configuration accepted last cannot be read:" << previous.error();
            previous = Config();
        }
    }
    const PolicyChange change = PolicyChange::compare(previous.value(), m_inForce);
    if (change.narrows() && !change.widens())
        record(QStringLiteral("policy-narrowed"), change, m_inForce.sourcePath(), false);
    if (!change.widens()) {
        recordInForce();
        return;
    }
    // The file widens the configuration accepted last: that one runs until the human says.
    Config found = std::move(m_inForce);
    m_inForce = std::move(previous).value();
    auto refused = m_audit.lastEvent(QStringLiteral("policy-widened-rejected"));
    if (refused && refused.value().is_object() &&
        refused.value().value("digest", std::string()) == digestOf(found.sourceText())) {
        Q_EMIT refusedStillInFile(change, found.sourcePath());
        return;
    }
    QString when = changedText(found);
    if (const QString since = QString::fromStdString(
            accepted.is_object() ? accepted.value("since", std::string()) : std::string());
        !since.isEmpty())
        when = tr("%1; the configuration in force was accepted %2")
                   .arg(when, timeText(QDateTime::fromString(since, Qt::ISODate)));
    hold(std::move(found), change, when, true);
}

} // namespace Countersign
