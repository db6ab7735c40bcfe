#include "schemavalidator.h"

#include <nlohmann/json.hpp>

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class SchemaValidatorTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void validate_data()
    {
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error"); // empty: valid
        const QString service =
            R"({"type":"object","properties":{"serviceName":{"type":"string","minLength":1}},"required":["serviceName"],"additionalProperties":false})";
        QTest::newRow("ok") << service << R"({"serviceName":"x"})"
                            << "";
        QTest::newRow("wrong type") << service << R"({"serviceName":5})"
                                    << "data/serviceName must be string";
        QTest::newRow("missing") << service << "{}"
                                 << "data must have required property 'serviceName'";
        QTest::newRow("extra") << service << R"({"serviceName":"x","y":1})"
                               << "must NOT have additional property 'y'";
        QTest::newRow("too short") << service << R"({"serviceName":""})"
                                   << "at least 1 characters";
        QTest::newRow("enum") << R"({"enum":["a","b"]})"
                              << R"("c")"
                              << "must be one of";
        QTest::newRow("integer") << R"({"type":"integer"})"
                                 << "1.5"
                                 << "must be integer";
        QTest::newRow("integral float is integer") << R"({"type":"integer"})"
                                                   << "2.0"
                                                   << "";
        QTest::newRow("max") << R"({"type":"number","maximum":3})"
                             << "4"
                             << "must be <= 3";
        QTest::newRow("items") << R"({"type":"array","items":{"type":"string"}})"
                               << R"(["a",1])"
                               << "data/1 must be string";
        QTest::newRow("minItems") << R"({"type":"array","minItems":1})"
                                  << "[]"
                                  << "at least 1 items";
        QTest::newRow("pattern") << R"({"type":"string","pattern":"^[a-z]+$"})"
                                 << R"("A")"
                                 << "must match the pattern";
        QTest::newRow("type list") << R"({"type":["string","null"]})"
                                   << "null"
                                   << "";
        QTest::newRow("nested")
            << R"({"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"boolean"}}}}})"
            << R"({"a":{"b":"no"}})"
            << "data/a/b must be boolean";
    }
    void validate()
    {
        QFETCH(QString, schema);
        QFETCH(QString, value);
        QFETCH(QString, error);
        auto r =
            SchemaValidator::validate(json::parse(schema.toStdString()), json::parse(value.toStdString()));
        if (error.isEmpty()) {
            QVERIFY2(r.ok(), qPrintable(r.ok() ? QString() : r.error()));
        } else {
            QVERIFY(!r.ok());
            QVERIFY2(r.error().contains(error), qPrintable(r.error()));
        }
    }
};

QTEST_GUILESS_MAIN(SchemaValidatorTest)
#include "schemavalidator_test.moc"
