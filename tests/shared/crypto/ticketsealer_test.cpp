#include "ticketsealer.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Countersign;

namespace {
Ticket sample()
{
    Ticket t;
    t.sub = QStringLiteral("vscode");
    t.client = QStringLiteral("Claude Code");
    t.op = QStringLiteral("delete_service");
    t.argsDigest = QString(64, QLatin1Char('a'));
    t.planDigest = QString(64, QLatin1Char('b'));
    t.nonce = QString(32, QLatin1Char('c'));
    t.iat = 1'700'000'000'000;
    t.exp = 1'700'000'300'000;
    return t;
}
} // namespace

class TicketSealerTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void seal_thenOpen_givesTheSameTicket()
    {
        TicketSealer sealer(TicketSealer::generateKey(), QStringLiteral("k1"));
        QVERIFY(sealer.isValid());
        const QString sealed = sealer.seal(sample());
        QVERIFY(sealed.startsWith(QLatin1String("cs1.k1.")));
        auto opened = sealer.open(sealed);
        QVERIFY(opened.ok());
        Ticket expected = sample();
        expected.kid = QStringLiteral("k1");
        QCOMPARE(opened.value(), expected);
    }
    void seal_isRandomized_andHidesTheContent()
    {
        TicketSealer sealer(TicketSealer::generateKey(), QStringLiteral("k1"));
        const QString a = sealer.seal(sample());
        QVERIFY(a != sealer.seal(sample()));
        QVERIFY(!a.contains(QLatin1String("delete_service")));
        QVERIFY(
            !QByteArray::fromBase64(a.mid(7).toLatin1(), QByteArray::Base64UrlEncoding).contains("vscode"));
    }
    void open_anyFlippedBit_isRejected()
    {
        TicketSealer sealer(TicketSealer::generateKey(), QStringLiteral("k1"));
        const QByteArray sealed = sealer.seal(sample()).toLatin1();
        const QByteArray raw = QByteArray::fromBase64(sealed.mid(7), QByteArray::Base64UrlEncoding);
        int rejected = 0;
        for (qsizetype i = 0; i < raw.size(); ++i) {
            for (int bit = 0; bit < 8; ++bit) {
                QByteArray flipped = raw;
                flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
                const QString forged = QStringLiteral("cs1.k1.") +
                                       QString::fromLatin1(flipped.toBase64(QByteArray::Base64UrlEncoding |
                                                                            QByteArray::OmitTrailingEquals));
                if (!sealer.open(forged).ok())
                    ++rejected;
            }
        }
        QCOMPARE(rejected, int(raw.size() * 8));
    }
    void open_foreignKeyOrKid_isRejected()
    {
        const QByteArray key = TicketSealer::generateKey();
        TicketSealer sealer(key, QStringLiteral("k1"));
        const QString sealed = sealer.seal(sample());
        QVERIFY(!TicketSealer(TicketSealer::generateKey(), QStringLiteral("k1")).open(sealed).ok());
        TicketSealer otherKid(key, QStringLiteral("k2"));
        QVERIFY(!otherKid.open(sealed).ok());
        QString relabelled = sealed;
        relabelled.replace(0, 7, QStringLiteral("cs1.k2."));
        QVERIFY2(!otherKid.open(relabelled).ok(), "the kid is bound as associated data");
    }
    void open_garbage_isRejected_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("prefix only") << QStringLiteral("cs1.k1.");
        QTest::newRow("not base64") << QStringLiteral("cs1.k1.!!!!");
        QTest::newRow("too short") << QStringLiteral("cs1.k1.AAAA");
        QTest::newRow("other scheme") << QStringLiteral("v1.eyJwIjp7fX0.sig");
        QTest::newRow("huge") << QStringLiteral("cs1.k1.") + QString(100000, QLatin1Char('A'));
    }
    void open_garbage_isRejected()
    {
        QFETCH(QString, text);
        TicketSealer sealer(TicketSealer::generateKey(), QStringLiteral("k1"));
        auto r = sealer.open(text);
        QVERIFY(!r.ok());
        QCOMPARE(r.error(), QStringLiteral("invalid or foreign requestState"));
    }
    void construct_badKeyOrKid_isInvalid_andSealsNothing()
    {
        TicketSealer shortKey(QByteArray(16, 'x'), QStringLiteral("k1"));
        QVERIFY(!shortKey.isValid());
        QVERIFY(shortKey.seal(sample()).isEmpty());
        QVERIFY(!TicketSealer(TicketSealer::generateKey(), QStringLiteral("bad kid")).isValid());
    }
    void fromJson_missingOrMistypedField_isRefused()
    {
        nlohmann::json j = sample().toJson();
        QVERIFY(Ticket::fromJson(j).ok());
        j.erase("exp");
        QVERIFY(!Ticket::fromJson(j).ok());
        j = sample().toJson();
        j["exp"] = "later";
        QVERIFY(!Ticket::fromJson(j).ok());
        j = sample().toJson();
        j["v"] = 2;
        QVERIFY(!Ticket::fromJson(j).ok());
    }
};

QTEST_GUILESS_MAIN(TicketSealerTest)
#include "ticketsealer_test.moc"
