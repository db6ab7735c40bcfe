#include "canonicaljson.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class CanonicalJsonTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void serialize_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::newRow("keys sorted") << R"({"b":1,"a":2})"
                                     << R"({"a":2,"b":1})";
        QTest::newRow("nested sorted") << R"({"z":{"y":1,"x":[3,{"d":1,"c":2}]}})"
                                       << R"({"z":{"x":[3,{"c":2,"d":1}],"y":1}})";
        QTest::newRow("whitespace dropped") << "{ \"a\" : [ 1 , 2 ] }"
                                            << R"({"a":[1,2]})";
        QTest::newRow("integral double") << R"({"n":1.0})"
                                         << R"({"n":1})";
        QTest::newRow("fraction") << R"({"n":0.5})"
                                  << R"({"n":0.5})";
        QTest::newRow("big exponent") << R"({"n":1e30})"
                                      << R"({"n":1e+30})";
        QTest::newRow("negative zero") << R"({"n":-0.0})"
                                       << R"({"n":0})";
        const QString escaped = QStringLiteral("{\"s\":\"a\\\"b\\\\c\\n\\u0001\"}");
        QTest::newRow("escapes") << escaped << escaped;
        QTest::newRow("unicode kept") << R"({"s":"\u00e9"})" << QString::fromUtf8("{\"s\":\"\xC3\xA9\"}");
        // U+1F600 sorts before U+FFFF by UTF-16 code units (0xD83D < 0xFFFF), after it by code points.
        const QString astral = QString::fromUtf8("{\"\xF0\x9F\x98\x80\":1,\"\xEF\xBF\xBF\":2}");
        QTest::newRow("utf16 order") << astral << astral;
    }
    void serialize()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        const json value = json::parse(input.toStdString());
        QCOMPARE(QString::fromStdString(CanonicalJson::serialize(value)), expected);
    }

    void digest_equalValuesInAnyKeyOrder_areEqual()
    {
        const json a = json::parse(R"({"serviceName":"x","force":true,"n":[1,2]})");
        const json b = json::parse(R"({"n":[1,2],"force":true,"serviceName":"x"})");
        QCOMPARE(CanonicalJson::digest(a), CanonicalJson::digest(b));
        QCOMPARE(CanonicalJson::digest(a).size(), 64);
    }
    void digest_differentValues_differ()
    {
        QVERIFY(CanonicalJson::digest(json{{"serviceName", "x"}}) !=
                CanonicalJson::digest(json{{"serviceName", "y"}}));
    }
    void sha256Hex_knownVector()
    {
        QCOMPARE(CanonicalJson::sha256Hex("abc"),
                 QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    }
};

QTEST_GUILESS_MAIN(CanonicalJsonTest)
#include "canonicaljson_test.moc"
