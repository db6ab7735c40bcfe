// The phone's listener (issue 29) over real TLS on 127.0.0.2: its certificate made for that address
// and trusted by the test's client alone, pairing confirmed (or not) on the desktop's side, cards
// read and decided with requests signed by a P-256 key as a browser's WebCrypto signs them, and the
// attacks: an unpaired device, a replayed decision, one signed for another card or plan, a device
// revoked mid-session, a used or expired pairing secret, pairing with no confirmation, and any
// path but the page's.
#include "approvalqueue.h"
#include "auditstore.h"
#include "canonicaljson.h"
#include "cardsightings.h"
#include "config.h"
#include "database.h"
#include "devicekey.h"
#include "fakeclock.h"
#include "grants.h"
#include "jsoncompare.h"
#include "phonecertificate.h"
#include "phonedevices.h"
#include "phonepairing.h"
#include "phoneserver.h"
#include "receipt.h"

#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QSslCipher>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

using namespace Countersign;
using json = nlohmann::json;

namespace {

// A device's key as the page makes it: P-256, its public half the uncompressed point, signatures
// r || s.
class TestKey
{
public:
    TestKey() : m_key(EVP_EC_gen("P-256")) {}
    ~TestKey() { EVP_PKEY_free(m_key); }
    Q_DISABLE_COPY_MOVE(TestKey)
    QByteArray publicKey() const
    {
        QByteArray out(65, '\0');
        size_t length = 0;
        EVP_PKEY_get_octet_string_param(m_key, OSSL_PKEY_PARAM_PUB_KEY,
                                        reinterpret_cast<unsigned char *>(out.data()), size_t(out.size()),
                                        &length);
        out.resize(qsizetype(length));
        return out;
    }
    QByteArray sign(const QByteArray &message) const
    {
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        size_t length = 0;
        EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, m_key);
        EVP_DigestSign(md, nullptr, &length, reinterpret_cast<const unsigned char *>(message.constData()),
                       size_t(message.size()));
        QByteArray der(qsizetype(length), '\0');
        EVP_DigestSign(md, reinterpret_cast<unsigned char *>(der.data()), &length,
                       reinterpret_cast<const unsigned char *>(message.constData()), size_t(message.size()));
        EVP_MD_CTX_free(md);
        const auto *p = reinterpret_cast<const unsigned char *>(der.constData());
        ECDSA_SIG *sig = d2i_ECDSA_SIG(nullptr, &p, long(length));
        QByteArray raw(64, '\0');
        BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char *>(raw.data()), 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char *>(raw.data()) + 32, 32);
        ECDSA_SIG_free(sig);
        return raw;
    }

private:
    EVP_PKEY *m_key;
};

QByteArray b64url(const QByteArray &bytes)
{
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

struct Answer
{
    int status = 0;
    json body;
    QByteArray raw;
};

// A signed request as the page makes it; kept so that it can be sent again as it was.
struct Signed
{
    QByteArray path;
    QByteArray body;
    QByteArray device, challenge, signature;
};

} // namespace

class PhoneServerTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AuditStore> m_store;
    std::unique_ptr<ApprovalQueue> m_queue;
    std::unique_ptr<PhoneDevices> m_devices;
    std::unique_ptr<PhonePairing> m_pairing;
    std::unique_ptr<PhoneServer> m_server;
    PhoneCertificate m_certificate;
    QNetworkAccessManager m_net;
    QString m_base;
    int m_nonce = 0;

    Answer send(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
                const QList<QPair<QByteArray, QByteArray>> &headers = {}, bool origin = true)
    {
        QNetworkRequest request(QUrl(m_base + QString::fromLatin1(path)));
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates({m_certificate.certificate}); // this certificate alone is trusted
        request.setSslConfiguration(tls);
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        if (origin && method == "POST")
            request.setRawHeader("Origin", m_base.chopped(1).toLatin1());
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        QNetworkReply *reply = m_net.sendCustomRequest(request, method, body);
        QSignalSpy done(reply, &QNetworkReply::finished);
        done.wait(5000);
        Answer a;
        a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        a.raw = reply->readAll();
        a.body = json::parse(a.raw.toStdString(), nullptr, false);
        if (a.status == 0)
            qWarning() << method << path << reply->errorString();
        reply->deleteLater();
        return a;
    }
    // POST /api/challenge from another local address (a socket bound to it): the answer's status.
    // The listener runs on this thread: each wait runs the event loop.
    int challengeStatusFrom(const QString &source, const QByteArray &body)
    {
        QSslSocket socket;
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates({m_certificate.certificate});
        socket.setSslConfiguration(tls);
        if (!socket.bind(QHostAddress(source)))
            return -1;
        const QUrl url(m_base);
        QSignalSpy encrypted(&socket, &QSslSocket::encrypted);
        socket.connectToHostEncrypted(url.host(), quint16(url.port()));
        if (!encrypted.wait(5000))
            return -2;
        socket.write("POST /api/challenge HTTP/1.1\r\nHost: " + url.authority().toLatin1() +
                     "\r\nOrigin: " + m_base.chopped(1).toLatin1() +
                     "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                     QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QSignalSpy readable(&socket, &QSslSocket::readyRead);
        QByteArray answer;
        while (!answer.contains("\r\n") && readable.wait(5000))
            answer += socket.readAll();
        return answer.startsWith("HTTP/1.1 ") ? answer.mid(9, 3).toInt() : -3;
    }
    // The device's signed event stream (GET /api/events), open.
    QNetworkReply *openEvents(const TestKey &key, const QString &device)
    {
        const Signed events = sign(key, device, "GET", "/api/events", json());
        QNetworkRequest request(QUrl(m_base + QStringLiteral("api/events?device=%1&challenge=%2&signature=%3")
                                                  .arg(device, QString::fromLatin1(events.challenge),
                                                       QString::fromLatin1(events.signature))));
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates({m_certificate.certificate});
        request.setSslConfiguration(tls);
        return m_net.get(request);
    }
    QByteArray challengeFor(const QString &device)
    {
        const Answer a = send("POST", "/api/challenge",
                              QByteArray::fromStdString(json{{"device", device.toStdString()}}.dump()));
        return a.status == 200 ? QByteArray::fromStdString(a.body.at("challenge").get<std::string>())
                               : QByteArray();
    }
    Signed sign(const TestKey &key, const QString &device, const QByteArray &method, const QByteArray &path,
                const json &body)
    {
        Signed s{path,
                 method == "GET" ? QByteArray() : QByteArray::fromStdString(body.dump()),
                 device.toLatin1(),
                 challengeFor(device),
                 {}};
        const QByteArray message =
            "countersign-phone-1\n" + method + '\n' + path + '\n' + s.challenge + '\n' + s.body;
        s.signature = b64url(key.sign(message));
        return s;
    }
    Answer post(const Signed &s)
    {
        return send("POST", s.path, s.body,
                    {{"X-Countersign-Device", s.device},
                     {"X-Countersign-Challenge", s.challenge},
                     {"X-Countersign-Signature", s.signature}});
    }
    // Pairs key as name through the page's API and the desktop's confirmation; the device id.
    QString paired(const TestKey &key, const QString &name)
    {
        const QString secret = m_pairing->start();
        const Answer offer =
            send("POST", "/api/pair",
                 QByteArray::fromStdString(json{{"secret", secret.toStdString()},
                                                {"name", name.toStdString()},
                                                {"publicKey", b64url(key.publicKey()).toStdString()}}
                                               .dump()));
        if (offer.status != 200)
            return {};
        auto device = m_pairing->confirm(QString::fromStdString(offer.body.at("offer").get<std::string>()));
        return device ? device.value().id : QString();
    }
    Operation card(Risk risk = Risk::Medium, const char *path = "build")
    {
        Operation op;
        op.nonce = QStringLiteral("n%1").arg(++m_nonce);
        op.tool = QStringLiteral("delete_path");
        op.principal = QStringLiteral("agent");
        op.arguments = {{"path", path}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Delete build\u202Etxt.exe");
        op.plan.targets = {QStringLiteral("build")};
        op.plan.diff = QStringLiteral("-a\n+b\n");
        op.plan.risk = risk;
        op.plan.blastRadius = {{"files", 3}, {"irreversible", true}};
        op.rule = QStringLiteral("no rule matched: default ask");
        op.planDigest = op.plan.digest();
        op.createdMs = m_clock.nowMs();
        op.expiresMs = op.createdMs + 300'000;
        if (!m_store->recordCard(op))
            qFatal("the card was not recorded");
        m_queue->park(op);
        return op;
    }
    json decision(const Operation &op, const char *verb, const QString &reason = {},
                  const QString &typed = {})
    {
        return {{"nonce", op.nonce.toStdString()},
                {"planDigest", op.planDigest.toStdString()},
                {"decision", verb},
                {"reason", reason.toStdString()},
                {"typed", typed.toStdString()},
                {"time", m_clock.nowMs()}};
    }

private Q_SLOTS:
    void init()
    {
        m_db = Database::open(QStringLiteral(":memory:")).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
        m_queue = std::make_unique<ApprovalQueue>(*m_store, m_clock);
        m_devices = std::make_unique<PhoneDevices>(m_dir.filePath(QStringLiteral("phone/devices.json")),
                                                   m_clock, *m_store);
        QVERIFY(m_devices->load().ok());
        m_pairing = std::make_unique<PhonePairing>(*m_devices, m_clock);
        auto cert = PhoneCertificate::loadOrMake(m_dir.filePath(QStringLiteral("phone")),
                                                 QStringLiteral("127.0.0.2"));
        QVERIFY2(cert.ok(), cert.ok() ? "" : qPrintable(cert.error()));
        m_certificate = cert.value();
        m_server = std::make_unique<PhoneServer>(*m_queue, *m_store, *m_devices, *m_pairing, m_clock);
        auto port = m_server->listen(QStringLiteral("127.0.0.2"), 0, m_certificate);
        QVERIFY2(port.ok(), port.ok() ? "" : qPrintable(port.error()));
        m_base = m_server->url();
    }
    void cleanup()
    {
        m_server.reset();
        m_pairing.reset();
        m_devices.reset();
        m_queue.reset();
        m_store.reset();
        m_db.reset();
        QFile::remove(m_dir.filePath(QStringLiteral("phone/devices.json")));
    }

    void certificate_namesItsAddress_isKept_andMadeAgainForAnother()
    {
        auto again = PhoneCertificate::loadOrMake(m_dir.filePath(QStringLiteral("phone")),
                                                  QStringLiteral("127.0.0.2"));
        QCOMPARE(again.value().certificate, m_certificate.certificate);
        QVERIFY(QFileInfo(m_dir.filePath(QStringLiteral("phone/key.pem"))).permissions() ==
                (QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser));
        QVERIFY(again.value().replacedFingerprint.isEmpty()); // kept: nothing to announce
        auto other = PhoneCertificate::loadOrMake(m_dir.filePath(QStringLiteral("phone")),
                                                  QStringLiteral("192.168.1.20"));
        QVERIFY(other.value().certificate != m_certificate.certificate);
        // Made again in place of a kept one: both fingerprints are known, to be announced.
        QCOMPARE(other.value().replacedFingerprint, m_certificate.fingerprint());
        QCOMPARE(other.value().replacedBecause, QStringLiteral("it named another address"));
        QCOMPARE(other.value().fingerprint().size(), 32 * 3 - 1);
    }

    void deviceKey_verifiesWebCryptoSignatures_only()
    {
        TestKey key;
        const QByteArray sig = key.sign("hello");
        QVERIFY(DeviceKey::verify(key.publicKey(), "hello", sig));
        QVERIFY(!DeviceKey::verify(key.publicKey(), "hellO", sig));
        QByteArray flipped = sig;
        flipped[10] = char(flipped[10] ^ 1);
        QVERIFY(!DeviceKey::verify(key.publicKey(), "hello", flipped));
        QVERIFY(!DeviceKey::verify(key.publicKey(), "hello", sig.left(63)));
        QByteArray offCurve = key.publicKey();
        offCurve[64] = char(offCurve[64] ^ 1);
        QVERIFY(!DeviceKey::verify(offCurve, "hello", sig));
        QVERIFY(!DeviceKey::verify(QByteArray(65, '\0'), "hello", sig));
    }

    // Paired on the desktop's word, the phone reads the card as text and approves it once; the
    // signed decision is in the audit chain, the decision as phone:<name>.
    void paired_readsCards_andApproves_signedIntoTheChain()
    {
        TestKey key;
        const QString secret = m_pairing->start();
        QSignalSpy offered(m_pairing.get(), &PhonePairing::offered);
        const Answer offer =
            send("POST", "/api/pair",
                 QByteArray::fromStdString(json{{"secret", secret.toStdString()},
                                                {"name", "pixel \u202E7"},
                                                {"publicKey", b64url(key.publicKey()).toStdString()}}
                                               .dump()));
        QCOMPARE(offer.status, 200);
        QCOMPARE(QString::fromStdString(offer.body.at("code").get<std::string>()),
                 PhonePairing::code(secret, key.publicKey()));
        QCOMPARE(offered.size(), 1);
        const QByteArray offerPath =
            "/api/pair/" + QByteArray::fromStdString(offer.body.at("offer").get<std::string>());
        QCOMPARE_JSON(send("GET", offerPath).body.at("state"), json("waiting"));
        const QString device =
            m_pairing->confirm(QString::fromStdString(offer.body.at("offer").get<std::string>())).value().id;
        const Answer state = send("GET", offerPath);
        QCOMPARE_JSON(state.body.at("state"), json("paired"));
        QCOMPARE(QString::fromStdString(state.body.at("device").get<std::string>()), device);
        QCOMPARE(m_devices->find(device)->name, QStringLiteral("pixel")); // no override, no digits

        const Operation op = card(Risk::High);
        const Answer cards = post(sign(key, device, "POST", "/api/cards", json::object()));
        QCOMPARE(cards.status, 200);
        QCOMPARE(cards.body.at("cards").size(), size_t(1));
        const json c = cards.body.at("cards").at(0);
        QCOMPARE_JSON(c.at("title"),
                      json("Delete build\u27e6U+202E\u27e7txt.exe")); // marked, as the window shows it
        QCOMPARE_JSON(c.at("typed"), json("build"));
        // The window's words: what it reaches, that it cannot be taken back, the rule that asked.
        QCOMPARE_JSON(c.at("blastRadius"), json("3 files"));
        QCOMPARE_JSON(c.at("irreversible"), json(true));
        QCOMPARE_JSON(c.at("rule"), json("no rule matched: default ask"));
        QCOMPARE(QString::fromStdString(c.at("planDigest").get<std::string>()), op.planDigest);

        // High risk: the typed confirmation, as in the window.
        QCOMPARE(post(sign(key, device, "POST", "/api/decide",
                           decision(op, "approve", {}, QStringLiteral("buil"))))
                     .status,
                 409);
        const Answer approved = post(
            sign(key, device, "POST", "/api/decide", decision(op, "approve", {}, QStringLiteral("build"))));
        QCOMPARE(approved.status, 200);
        QCOMPARE_JSON(approved.body.at("outcome"), json("approved"));
        QVERIFY(m_queue->pending().isEmpty());
        auto events = m_store->eventsOf(op.nonce, QStringLiteral("phone-decision"));
        QVERIFY(events.ok());
        QCOMPARE(events.value().size(), 1); // the refused attempt took nothing, and is not on record
        const json signedDecision = events.value().last();
        QCOMPARE_JSON(signedDecision.at("name"), json("pixel"));
        const QByteArray message = QByteArray::fromStdString(signedDecision.at("signed").get<std::string>());
        QVERIFY(DeviceKey::verify(
            QByteArray::fromHex(QByteArray::fromStdString(signedDecision.at("publicKey").get<std::string>())),
            message,
            QByteArray::fromBase64(
                QByteArray::fromStdString(signedDecision.at("signature").get<std::string>()),
                QByteArray::Base64UrlEncoding)));
        QVERIFY(message.contains(op.nonce.toLatin1()) && message.contains(op.planDigest.toLatin1()));
        auto decided = m_store->verifiedDecision(op.nonce);
        QCOMPARE(decided.value()->by, QStringLiteral("phone:pixel"));
    }

    void unpairedDevice_isRefused()
    {
        TestKey key;
        QCOMPARE(send("POST", "/api/challenge", R"({"device":"0123456789abcdef"})").status, 403);
        // A key that never paired, signing with another device's challenge.
        TestKey theirs;
        const QString device = paired(theirs, QStringLiteral("theirs"));
        const Signed forged = sign(key, device, "POST", "/api/cards", json::object());
        QCOMPARE(post(forged).status, 401);
        // No headers at all.
        QCOMPARE(send("POST", "/api/cards", "{}").status, 401);
    }

    void replayedDecision_isRefused()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        const Operation first = card();
        const Signed declined =
            sign(key, device, "POST", "/api/decide", decision(first, "decline", QStringLiteral("not now")));
        QCOMPARE(post(declined).status, 200);
        QCOMPARE(m_store->verifiedDecision(first.nonce).value()->reason, QStringLiteral("not now"));
        const Answer again = post(declined);
        QCOMPARE(again.status, 401);
        QVERIFY(again.raw.contains("used already"));
    }

    void decisionSignedForAnotherCardOrPlan_isRefused()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        const Operation a = card();
        const Operation b = card();
        // The body changed after signing (another card's nonce): the signature no longer matches.
        Signed swapped = sign(key, device, "POST", "/api/decide", decision(a, "approve"));
        swapped.body.replace(a.nonce.toLatin1(), b.nonce.toLatin1());
        QCOMPARE(post(swapped).status, 401);
        // Signed for card a with card b's plan digest.
        json wrongPlan = decision(a, "approve");
        wrongPlan["planDigest"] = b.planDigest.toStdString() + "0";
        const Answer plan = post(sign(key, device, "POST", "/api/decide", wrongPlan));
        QCOMPARE(plan.status, 409);
        QVERIFY(plan.raw.contains("plan"));
        // A decision signed an hour ago.
        json stale = decision(a, "approve");
        stale["time"] = m_clock.nowMs() - 3'600'000;
        QCOMPARE(post(sign(key, device, "POST", "/api/decide", stale)).status, 400);
        QCOMPARE(m_queue->pending().size(), 2);
    }

    void deviceRevokedMidSession_losesItsStream_andIsRefused()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        QNetworkReply *stream = openEvents(key, device);
        QByteArray seen;
        connect(stream, &QNetworkReply::readyRead, this, [&] { seen += stream->readAll(); });
        QTRY_VERIFY(seen.contains("event: cards"));
        card();
        QTRY_VERIFY(seen.count("event: cards") == 2); // a new card is announced
        QVERIFY(m_devices->revoke(device).ok());
        m_server->deviceRevoked(device);
        QTRY_VERIFY(seen.contains("event: revoked"));
        QTRY_VERIFY(stream->isFinished());
        stream->deleteLater();
        QCOMPARE(send("POST", "/api/challenge",
                      QByteArray::fromStdString(json{{"device", device.toStdString()}}.dump()))
                     .status,
                 403);
    }

    // Revoked by another process (`countersign phone revoke` with the console running): at the next
    // announcement the device's stream ends, and the console's list, file included, says revoked.
    void deviceRevokedElsewhere_losesItsStream_andStaysRevokedInTheFile()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        QNetworkReply *stream = openEvents(key, device);
        QByteArray seen;
        connect(stream, &QNetworkReply::readyRead, this, [&] { seen += stream->readAll(); });
        QTRY_VERIFY(seen.contains("event: cards"));
        PhoneDevices elsewhere(m_dir.filePath(QStringLiteral("phone/devices.json")), m_clock, *m_store);
        QVERIFY(elsewhere.load().ok());
        QVERIFY(elsewhere.revoke(device).ok());
        QVERIFY(!m_devices->find(device)->revoked()); // this console's list has not heard of it
        card();
        QTRY_VERIFY(seen.contains("event: revoked"));
        QTRY_VERIFY(stream->isFinished());
        stream->deleteLater();
        QVERIFY(m_devices->find(device)->revoked());
        PhoneDevices reread(m_dir.filePath(QStringLiteral("phone/devices.json")), m_clock, *m_store);
        QVERIFY(reread.load().ok());
        QVERIFY(reread.find(device)->revoked());
    }

    // A secret works once and for two minutes. Wrong guesses burn nothing (a stranger on the Wi-Fi
    // could otherwise stop every pairing) and are counted for the dialog; every refusal reads the
    // same, pairing open or not; a used secret offered again is warned of on both screens.
    void pairingSecret_isSingleUse_expires_survivesGuessing_andWarnsOfASecondOffer()
    {
        TestKey key, stranger;
        const auto offer = [&](const QString &secret, const TestKey &by = TestKey()) {
            return send("POST", "/api/pair",
                        QByteArray::fromStdString(json{{"secret", secret.toStdString()},
                                                       {"name", "x"},
                                                       {"publicKey", b64url(by.publicKey()).toStdString()}}
                                                      .dump()));
        };
        const QByteArray closed = offer(QStringLiteral("guess")).raw; // none open
        QSignalSpy wrong(m_pairing.get(), &PhonePairing::wrongOffer);
        QSignalSpy reused(m_pairing.get(), &PhonePairing::secretReused);
        QString secret = m_pairing->start();
        for (int i = 0; i < 20; ++i) {
            const Answer guessed = offer(QStringLiteral("guess%1").arg(i));
            QCOMPARE(guessed.status, 403);
            QCOMPARE(guessed.raw, closed); // the same answer as when no pairing is open
        }
        QCOMPARE(wrong.size(), 20);
        QCOMPARE(wrong.last().at(0).toInt(), 20);
        QCOMPARE(offer(secret, stranger).status, 200); // not burnt by the guesses
        const Answer second = offer(secret, key);
        QCOMPARE(second.status, 403);
        QVERIFY2(second.raw.contains("another phone has already offered this code"), second.raw.constData());
        QCOMPARE(reused.size(), 1);
        secret = m_pairing->start();
        m_clock.advance(PhonePairing::kSecretLifetimeMs);
        const Answer expired = offer(secret);
        QCOMPARE(expired.status, 403); // expired
        QCOMPARE(expired.raw, closed);
        QVERIFY(m_devices->all().isEmpty());
    }

    // A name is letters, spaces and . - ' after compatibility folding: no separator or look-alike
    // that makes "phone:NAME" read as two people, no invisible letter, no digits posing as the code.
    void pairingNames_foldLookAlikes_dropDigits_andInvisibleLetters()
    {
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("x\uFF0C console\uA789alice")),
                 QStringLiteral("x consolealice"));
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("Pixel 8 - code 906 996 - type it")),
                 QStringLiteral("Pixel - code - type it"));
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("\uFF19\uFF10\uFF16 Anna's phone")),
                 QStringLiteral("Anna's phone"));
        QVERIFY(PhoneDevices::pairingName(QStringLiteral("\u3164\u3164 \u115F")).isEmpty());
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("Jos\u00E9\u200B")), QStringLiteral("Jos\u00E9"));
        // One script: look-alikes of another go, and Latin's rare letters shaped like digits.
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("\u0441onsole alice")),
                 QStringLiteral("onsole alice"));
        QCOMPARE(PhoneDevices::pairingName(
                     QStringLiteral("Pixel code \u041El\u01BB\u0417\u13CE\u01BC\u0431\u0222")),
                 QStringLiteral("Pixel code l"));
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("\u0218tefan's \u0141\u00F3d\u017A")),
                 QStringLiteral("\u0218tefan's \u0141\u00F3d\u017A"));
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("\u592A\u90CE\u306EiPhone")),
                 QStringLiteral("iPhone")); // the script most of its letters are in
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("\u592A\u90CE\u306E\u643A\u5E2F")),
                 QStringLiteral("\u592A\u90CE\u306E\u643A\u5E2F")); // kanji and kana: one name
        QCOMPARE(PhoneDevices::pairingName(QStringLiteral("\u0422\u0435\u043B\u0435\u0444\u043E\u043D")),
                 QStringLiteral("\u0422\u0435\u043B\u0435\u0444\u043E\u043D"));
        TestKey key;
        QVERIFY(paired(key, QStringLiteral("\u3164")).isEmpty()); // nothing left: refused
    }

    void pairingWithoutTheDesktopsConfirmation_pairsNothing()
    {
        TestKey key;
        const QString secret = m_pairing->start();
        const Answer offer =
            send("POST", "/api/pair",
                 QByteArray::fromStdString(json{{"secret", secret.toStdString()},
                                                {"name", "x"},
                                                {"publicKey", b64url(key.publicKey()).toStdString()}}
                                               .dump()));
        QCOMPARE(offer.status, 200);
        QVERIFY(m_devices->all().isEmpty());
        m_clock.advance(PhonePairing::kConfirmWithinMs);
        const QByteArray path =
            "/api/pair/" + QByteArray::fromStdString(offer.body.at("offer").get<std::string>());
        QCOMPARE_JSON(send("GET", path).body.at("state"), json("lapsed"));
        QVERIFY(!m_pairing->confirm(QString::fromStdString(offer.body.at("offer").get<std::string>())).ok());
        QVERIFY(m_devices->all().isEmpty());
    }

    // Another process of the user writes a device into devices.json, or takes a revocation out of it:
    // the audit chain holds no such pairing (or holds the revocation), and the device cannot act.
    void devicesFile_editedAroundTheChain_countsForNothing()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        QVERIFY(!challengeFor(device).isEmpty());
        QVERIFY(m_devices->revoke(device).ok());
        const QString path = m_dir.filePath(QStringLiteral("phone/devices.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        json doc = json::parse(file.readAll().toStdString());
        file.close();
        doc["devices"][0]["revokedMs"] = 0; // the revocation taken out
        TestKey forged;
        doc["devices"].push_back({{"id", "00112233aabbccdd"},
                                  {"name", "forged"},
                                  {"publicKey", forged.publicKey().toHex().toStdString()},
                                  {"pairedMs", m_clock.nowMs()}}); // never paired
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(QByteArray::fromStdString(doc.dump()));
        file.close();
        QVERIFY(m_devices->load().ok());
        QVERIFY(!m_devices->find(device)->revoked());
        QCOMPARE(send("POST", "/api/challenge",
                      QByteArray::fromStdString(json{{"device", device.toStdString()}}.dump()))
                     .status,
                 403);
        QCOMPARE(send("POST", "/api/challenge", R"({"device":"00112233aabbccdd"})").status, 403);
        // A file that cannot be read is never written over.
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("{\"devices\": [{\"id\": 3}]}");
        file.close();
        QVERIFY(!m_devices->load().ok());
        QVERIFY(!m_devices->add(QStringLiteral("x"), key.publicKey()).ok());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("{\"devices\": [{\"id\": 3}]}"));
    }

    // Nothing the page never sends is parsed in the window's thread; a card too long to show whole
    // on the phone can only be declined there; a name cannot read as two people.
    void oversizedBodies_cutCards_andNames()
    {
        QCOMPARE(send("POST", "/api/pair", QByteArray(5000, ' ') + "{}").status, 413);
        QCOMPARE(send("POST", "/api/pair", R"({"secret":"x"})").status, 403); // none open
        TestKey key;
        const QString device = paired(key, QStringLiteral("x, console:alice"));
        QCOMPARE(m_devices->find(device)->name, QStringLiteral("x consolealice"));
        Operation op = card();
        QVERIFY(m_queue->decline(op.nonce, QStringLiteral("console:test")).ok());
        op.nonce = QStringLiteral("long");
        op.plan.diff = QString(70'000, QLatin1Char('a')) + QStringLiteral("\nrm -rf ~");
        op.planDigest = op.plan.digest();
        QVERIFY(m_store->recordCard(op).ok());
        m_queue->park(op);
        const Answer cards = post(sign(key, device, "POST", "/api/cards", json::object()));
        QCOMPARE_JSON(cards.body.at("cards").at(0).at("truncated"), json(true));
        const Answer approve = post(sign(key, device, "POST", "/api/decide", decision(op, "approve")));
        QCOMPARE(approve.status, 409);
        QVERIFY(approve.raw.contains("too long"));
        QCOMPARE(post(sign(key, device, "POST", "/api/decide", decision(op, "decline"))).status, 200);
    }

    // The window holds Approve for the console's minimum time on screen; the server holds the phone
    // to the same, from when it first gave this phone the card (a signed approval sent at once, the
    // page's own wait skipped, is refused). A decline needs no wait; a reason is bounded.
    void approval_waitsTheCardMinimum_fromWhenThisPhoneWasShownTheCard()
    {
        m_server->setCardMinimumMs(10'000);
        TestKey key, other;
        const QString device = paired(key, QStringLiteral("pixel"));
        const QString second = paired(other, QStringLiteral("tablet"));
        const Operation op = card(Risk::Low);
        const Answer unseen = post(sign(key, device, "POST", "/api/decide", decision(op, "approve")));
        QCOMPARE(unseen.status, 409);
        QVERIFY2(unseen.raw.contains("not been shown"), unseen.raw.constData());
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", json::object())).status, 200);
        m_clock.advance(50);
        const Answer early = post(sign(key, device, "POST", "/api/decide", decision(op, "approve")));
        QCOMPARE(early.status, 409);
        QVERIFY2(early.raw.contains("approved 10 s after it is shown"), early.raw.constData());
        m_clock.advance(9'000);
        QCOMPARE(post(sign(other, second, "POST", "/api/cards", json::object())).status, 200);
        m_clock.advance(1'000);
        // Ten seconds on the first phone; one on the second, whose approval still waits.
        QCOMPARE(post(sign(other, second, "POST", "/api/decide", decision(op, "approve"))).status, 409);
        QCOMPARE(m_queue->pending().size(), 1);
        QCOMPARE(post(sign(key, device, "POST", "/api/decide", decision(op, "approve"))).status, 200);
        QVERIFY(m_queue->pending().isEmpty());

        const Operation declined = card(Risk::Low, "dist"); // another call: the approved one awaits its agent
        QCOMPARE(post(sign(key, device, "POST", "/api/decide",
                           decision(declined, "decline", QString(ApprovalQueue::kMaxReasonChars + 1, 'r'))))
                     .status,
                 400);
        QCOMPARE(m_queue->pending().size(), 1); // refused whole: the card waits
        QCOMPARE(m_store->eventsOf(declined.nonce, QStringLiteral("phone-decision")).value().size(), 0);
        QVERIFY(!m_queue
                     ->decline(declined.nonce, QStringLiteral("console:test"),
                               QString(ApprovalQueue::kMaxReasonChars + 1, 'r'))
                     .ok());
        const Answer taken = post(
            sign(key, device, "POST", "/api/decide", decision(declined, "decline", QStringLiteral("no"))));
        QVERIFY2(taken.status == 200, taken.raw.constData());
        QVERIFY(m_queue->pending().isEmpty());
    }

    // An IPv6 address written out in full is the same address: the same certificate, and the Host a
    // browser sends (the shortest form) is this listener's.
    // Seen for sure (issue 51): a card counts as seen on a phone only when its page was visible.
    void cardsRead_byAHiddenPage_areNotSeen_byAVisibleOne_are()
    {
        CardSightings sightings(*m_queue, *m_store, m_clock);
        m_server->setSightings(&sightings);
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        const Operation op = card(Risk::Low);
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", json::object())).status, 200);
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", {{"visible", false}})).status, 200);
        QVERIFY(!sightings.seenOf(op.nonce));
        m_clock.advance(2'000);
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", {{"visible", true}})).status, 200);
        const auto seen = sightings.seenOf(op.nonce);
        QVERIFY(seen);
        QCOMPARE(seen->where, QStringLiteral("phone:pixel"));
        QCOMPARE(seen->atMs, m_clock.nowMs());
        QCOMPARE(m_store->eventsOf(op.nonce, QStringLiteral("card-seen")).value().size(), 1);
        m_clock.advance(1'000); // seen again: the first sighting stands
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", {{"visible", true}})).status, 200);
        QCOMPARE(m_store->eventsOf(op.nonce, QStringLiteral("card-seen")).value().size(), 1);
        m_server->setSightings(nullptr);
    }

    // From now on, on the phone (issue 51): the live grants are listed and revocable there.
    void grants_areListed_andRevokedByThePhone()
    {
        Grants grants(*m_store, m_clock, m_signer);
        QVERIFY(grants.load().ok());
        m_server->setGrants(&grants);
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        Operation op = card(Risk::Low);
        Grant offer = Grant::offersFor(op, Verdict::Allow).first();
        offer.by = QStringLiteral("console:alice");
        offer.expiresMs = m_clock.nowMs() + 3'600'000;
        QVERIFY(grants.add(offer).ok());
        const Answer listed = post(sign(key, device, "POST", "/api/grants", json::object()));
        QCOMPARE(listed.status, 200);
        QCOMPARE(listed.body.at("grants").size(), size_t(1));
        const json g = listed.body.at("grants").at(0);
        QCOMPARE(QString::fromStdString(g.at("id").get<std::string>()), offer.id);
        QCOMPARE_JSON(g.at("verdict"), json("allow"));
        QVERIFY(QString::fromStdString(g.at("covers").get<std::string>())
                    .startsWith(QLatin1String("exactly this call")));
        QCOMPARE_JSON(g.at("uses"), json(0));
        QCOMPARE(post(sign(key, device, "POST", "/api/grants/revoke", {{"id", "0000000000000000"}})).status,
                 404);
        const Answer revoked =
            post(sign(key, device, "POST", "/api/grants/revoke", {{"id", offer.id.toStdString()}}));
        QCOMPARE(revoked.status, 200);
        QCOMPARE(revoked.body.at("grants").size(), size_t(0));
        QVERIFY(grants.live().isEmpty());
        const auto rows =
            m_store->eventsOf(QStringLiteral("grant:") + offer.id, QStringLiteral("grant-revoked")).value();
        QCOMPARE(rows.size(), 1);
        QCOMPARE_JSON(rows.first().at("by"), json("phone:pixel"));
        // Unsigned, or by a phone not paired: nothing listed, nothing revoked.
        QCOMPARE(send("POST", "/api/grants", "{}").status, 401);
        m_server->setGrants(nullptr);
    }

    void ipv6Address_inAnyForm_isOneAddress()
    {
        const QString folder = m_dir.filePath(QStringLiteral("phone6"));
        auto shortForm = PhoneCertificate::loadOrMake(folder, QStringLiteral("::1"));
        QVERIFY2(shortForm.ok(), shortForm.ok() ? "" : qPrintable(shortForm.error()));
        auto longForm = PhoneCertificate::loadOrMake(folder, QStringLiteral("0:0:0:0:0:0:0:1"));
        QCOMPARE(longForm.value().certificate, shortForm.value().certificate);
        PhoneServer six(*m_queue, *m_store, *m_devices, *m_pairing, m_clock);
        auto port = six.listen(QStringLiteral("0:0:0:0:0:0:0:1"), 0, longForm.value());
        if (!port.ok())
            QSKIP("this machine has no IPv6 loopback to listen on");
        QCOMPARE(six.url(), QStringLiteral("https://[::1]:%1/").arg(port.value()));
    }

    void phoneAddress_isOneIpAddress()
    {
        QVERIFY(Config::parsePhoneListen(QStringLiteral("192.168.1.20:8443")).ok());
        QVERIFY(Config::parsePhoneListen(QStringLiteral("[fe80::1]:8443")).ok());
        for (const char *bad : {"desktop.local:8443", "0.0.0.0:8443", "[::]:8443", "192.168.1.20:0",
                                "192.168.1.256:8443", "192.168.1.20"})
            QVERIFY2(!Config::parsePhoneListen(QString::fromLatin1(bad)).ok(), bad);
    }

    // A stranger on another address who knows a phone's id takes challenges for it until refused;
    // the phone, asking from its own address, still gets one.
    void challengesForAPhone_takenByAStranger_lockOnlyTheStrangerOut()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        const QByteArray body = QByteArray::fromStdString(json{{"device", device.toStdString()}}.dump());
        int refusedAt = -1;
        for (int i = 0; i < 20 && refusedAt < 0; ++i) {
            if (challengeStatusFrom(QStringLiteral("127.0.0.3"), body) == 429)
                refusedAt = i;
        }
        QCOMPARE(refusedAt, 16);
        QVERIFY(!challengeFor(device).isEmpty()); // the phone's own address is not locked out
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", json::object())).status, 200);
        // From many addresses the stranger fills the listener's 256: its own challenges go first,
        // and the one the phone took before is still good.
        const Signed pending = sign(key, device, "POST", "/api/cards", json::object());
        for (int address = 4; address < 21; ++address) {
            for (int i = 0; i < 16; ++i)
                QCOMPARE(challengeStatusFrom(QStringLiteral("127.0.0.%1").arg(address), body), 200);
        }
        QCOMPARE(post(pending).status, 200);
    }

    // Sockets that pipeline requests and never read the answers each hold buffers: a stranger's
    // flood of them is bounded by the listener's connection cap, and the phone still gets in.
    void pipeliningFlood_isBoundedByTheConnectionCap()
    {
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        const QUrl url(m_base);
        std::vector<std::unique_ptr<QSslSocket>> flood;
        for (int i = 0; i < PhoneServer::kMaxConnections + 16; ++i) {
            auto socket = std::make_unique<QSslSocket>();
            QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
            tls.setCaCertificates({m_certificate.certificate});
            socket->setSslConfiguration(tls);
            socket->setReadBufferSize(1); // reads next to nothing of the answers
            QSignalSpy encrypted(socket.get(), &QSslSocket::encrypted);
            socket->connectToHostEncrypted(url.host(), quint16(url.port()));
            QVERIFY(encrypted.wait(5000) || socket->state() != QAbstractSocket::ConnectedState);
            QByteArray requests;
            for (int r = 0; r < 8; ++r)
                requests += "GET /phone.js HTTP/1.1\r\nHost: " + url.authority().toLatin1() + "\r\n\r\n";
            socket->write(requests);
            flood.push_back(std::move(socket));
        }
        QTest::qWait(500);
        QVERIFY2(m_server->connectionCount() <= PhoneServer::kMaxConnections,
                 qPrintable(QString::number(m_server->connectionCount())));
        QCOMPARE(post(sign(key, device, "POST", "/api/cards", json::object())).status, 200);
    }

    // A client that offers only TLS 1.2's CBC suites with a SHA-1 MAC gets no connection.
    void tls_takesForwardSecretAeadSuitesOnly()
    {
        const QUrl url(m_base);
        const auto handshake = [&](const QString &cipher) {
            QSslSocket socket;
            QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
            tls.setCaCertificates({m_certificate.certificate});
            tls.setProtocol(QSsl::TlsV1_2);
            tls.setCiphers({QSslCipher(cipher)});
            socket.setSslConfiguration(tls);
            QSignalSpy encrypted(&socket, &QSslSocket::encrypted);
            QSignalSpy failed(&socket, &QSslSocket::errorOccurred);
            socket.connectToHostEncrypted(url.host(), quint16(url.port()));
            for (int i = 0; i < 50 && encrypted.isEmpty() && failed.isEmpty(); ++i)
                QTest::qWait(100); // the listener runs on this thread
            return !encrypted.isEmpty();
        };
        QVERIFY(!QSslCipher(QStringLiteral("ECDHE-ECDSA-AES128-SHA")).isNull());
        QVERIFY(!handshake(QStringLiteral("ECDHE-ECDSA-AES128-SHA")));
        QVERIFY(handshake(QStringLiteral("ECDHE-ECDSA-AES128-GCM-SHA256")));
    }

    void onlyThePage_fromItsOwnHostAndOrigin()
    {
        QCOMPARE(send("GET", "/mcp").status, 404);
        QCOMPARE(send("POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"initialize"})").status, 404);
        QCOMPARE(send("GET", "/approvals/n1").status, 404);
        const Answer page = send("GET", "/");
        QCOMPARE(page.status, 200);
        QVERIFY(page.raw.contains("<script src=\"/phone.js\""));
        QCOMPARE(send("GET", "/phone.js").status, 200);
        QCOMPARE(send("GET", "/", {}, {{"Host", "evil.example:443"}}).status, 421);
        QCOMPARE(send("POST", "/api/challenge", "{}", {}, false).status, 403); // no Origin
        QCOMPARE(send("POST", "/api/challenge", "{}", {{"Origin", "https://evil.example"}}, false).status,
                 403);
    }
};

QTEST_GUILESS_MAIN(PhoneServerTest)
#include "phoneserver_test.moc"
