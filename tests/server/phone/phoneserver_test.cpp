// The phone's decisions (issue 29): pairing confirmed (or not) on the desktop's side, cards read
// and decided with signed requests into the audit chain, grants listed and revoked, cards seen, and
// the attacks: an unpaired device, a replayed decision, one signed for another card or plan, a
// device revoked mid-session or elsewhere, a used or expired pairing secret, look-alike names,
// pairing with no confirmation, a devices file edited around the chain, an approval too soon.
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

class PhoneServerTest : public PhoneFixture
{
    Q_OBJECT
private Q_SLOTS:
    void init() { setUp(); }
    void cleanup() { tearDown(); }

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
        // What the user asked, said first as the window says it: visible text.
        QCOMPARE_JSON(c.at("face").at("request"),
                      json("You asked Claude Code: \u201cclean build\u27e6U+202E\u27e7\u201d."));
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

    // Escalation to the phone (issue 51): a card nobody has seen cardUnseenSeconds after it came is
    // told to every paired page again, its nonce alone ("unseen"); a seen card never is.
    void unseenCard_isToldToThePhoneAgain()
    {
        CardSightings sightings(*m_queue, *m_store, m_clock);
        sightings.setUnseenAfterMs(5'000);
        m_server->setSightings(&sightings);
        TestKey key;
        const QString device = paired(key, QStringLiteral("pixel"));
        QNetworkReply *stream = openEvents(key, device);
        QByteArray heard;
        connect(stream, &QNetworkReply::readyRead, this, [&] { heard += stream->readAll(); });
        QTRY_VERIFY(heard.contains("event: cards"));
        const Operation seenOne = card(Risk::Low);
        QVERIFY(sightings.markSeen(seenOne.nonce, QStringLiteral("window")).ok());
        const Operation op = card(Risk::Low);
        QTest::qWait(1'200);
        QVERIFY(!heard.contains("event: unseen")); // not yet: 5 s
        m_clock.advance(6'000);
        QTRY_VERIFY(heard.contains("event: unseen\ndata: " + op.nonce.toLatin1().toHex() + "\n\n"));
        QVERIFY(!heard.contains(seenOne.nonce.toLatin1().toHex()));
        QCOMPARE(heard.count("event: unseen"), 1);
        stream->abort();
        stream->deleteLater();
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
};

QTEST_GUILESS_MAIN(PhoneServerTest)
#include "phoneserver_test.moc"
