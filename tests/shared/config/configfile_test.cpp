#include "configfile.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

class ConfigFileTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void setTopLevel_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("key");
        QTest::addColumn<json>("value");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("replace, comments kept")
            << QByteArray("{\n  // how long a card waits\n  \"ttlSeconds\": 300, /* five minutes */\n  "
                          "\"listen\": \"127.0.0.1:7331\"\n}\n")
            << "ttlSeconds" << json(600)
            << QByteArray("{\n  // how long a card waits\n  \"ttlSeconds\": 600, /* five minutes */\n  "
                          "\"listen\": \"127.0.0.1:7331\"\n}\n");
        QTest::newRow("replace the last key")
            << QByteArray("{\"ttlSeconds\": 300, \"pollWindowSeconds\": 20 }") << "pollWindowSeconds"
            << json(30) << QByteArray("{\"ttlSeconds\": 300, \"pollWindowSeconds\": 30 }");
        QTest::newRow("add to an empty file")
            << QByteArray() << "ttlSeconds" << json(60) << QByteArray("{\n  \"ttlSeconds\": 60\n}\n");
        QTest::newRow("add before other keys")
            << QByteArray("// mine\n{\"listen\": \"127.0.0.1:1\"}") << "ttlSeconds" << json(60)
            << QByteArray("// mine\n{\n  \"ttlSeconds\": 60,\"listen\": \"127.0.0.1:1\"}");
        QTest::newRow("nested key of the same name untouched")
            << QByteArray("{\"rules\": [{\"tool\": \"x\", \"decision\": \"ask\", \"reason\": "
                          "\"ttlSeconds\"}], \"ttlSeconds\": 5}")
            << "ttlSeconds" << json(7)
            << QByteArray("{\"rules\": [{\"tool\": \"x\", \"decision\": \"ask\", \"reason\": "
                          "\"ttlSeconds\"}], \"ttlSeconds\": 7}");
        QTest::newRow("braces inside strings and comments")
            << QByteArray("{\"listen\": \"127.0.0.1:7331\" /* } , \"ttlSeconds\": 1 */, \"ttlSeconds\": 2}")
            << "ttlSeconds" << json(3)
            << QByteArray("{\"listen\": \"127.0.0.1:7331\" /* } , \"ttlSeconds\": 1 */, \"ttlSeconds\": 3}");
    }
    // "Deny this from now on" adds a rule: the user's rules stay as written, comments and layout
    // included, and the new one is written one member per line after the last.
    void aRuleAdded_keepsTheUsersRules()
    {
        const QByteArray text =
            "{\n  \"rules\": [\n    // never the prod cluster\n    {\"tool\": \"deploy\", "
            "\"decision\": \"deny\"} // mine\n  ],\n  \"ttlSeconds\": 300\n}\n";
        const json rules = json::array({{{"tool", "deploy"}, {"decision", "deny"}},
                                        {{"tool", "drop_table"}, {"decision", "deny"}, {"reason", "no"}}});
        auto out = ConfigFile::setTopLevel(text, QStringLiteral("rules"), rules);
        QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error()));
        QCOMPARE(out.value(),
                 QByteArray("{\n  \"rules\": [\n    // never the prod cluster\n    {\"tool\": \"deploy\", "
                            "\"decision\": \"deny\"},\n    {\n      \"decision\": \"deny\",\n      "
                            "\"reason\": \"no\",\n      \"tool\": \"drop_table\"\n    } // mine\n  ],\n  "
                            "\"ttlSeconds\": 300\n}\n"));
        // A list replaced (not grown) is written one member per line, indented under its key.
        auto replaced = ConfigFile::setTopLevel(text, QStringLiteral("rules"), json::array({rules[1]}));
        QVERIFY(replaced.ok());
        QVERIFY2(replaced.value().contains("\"rules\": [\n    {\n      \"decision\": \"deny\",\n"),
                 replaced.value().constData());
    }
    void setTopLevel()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, key);
        QFETCH(json, value);
        QFETCH(QByteArray, expected);
        auto out = ConfigFile::setTopLevel(text, key, value);
        QVERIFY2(out.ok(), out.ok() ? "" : qPrintable(out.error()));
        QCOMPARE(out.value(), expected);
    }
    void invalidResult_isRefused()
    {
        auto out = ConfigFile::setTopLevel("{\"ttlSeconds\": 300}", QStringLiteral("ttlSeconds"), 0);
        QVERIFY(!out.ok());
        QVERIFY(out.error().contains(QLatin1String("ttlSeconds")));
        QVERIFY(!ConfigFile::setTopLevel("[1, 2]", QStringLiteral("ttlSeconds"), 5).ok());
    }
};

QTEST_GUILESS_MAIN(ConfigFileTest)
#include "configfile_test.moc"
