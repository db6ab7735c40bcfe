// The phone's listener (issue 29) against the network: its certificate, the devices' signatures,
// bodies and names too long, addresses in any form, challenges taken by a stranger, a pipelining
// flood, TLS suites, and any path, host or origin but the page's.
#include "phonefixture.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "canonicaljson.h"
#include "cardsightings.h"
#include "grants.h"
#include "jsoncompare.h"
#include "phonedevices.h"

#include <QTest>

using namespace Countersign;
using namespace Countersign::PhoneTests;

class PhoneListenerTest : public PhoneFixture
{
    Q_OBJECT
private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

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

QTEST_GUILESS_MAIN(PhoneListenerTest)
#include "phonelistener_test.moc"
