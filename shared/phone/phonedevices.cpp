#include "phonedevices.h"

#include "auditstore.h"
#include "clock.h"
#include "privatefile.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QRandomGenerator>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace Countersign {

namespace {

using json = nlohmann::json;

constexpr qint64 kTouchEveryMs = 60'000;

std::string hex(const QByteArray &bytes)
{
    return bytes.toHex().toStdString();
}

} // namespace

PhoneDevices::PhoneDevices(QString path, const Clock &clock, AuditStore &chain, QObject *parent)
    : QObject(parent), m_path(std::move(path)), m_clock(clock), m_chain(chain)
{
}

namespace {

QString chainKey(const QString &id)
{
    return QStringLiteral("phone:") + id;
}

} // namespace

QString PhoneDevices::cleanName(const QString &name)
{
    QString out;
    for (const QChar c : name) {
        const auto category = c.category();
        if (c.isSpace())
            out += QLatin1Char(' ');
        else if (QStringLiteral(",:;\"<>").contains(c)) // "phone:x, console:alice" reads as two people
            continue;
        else if (category != QChar::Other_Control && category != QChar::Other_Format &&
                 category != QChar::Other_NotAssigned && category != QChar::Other_PrivateUse &&
                 category != QChar::Other_Surrogate)
            out += c;
    }
    return out.simplified().left(kMaxNameLength);
}

QString PhoneDevices::pairingName(const QString &name)
{
    // Compatibility forms folded first (a fullwidth comma is a comma, a ligature two letters), then
    // only letters, spaces and . - ' kept: no separator that makes a decision's "phone:x, console:alice"
    // read as two people, nor its look-alikes among the modifier letters and punctuation; no letter
    // that shows nothing (Hangul fillers); no digit, so that a name cannot pass for the pairing code
    // ("Pixel - code 906 996"). Then the letters of one script only, the one most of them are in:
    // a Cyrillic "с" in "сonsole", or digit look-alikes from other scripts ("code ОЗб"), go.
    static const QList<char16_t> blankLetters = {0x115F, 0x1160, 0x3164, 0xFFA0};
    const auto scriptOf = [](QChar c) {
        const QChar::Script s = c.script();
        // Japanese and Chinese names mix these; none of them looks like a Latin letter or digit.
        return s == QChar::Script_Hiragana || s == QChar::Script_Katakana ? QChar::Script_Han : s;
    };
    QString kept;
    QHash<int, int> letters; // script -> how many letters of it
    for (const QChar c : name.normalized(QString::NormalizationForm_KC)) {
        const auto category = c.category();
        const bool letter = category == QChar::Letter_Uppercase || category == QChar::Letter_Lowercase ||
                            category == QChar::Letter_Titlecase || category == QChar::Letter_Other;
        if (c.isSpace()) {
            kept += QLatin1Char(' ');
        } else if (letter && !blankLetters.contains(c.unicode()) &&
                   // Latin: the European alphabets (to Latin Extended-A, and Romanian's ș ț), not
                   // the rarer letters shaped like digits (ƻ, Ƽ, Ȣ).
                   (c.script() != QChar::Script_Latin || c.unicode() <= 0x017F ||
                    (c.unicode() >= 0x0218 && c.unicode() <= 0x021B))) {
            kept += c;
            ++letters[scriptOf(c)];
        } else if (c == QLatin1Char('.') || c == QLatin1Char('-') || c == QLatin1Char('\'')) {
            kept += c;
        }
    }
    int script = -1;
    for (auto it = letters.cbegin(); it != letters.cend(); ++it) {
        if (script < 0 || it.value() > letters.value(script) ||
            (it.value() == letters.value(script) && it.key() < script))
            script = it.key();
    }
    QString out;
    for (const QChar c : std::as_const(kept)) {
        if (!c.isLetter() || scriptOf(c) == script)
            out += c;
    }
    return cleanName(out);
}

QString PhoneDevices::pathIn(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("phone/devices.json"));
}

Status PhoneDevices::load()
{
    m_devices.clear();
    m_unreadable = true; // until it is read whole
    QFile file(m_path);
    if (!file.exists()) {
        m_unreadable = false;
        return success();
    }
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(m_path, file.errorString()));
    const QByteArray bytes = file.readAll();
    const json doc = json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (!doc.is_object() || !doc.contains("devices") || !doc["devices"].is_array())
        return failure(QStringLiteral("%1 is not a list of paired phones; it was left as it is").arg(m_path));
    try {
        for (const json &d : doc["devices"]) {
            PhoneDevice device;
            device.id = QString::fromStdString(d.at("id").get<std::string>());
            device.name = cleanName(QString::fromStdString(d.at("name").get<std::string>()));
            device.publicKey =
                QByteArray::fromHex(QByteArray::fromStdString(d.at("publicKey").get<std::string>()));
            device.pairedMs = d.at("pairedMs").get<qint64>();
            device.lastUsedMs = d.value("lastUsedMs", qint64(0));
            device.revokedMs = d.value("revokedMs", qint64(0));
            if (device.id.isEmpty() || device.publicKey.size() != 65) {
                m_devices.clear();
                return failure(
                    QStringLiteral("%1 holds a device without an id or a key; it was left as it is")
                        .arg(m_path));
            }
            m_devices.append(device);
        }
    } catch (const json::exception &e) {
        m_devices.clear();
        return failure(QStringLiteral("%1 cannot be read (%2); it was left as it is")
                           .arg(m_path, QString::fromUtf8(e.what())));
    }
    m_unreadable = false;
    return success();
}

Status PhoneDevices::save() const
{
    if (m_unreadable)
        return failure(QStringLiteral("%1 could not be read, so it is not written over: move it away first")
                           .arg(m_path));
    json devices = json::array();
    for (const PhoneDevice &d : m_devices)
        devices.push_back({{"id", d.id.toStdString()},
                           {"name", d.name.toStdString()},
                           {"publicKey", hex(d.publicKey)},
                           {"pairedMs", d.pairedMs},
                           {"lastUsedMs", d.lastUsedMs},
                           {"revokedMs", d.revokedMs}});
    return writePrivate(m_path, QByteArray::fromStdString(json{{"devices", devices}}.dump(2)) + '\n');
}

std::optional<PhoneDevice> PhoneDevices::find(const QString &id) const
{
    for (const PhoneDevice &d : m_devices)
        if (d.id == id)
            return d;
    return std::nullopt;
}

Result<PhoneDevice> PhoneDevices::add(const QString &name, const QByteArray &publicKey)
{
    const QString clean = cleanName(name);
    if (clean.isEmpty())
        return failure(QStringLiteral("the phone needs a name"));
    if (publicKey.size() != 65 || publicKey.at(0) != '\x04')
        return failure(QStringLiteral("the phone's key is not an uncompressed P-256 point"));
    int live = 0;
    for (const PhoneDevice &d : m_devices)
        live += d.revoked() ? 0 : 1;
    if (live >= kMaxDevices)
        return failure(QStringLiteral("%1 phones are paired already: revoke one first").arg(kMaxDevices));
    PhoneDevice device;
    QByteArray id(8, '\0');
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(id.data()), 2);
    device.id = QString::fromLatin1(id.toHex());
    device.name = clean;
    device.publicKey = publicKey;
    device.pairedMs = m_clock.nowMs();
    m_devices.append(device);
    if (auto saved = save(); !saved) {
        m_devices.removeLast();
        return failure(saved.error());
    }
    if (auto recorded = m_chain.recordEvent(QStringLiteral("phone-paired"), chainKey(device.id),
                                            {{"name", device.name.toStdString()},
                                             {"publicKey", hex(device.publicKey)},
                                             {"pairedMs", device.pairedMs}});
        !recorded) {
        m_devices.removeLast();
        (void)save();
        return failure(QStringLiteral("the pairing could not be recorded, so the phone is not paired: %1")
                           .arg(recorded.error()));
    }
    Q_EMIT changed();
    return device;
}

Status PhoneDevices::revoke(const QString &id)
{
    for (PhoneDevice &d : m_devices) {
        if (d.id != id)
            continue;
        if (d.revoked())
            return success();
        // The chain first: a revocation the file loses still holds.
        if (auto recorded =
                m_chain.recordEvent(QStringLiteral("phone-revoked"), chainKey(d.id),
                                    {{"name", d.name.toStdString()}, {"revokedMs", m_clock.nowMs()}});
            !recorded)
            return recorded;
        d.revokedMs = m_clock.nowMs();
        if (auto saved = save(); !saved) {
            d.revokedMs = 0;
            return saved;
        }
        Q_EMIT changed();
        return success();
    }
    return failure(QStringLiteral("no paired phone %1").arg(id));
}

std::optional<PhoneDevice> PhoneDevices::vouched(const QString &id)
{
    const auto device = find(id);
    if (!device || device->revoked())
        return std::nullopt;
    auto paired = m_chain.eventsOf(chainKey(id), QStringLiteral("phone-paired"));
    auto revoked = m_chain.eventsOf(chainKey(id), QStringLiteral("phone-revoked"));
    if (revoked && !revoked.value().isEmpty())
        noteRevoked(id, revoked.value().first().value("revokedMs", m_clock.nowMs()));
    if (!paired || !revoked || !revoked.value().isEmpty())
        return std::nullopt;
    for (const json &p : paired.value())
        if (p.value("publicKey", std::string()) == hex(device->publicKey) &&
            p.value("name", std::string()) == device->name.toStdString())
            return device;
    return std::nullopt;
}

void PhoneDevices::noteRevoked(const QString &id, qint64 revokedMs)
{
    for (PhoneDevice &d : m_devices) {
        if (d.id != id || d.revoked())
            continue;
        d.revokedMs = std::max<qint64>(1, revokedMs);
        (void)save(); // the chain holds the revocation whatever the file says
        Q_EMIT changed();
    }
}

void PhoneDevices::touch(const QString &id)
{
    for (PhoneDevice &d : m_devices) {
        if (d.id != id)
            continue;
        const qint64 now = m_clock.nowMs();
        if (now - d.lastUsedMs < kTouchEveryMs)
            return;
        d.lastUsedMs = now;
        (void)save(); // a last use that cannot be noted stops nothing
        Q_EMIT changed();
    }
}

} // namespace Countersign
