#pragma once

// The phone's listener over real TLS on 127.0.0.2, for the phone's tests (phoneserver_test,
// phonelistener_test): its certificate made for that address and trusted by the test's client
// alone, a store and queue in memory, a fake clock, and the page's requests: pairing through the
// desktop's confirmation, requests signed with a P-256 key as a browser's WebCrypto signs them,
// the signed event stream, and challenges asked from another local address.
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

namespace Countersign::PhoneTests {

using json = nlohmann::json;

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

inline QByteArray b64url(const QByteArray &bytes)
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

// The listener and what it decides on, made again for each test (setUp in init, tearDown in
// cleanup), and the page's side of the wire.
class PhoneFixture : public QObject
{
protected:
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
        op.plan.request = QStringLiteral("You asked Claude Code: \u201cclean build\u202E\u201d.");
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

    void setUp()
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
    void tearDown()
    {
        m_server.reset();
        m_pairing.reset();
        m_devices.reset();
        m_queue.reset();
        m_store.reset();
        m_db.reset();
        QFile::remove(m_dir.filePath(QStringLiteral("phone/devices.json")));
    }
};

} // namespace Countersign::PhoneTests
