#include "receipt.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class ReceiptTest : public QObject
{
    Q_OBJECT
private:
    const ReceiptSigner m_signer{QByteArray(32, '\x01')};
    json signedReceipt() const
    {
        return m_signer.sign(
            {{"v", 1}, {"nonce", "abc"}, {"approver", "console:alice"}, {"decidedAt", 17}, {"tool", "x"}});
    }

private Q_SLOTS:
    void signed_verifies() { QVERIFY(ReceiptSigner::verify(signedReceipt(), m_signer.publicKey()).ok()); }
    void anyFieldChanged_fails_data()
    {
        QTest::addColumn<QString>("field");
        for (const char *f : {"v", "nonce", "approver", "decidedAt", "tool", "publicKey", "alg"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void anyFieldChanged_fails()
    {
        QFETCH(QString, field);
        json r = signedReceipt();
        const std::string key = field.toStdString();
        r[key] = r[key].is_string() ? json(r[key].get<std::string>() + "x") : json(r[key].get<int>() + 1);
        QVERIFY(!ReceiptSigner::verify(r, m_signer.publicKey()).ok());
    }
    void addedField_fails()
    {
        json r = signedReceipt();
        r["outcome"] = "succeeded";
        QVERIFY(!ReceiptSigner::verify(r, m_signer.publicKey()).ok());
    }
    void otherKey_isNotTrusted()
    {
        const ReceiptSigner other(QByteArray(32, '\x02'));
        const json r = other.sign({{"nonce", "abc"}});
        const Status s = ReceiptSigner::verify(r, m_signer.publicKey());
        QVERIFY(!s.ok());
        QVERIFY(s.error().contains(QLatin1String("not the trusted key")));
    }
    void malformed_isRefused_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("array") << QByteArray("[]");
        QTest::newRow("no signature") << QByteArray(R"({"alg":"Ed25519","publicKey":"AA=="})");
        QTest::newRow("bad base64") << QByteArray(R"({"alg":"Ed25519","publicKey":"!!","signature":"!!"})");
        QTest::newRow("wrong alg") << QByteArray(R"({"alg":"none","publicKey":"AA==","signature":"AA=="})");
    }
    void malformed_isRefused()
    {
        QFETCH(QByteArray, text);
        QVERIFY(!ReceiptSigner::verify(json::parse(text.toStdString()), m_signer.publicKey()).ok());
    }
    void resultDigest_isTheSameWithTheReceiptAndTheDispatchersFraming_andChangesWithTheContent()
    {
        const json produced = {{"content", json::array({{{"type", "text"}, {"text", "deleted"}}})}};
        json received = produced;
        received["resultType"] = "complete";
        received["_meta"] = {{ReceiptSigner::kResultMetaKey, {{"sig", "x"}}},
                             {ReceiptSigner::kServerInfoMetaKey, {{"name", "countersign"}}}};
        QCOMPARE(ReceiptSigner::resultDigest(received), ReceiptSigner::resultDigest(produced));
        json edited = received;
        edited["content"][0]["text"] = "deleteD";
        QVERIFY(ReceiptSigner::resultDigest(edited) != ReceiptSigner::resultDigest(produced));
        json inputRequired = received;
        inputRequired["resultType"] = "input_required";
        QVERIFY(ReceiptSigner::resultDigest(inputRequired) != ReceiptSigner::resultDigest(produced));
    }
};

QTEST_GUILESS_MAIN(ReceiptTest)
#include "receipt_test.moc"
