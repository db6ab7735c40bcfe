// ToolResult::failed (shared/core/toolresult.h): the one reading of a tool result's isError, by the
// gate, the receipt, the store, the telemetry, the upstream gateway and the audit view. A result
// an upstream server made up is read without throwing.
#include "toolresult.h"

#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

class ToolResultTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void failed_onlyWhenIsErrorIsTrue()
    {
        QVERIFY(ToolResult::failed(json{{"isError", true}, {"content", json::array()}}));
        QVERIFY(!ToolResult::failed(json{{"isError", false}}));
        QVERIFY(!ToolResult::failed(json{{"content", json::array()}}));
    }

    // Hostile or broken results: another type, no object at all. None throws, none is a failure.
    void otherShapes_areNoFailure_andNeverThrow()
    {
        for (const json &result :
             {json{{"isError", "true"}}, json{{"isError", 1}}, json{{"isError", nullptr}},
              json{{"isError", json::array({true})}}, json{{"isError", json::object()}},
              json::array({json{{"isError", true}}}), json("isError"), json(nullptr), json(true)})
            QVERIFY2(!ToolResult::failed(result), result.dump().c_str());
    }
};

QTEST_GUILESS_MAIN(ToolResultTest)
#include "toolresult_test.moc"
