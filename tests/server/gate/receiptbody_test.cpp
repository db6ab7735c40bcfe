// The receipt body: what it binds (ticket, decision, times, the result's digest), the outcome read
// from a result whatever its isError holds, and _meta keys the result already had kept.
#include "canonicaljson.h"
#include "jsoncompare.h"
#include "receiptbody.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class ReceiptBodyTest : public QObject
{
    Q_OBJECT
private:
    static Ticket ticket()
    {
        Ticket t;
        t.sub = QStringLiteral("agent");
        t.client = QStringLiteral("cli");
        t.op = QStringLiteral("delete_service");
        t.argsDigest = QStringLiteral("aa");
        t.planDigest = QStringLiteral("bb");
        t.nonce = QStringLiteral("0123456789abcdef0123456789abcdef");
        t.iat = 1000;
        t.exp = 2000;
        return t;
    }

private Q_SLOTS:
    void make_bindsTicketDecisionTimesAndResultDigest()
    {
        const json result = {{"content", json::array({{{"type", "text"}, {"text", "done"}}})}};
        const Decision d{Operation::Status::Approved, QStringLiteral("console:alice"), {}, 1500};
        const json head = {{"seq", 42}, {"hash", "cafe"}};
        const json body = ReceiptBody::make(ticket(), d, 1600, 1700, result, head);
        QCOMPARE_JSON(body.at("auditHead"), head);
        QCOMPARE_JSON(body.at("nonce"), json("0123456789abcdef0123456789abcdef"));
        QCOMPARE_JSON(body.at("connection"), json("agent"));
        QCOMPARE_JSON(body.at("approver"), json("console:alice"));
        QCOMPARE_JSON(body.at("argsDigest"), json("aa"));
        QCOMPARE_JSON(body.at("planDigest"), json("bb"));
        QCOMPARE_JSON(body.at("decidedAt"), json(1500));
        QCOMPARE_JSON(body.at("mintedAt"), json(1000));
        QCOMPARE_JSON(body.at("consumedAt"), json(1600));
        QCOMPARE_JSON(body.at("finishedAt"), json(1700));
        QCOMPARE_JSON(body.at("outcome"), json("succeeded"));
        QCOMPARE_JSON(body.at("resultDigest"), json(CanonicalJson::digest(result).toStdString()));
        QVERIFY(!body.contains("diffDigest"));
        // The diff the card showed (the work a git reset --hard discarded) is named when given.
        const json withDiff =
            ReceiptBody::make(ticket(), d, 1600, 1700, result, head, QStringLiteral("d1ff"));
        QCOMPARE_JSON(withDiff.at("diffDigest"), json("d1ff"));
    }
    void make_outcome_data()
    {
        QTest::addColumn<QByteArray>("result");
        QTest::addColumn<QString>("outcome");
        QTest::newRow("isError true") << QByteArray(R"({"isError": true})") << "failed";
        QTest::newRow("isError false") << QByteArray(R"({"isError": false})") << "succeeded";
        QTest::newRow("no isError") << QByteArray(R"({"content": []})") << "succeeded";
        QTest::newRow("isError a string") << QByteArray(R"({"isError": "yes"})") << "succeeded";
        QTest::newRow("not an object") << QByteArray(R"([1, 2])") << "succeeded";
    }
    void make_outcome()
    {
        QFETCH(QByteArray, result);
        QFETCH(QString, outcome);
        const json body =
            ReceiptBody::make(ticket(), Decision{}, 0, 0, json::parse(result.toStdString()), json());
        QCOMPARE(QString::fromStdString(body.at("outcome").get<std::string>()), outcome);
    }
    void attach_keepsOtherMetaKeys()
    {
        const json out =
            ReceiptBody::attach({{"_meta", {{"other", 1}}}, {"content", json::array()}}, {{"sig", "x"}});
        QCOMPARE_JSON(out.at("_meta").at("other"), json(1));
        QCOMPARE_JSON(out.at("_meta").at(ReceiptBody::kMetaKey), json({{"sig", "x"}}));
        const json replaced = ReceiptBody::attach({{"_meta", "not an object"}}, {{"sig", "y"}});
        QCOMPARE_JSON(replaced.at("_meta").at(ReceiptBody::kMetaKey), json({{"sig", "y"}}));
    }
};

QTEST_GUILESS_MAIN(ReceiptBodyTest)
#include "receiptbody_test.moc"
