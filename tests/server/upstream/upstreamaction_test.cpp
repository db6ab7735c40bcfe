// The pieces of an upstream tool that need no upstream: its default decision from annotations and
// settings, the arguments as a person reads them, a result's text, and results held to 1 MiB.
#include "upstreamaction.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class UpstreamActionTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultFor_followsAnnotations_unlessTheSettingsSay_data()
    {
        QTest::addColumn<QByteArray>("annotations");
        QTest::addColumn<QString>("decision"); // the tool's setting, or empty
        QTest::addColumn<int>("verdict");
        QTest::newRow("read-only: allowed")
            << QByteArray(R"({"readOnlyHint": true})") << QString() << int(Verdict::Allow);
        QTest::newRow("destructive: asks")
            << QByteArray(R"({"destructiveHint": true})") << QString() << int(Verdict::Ask);
        QTest::newRow("no annotations: asks") << QByteArray("{}") << QString() << int(Verdict::Ask);
        QTest::newRow("a mistyped readOnlyHint is not read-only")
            << QByteArray(R"({"readOnlyHint": "true"})") << QString() << int(Verdict::Ask);
        QTest::newRow("annotations not an object")
            << QByteArray(R"([true])") << QString() << int(Verdict::Ask);
        QTest::newRow("read-only, but the settings deny")
            << QByteArray(R"({"readOnlyHint": true})") << QStringLiteral("deny") << int(Verdict::Deny);
        QTest::newRow("destructive, but the settings allow")
            << QByteArray(R"({"destructiveHint": true})") << QStringLiteral("allow") << int(Verdict::Allow);
    }
    void defaultFor_followsAnnotations_unlessTheSettingsSay()
    {
        QFETCH(QByteArray, annotations);
        QFETCH(QString, decision);
        QFETCH(int, verdict);
        const json tool = {{"name", "t"},
                           {"inputSchema", {{"type", "object"}}},
                           {"annotations", json::parse(annotations.toStdString())}};
        UpstreamToolSettings settings;
        if (decision == QLatin1String("deny"))
            settings.decision = Verdict::Deny;
        else if (decision == QLatin1String("allow"))
            settings.decision = Verdict::Allow;
        QCOMPARE(int(UpstreamAction::defaultFor(tool, settings)), verdict);
    }
    void argumentsText_showsLongStringsAsText()
    {
        const json args = {{"path", "/srv/a.txt"}, {"content", "line one\nline \"two\"\n"}, {"mode", 420}};
        QCOMPARE(UpstreamAction::argumentsText(args),
                 QStringLiteral("content:\nline one\nline \"two\"\n\n\nmode: 420\npath: /srv/a.txt\n"));
    }
    void resultText_joinsTextAndNamesTheRest()
    {
        const json result = {{"content",
                              {{{"type", "text"}, {"text", "a"}},
                               {{"type", "image"}, {"data", "x"}},
                               7,
                               {{"type", "text"}, {"text", "b"}}}}};
        QCOMPARE(UpstreamAction::resultText(result), QStringLiteral("a\n[image content]\nb"));
        QCOMPARE(UpstreamAction::resultText({{"content", "not an array"}}), QString());
    }
    void capped_keepsSmallResults_andCutsLargeOnes()
    {
        const json small = {{"content", {{{"type", "text"}, {"text", "ok"}}}},
                            {"structuredContent", {{"n", 1}}}};
        QVERIFY(UpstreamAction::capped(small, QStringLiteral("fs")) == small);
        const std::string eightMiB(8 * 1024 * 1024, 'x');
        const json large = {
            {"content", {{{"type", "text"}, {"text", eightMiB}}, {{"type", "image"}, {"data", "y"}}}},
            {"structuredContent", {{"content", eightMiB}}},
            {"isError", true}};
        const json cut = UpstreamAction::capped(large, QStringLiteral("fs"));
        QVERIFY(cut.dump().size() <= 1024 * 1024);
        QCOMPARE(cut["content"].size(), 2u); // the text, cut, and the note; the image dropped
        QVERIFY(cut["content"][0]["text"].get<std::string>().size() < eightMiB.size());
        QVERIFY(QString::fromStdString(cut["content"][1]["text"].get<std::string>())
                    .startsWith(QLatin1String("[Countersign: the result of upstream fs was")));
        QVERIFY(!cut.contains("structuredContent"));
        QVERIFY(cut["isError"] == json(true));
    }
};

QTEST_GUILESS_MAIN(UpstreamActionTest)
#include "upstreamaction_test.moc"
