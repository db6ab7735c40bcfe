// The audit view's reads (AuditQuery) over a small store: the columns and outcomes of the rows, every
// filter, every sort column, the per-day counts, the distinct lists, and the errors when the store
// cannot be read.
#include "auditfilter.h"
#include "auditquery.h"
#include "auditstore.h"
#include "canonicaljson.h"
#include "database.h"
#include "receipt.h"
#include "systemclock.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QSqlRecord>
#include <QTest>

using namespace Countersign;

Q_DECLARE_METATYPE(Countersign::AuditFilter)

namespace {

const QDate kDay0(2026, 3, 1);

qint64 at(int day, int hour)
{
    return QDateTime(kDay0.addDays(day), QTime(hour, 0), Qt::UTC).toMSecsSinceEpoch();
}

QStringList split(const char *ids)
{
    return QString::fromLatin1(ids).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

} // namespace

class AuditQueryTest : public QObject
{
    Q_OBJECT
private:
    SystemClock m_clock; // times that matter are the operations' own
    std::unique_ptr<Database> m_db;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
    std::unique_ptr<AuditStore> m_store;

    void add(const char *nonce, const char *tool, const char *client, const char *principal, qint64 createdMs,
             const char *target, Operation::Status status = Operation::Status::Pending)
    {
        Operation op;
        op.nonce = QLatin1String(nonce);
        op.tool = QLatin1String(tool);
        op.principal = QLatin1String(principal);
        op.clientInfo = {{"name", client}};
        op.arguments = {{"target", target}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        if (*target)
            op.plan.targets = {QLatin1String(target)};
        op.plan.title = QStringLiteral("%1 %2").arg(op.tool, QLatin1String(target));
        op.planDigest = op.plan.digest();
        op.createdMs = createdMs;
        op.expiresMs = createdMs + 300'000;
        op.status = status;
        QVERIFY(m_store->recordOperation(op).ok());
    }
    void decide(const char *nonce, Operation::Status outcome, const char *by, const char *reason = "")
    {
        QVERIFY(m_store->decide(QLatin1String(nonce), {outcome, QLatin1String(by), QLatin1String(reason), 1})
                    .ok());
    }
    void run(const char *nonce, std::optional<bool> failed)
    {
        QVERIFY(m_store->claim(QLatin1String(nonce)).value());
        if (failed)
            QVERIFY(m_store
                        ->finishClaim(QLatin1String(nonce),
                                      {{"content", nlohmann::json::array()}, {"isError", *failed}})
                        .ok());
    }
    // The nonces of the listing, in order: order(), then each row's columns by its key.
    QStringList idsOf(const AuditFilter &filter, AuditQuery::Column column, Qt::SortOrder order)
    {
        auto keys = query().order(filter, column, order);
        if (!keys) {
            QTest::qFail(qPrintable(keys.error()), __FILE__, __LINE__);
            return {};
        }
        auto rows = query().rowsWithKeys(keys.value());
        if (!rows) {
            QTest::qFail(qPrintable(rows.error()), __FILE__, __LINE__);
            return {};
        }
        QHash<qint64, QString> nonces;
        for (const AuditQuery::Row &row : rows.value())
            nonces.insert(row.key, row.cells.value(AuditQuery::Id).toString());
        QStringList ids;
        for (const qint64 key : keys.value())
            ids.append(nonces.value(key, QStringLiteral("(no row)")));
        return ids;
    }
    AuditQuery query() const { return AuditQuery(m_db->connectionName()); }

private Q_SLOTS:
    void init()
    {
        auto db = Database::open(QStringLiteral(":memory:"));
        QVERIFY(db.ok());
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
        // Seven operations over three UTC days; "c" has no client name, so its connection shows.
        add("a", "delete_service", "Claude Code", "vscode", at(0, 1), "web-1");
        decide("a", Operation::Status::Approved, "console:alice");
        run("a", false);
        add("b", "scale", "Cursor", "cursor", at(0, 2), "api");
        decide("b", Operation::Status::Declined, "console:bob", "not during the freeze");
        add("c", "delete_service", "", "ci-bot", at(1, 1), "100%_off");
        decide("c", Operation::Status::Declined, "console:alice", "50% sure");
        add("d", "drop_table", "Cursor", "cursor", at(1, 2), "");
        decide("d", Operation::Status::Approved, "client:vscode");
        run("d", std::nullopt); // claimed, no end: unknown
        add("e", "scale", "Claude Code", "vscode", at(2, 1), "api");
        decide("e", Operation::Status::Approved, "console:alice");
        run("e", true);
        add("f", "scale", "Cursor", "cursor", at(2, 2), "web-2");
        add("g", "delete_service", "Claude Code", "vscode", at(2, 3), "web-1", Operation::Status::Allowed);
    }
    void cleanup()
    {
        m_store.reset();
        m_db.reset();
    }

    void rows_giveTheColumnsInColumnOrder()
    {
        auto keys = query().order({}, AuditQuery::Time, Qt::AscendingOrder);
        QVERIFY2(keys.ok(), keys.ok() ? "" : qPrintable(keys.error()));
        QCOMPARE(keys.value().size(), 7);
        auto rows = query().rowsWithKeys({keys.value().first()});
        QVERIFY2(rows.ok(), rows.ok() ? "" : qPrintable(rows.error()));
        QCOMPARE(rows.value().size(), 1);
        const AuditQuery::Row &row = rows.value().first();
        QCOMPARE(row.key, keys.value().first());
        QCOMPARE(row.cells.size(), int(AuditQuery::ColumnCount));
        QCOMPARE(row.cells[AuditQuery::Time].toLongLong(), at(0, 1));
        QCOMPARE(row.cells[AuditQuery::Client].toString(), QStringLiteral("Claude Code"));
        QCOMPARE(row.cells[AuditQuery::Tool].toString(), QStringLiteral("delete_service"));
        QCOMPARE(row.cells[AuditQuery::Target].toString(), QStringLiteral("web-1"));
        QCOMPARE(row.cells[AuditQuery::Decision].toString(), QStringLiteral("approved"));
        QCOMPARE(row.cells[AuditQuery::Who].toString(), QStringLiteral("console:alice"));
        QCOMPARE(row.cells[AuditQuery::Reason].toString(), QString(""));
        QCOMPARE(row.cells[AuditQuery::Outcome].toString(), QStringLiteral("succeeded"));
        QCOMPARE(row.cells[AuditQuery::Id].toString(), QStringLiteral("a"));
        // No statement stays open on the connection: a write on it goes through at once.
        QVERIFY(m_db->exec("BEGIN IMMEDIATE").ok());
        QVERIFY(m_db->exec("COMMIT").ok());
    }
    // The configuration's changes are rows of their own under the "configuration" filter: when,
    // what became of the change, who decided it and what it changed; never among the calls.
    void configurationChanges_areRowsUnderTheirFilter()
    {
        QVERIFY(m_store
                    ->recordEvent(
                        QStringLiteral("policy-narrowed"),
                        {{"file", "/cfg.json"},
                         {"narrowing", {{{"subject", "rule 1"}, {"before", "allow"}, {"after", "ask"}}}}})
                    .ok());
        QVERIFY(m_store
                    ->recordEvent(
                        QStringLiteral("policy-widened-accepted"),
                        {{"file", "/cfg.json"},
                         {"by", "console:alice"},
                         {"widening", {{{"subject", "mode"}, {"before", "strict"}, {"after", "standard"}}}}})
                    .ok());
        AuditFilter configuration;
        configuration.decision = QStringLiteral("configuration");
        auto keys = query().order(configuration, AuditQuery::Time, Qt::DescendingOrder);
        QVERIFY2(keys.ok(), keys.ok() ? "" : qPrintable(keys.error()));
        QCOMPARE(keys.value().size(), 2);
        QVERIFY(keys.value().first() < 0 && keys.value().last() < 0);
        auto rows = query().rowsWithKeys({keys.value().first()});
        QVERIFY2(rows.ok() && rows.value().size() == 1, rows.ok() ? "no row" : qPrintable(rows.error()));
        const AuditQuery::Row &newest = rows.value().first();
        QCOMPARE(newest.cells[AuditQuery::Decision].toString(), QStringLiteral("policy-widened-accepted"));
        QCOMPARE(newest.cells[AuditQuery::Who].toString(), QStringLiteral("console:alice"));
        QCOMPARE(newest.cells[AuditQuery::Tool].toString(), QStringLiteral("(configuration)"));
        QCOMPARE(newest.cells[AuditQuery::Target].toString(), QStringLiteral("/cfg.json"));
        QCOMPARE(newest.cells[AuditQuery::Reason].toString(), QStringLiteral("mode: strict -> standard"));
        QVERIFY(newest.cells[AuditQuery::Id].toString().startsWith(QLatin1String("policy-")));
        auto ids = query().ids(configuration, AuditQuery::Time, Qt::DescendingOrder);
        QVERIFY(ids.ok());
        QCOMPARE(ids.value().first(), newest.cells[AuditQuery::Id].toString());
        configuration.text = QStringLiteral("rule 1");
        QCOMPARE(query().order(configuration, AuditQuery::Time, Qt::AscendingOrder).value().size(), 1);
        configuration.text.clear();
        configuration.person = QStringLiteral("console:alice");
        QCOMPARE(query().order(configuration, AuditQuery::Time, Qt::AscendingOrder).value().size(), 1);
        configuration.person.clear();
        configuration.tool = QStringLiteral("scale");
        QCOMPARE(query().order(configuration, AuditQuery::Time, Qt::AscendingOrder).value().size(), 0);
        QVERIFY(query()
                    .perDay(AuditFilter{QStringLiteral("configuration"), {}, {}, {}, {}, {}, {}, {}})
                    .value()
                    .isEmpty());
        // The calls' listing is as before: seven operations, no change among them.
        QCOMPARE(query().order({}, AuditQuery::Time, Qt::AscendingOrder).value().size(), 7);
    }
    void rowsWithKeys_outcomes_sayWhatBecameOfEachRow()
    {
        QHash<QString, QString> outcomes;
        auto rows = query().rowsWithKeys(query().order({}, AuditQuery::Time, Qt::AscendingOrder).value());
        QVERIFY(rows.ok());
        for (const AuditQuery::Row &row : rows.value())
            outcomes.insert(row.cells[AuditQuery::Id].toString(), row.cells[AuditQuery::Outcome].toString());
        QCOMPARE(outcomes.value(QStringLiteral("a")), QStringLiteral("succeeded"));
        QCOMPARE(outcomes.value(QStringLiteral("b")), QStringLiteral("not run"));
        QCOMPARE(outcomes.value(QStringLiteral("d")), QStringLiteral("unknown"));
        QCOMPARE(outcomes.value(QStringLiteral("e")), QStringLiteral("failed"));
        QCOMPARE(outcomes.value(QStringLiteral("f")), QStringLiteral("waiting")); // pending, not "not run"
        QVERIFY(query().rowsWithKeys({}).value().isEmpty());
        QVERIFY(query().rowsWithKeys({987654}).value().isEmpty());
    }
    void filter_byPersonAndInstance()
    {
        // "h" needed two people (alice, then bob) and came through carol's connection on desk-b.
        Operation op;
        op.nonce = QStringLiteral("h");
        op.tool = QStringLiteral("drop_table");
        op.principal = QStringLiteral("carol-laptop");
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.planDigest = op.plan.digest();
        op.createdMs = at(2, 4);
        op.expiresMs = op.createdMs + 300'000;
        op.review.people = 2;
        op.review.owner = QStringLiteral("carol");
        op.instance = QStringLiteral("desk-b");
        QVERIFY(m_store->recordOperation(op).ok());
        decide("h", Operation::Status::Approved, "console:alice");
        decide("h", Operation::Status::Approved, "console:bob");
        const auto ids = [this](const QString &person, const QString &instance) {
            AuditFilter filter;
            filter.person = person;
            filter.instance = instance;
            return idsOf(filter, AuditQuery::Time, Qt::AscendingOrder);
        };
        QCOMPARE(ids(QStringLiteral("alice"), {}), split("a c e h"));
        QCOMPARE(ids(QStringLiteral("bob"), {}), split("b h"));
        QCOMPARE(ids(QStringLiteral("carol"), {}), split("h"));     // her connection's call
        QCOMPARE(ids(QStringLiteral("vscode"), {}), QStringList()); // a client decision names no person
        QCOMPARE(ids(QStringLiteral("al%"), {}), QStringList());    // no pattern: the name, exactly
        QCOMPARE(ids({}, QStringLiteral("desk-b")), split("h"));
        QCOMPARE(ids(QStringLiteral("alice"), QStringLiteral("desk-b")), split("h"));
        QCOMPARE(ids(QStringLiteral("bob"), QStringLiteral("desk-a")), QStringList());
        QCOMPARE(query().distinctPeople().value(), split("alice bob carol"));
        QCOMPARE(query().distinctInstances().value(), split("desk-b"));
    }
    void rows_filter_data()
    {
        QTest::addColumn<AuditFilter>("filter");
        QTest::addColumn<QStringList>("ids"); // newest first
        QTest::newRow("none") << AuditFilter{} << split("g f e d c b a");
        QTest::newRow("declined") << AuditFilter{QStringLiteral("declined"), {}, {}, {}, {}, {}, {}, {}}
                                  << split("c b");
        QTest::newRow("allowed by rule")
            << AuditFilter{QStringLiteral("allowed"), {}, {}, {}, {}, {}, {}, {}} << split("g");
        QTest::newRow("pending") << AuditFilter{QStringLiteral("pending"), {}, {}, {}, {}, {}, {}, {}}
                                 << split("f");
        QTest::newRow("client") << AuditFilter{{}, QStringLiteral("Cursor"), {}, {}, {}, {}, {}, {}}
                                << split("f d b");
        QTest::newRow("client without a name: its connection")
            << AuditFilter{{}, QStringLiteral("ci-bot"), {}, {}, {}, {}, {}, {}} << split("c");
        QTest::newRow("tool") << AuditFilter{{}, {}, QStringLiteral("scale"), {}, {}, {}, {}, {}}
                              << split("f e b");
        QTest::newRow("client and tool")
            << AuditFilter{{}, QStringLiteral("Cursor"), QStringLiteral("scale"), {}, {}, {}, {}, {}}
            << split("f b");
        QTest::newRow("one day") << AuditFilter{{}, {}, {}, kDay0.addDays(1), kDay0.addDays(1), {}, {}, {}}
                                 << split("d c");
        QTest::newRow("from a day on")
            << AuditFilter{{}, {}, {}, kDay0.addDays(2), {}, {}, {}, {}} << split("g f e");
        QTest::newRow("up to a day") << AuditFilter{{}, {}, {}, {}, kDay0, {}, {}, {}} << split("b a");
        QTest::newRow("days with no rows")
            << AuditFilter{{}, {}, {}, kDay0.addDays(5), kDay0.addDays(9), {}, {}, {}} << QStringList();
        QTest::newRow("text in a reason")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("freeze"), {}, {}} << split("b");
        QTest::newRow("text in the plan")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("web-1"), {}, {}} << split("g a");
        QTest::newRow("text in the connection")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("ci-bo"), {}, {}} << split("c");
        QTest::newRow("text is trimmed")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("  freeze "), {}, {}} << split("b");
        QTest::newRow("LIKE wildcards are literal: matching")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("100%_"), {}, {}} << split("c");
        QTest::newRow("LIKE wildcards are literal: not matching")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("ice%"), {}, {}} << QStringList();
        QTest::newRow("the escape character is literal")
            << AuditFilter{{}, {}, {}, {}, {}, QStringLiteral("\\%"), {}, {}} << QStringList();
        QTest::newRow("everything at once") << AuditFilter{QStringLiteral("declined"),
                                                           QStringLiteral("Cursor"),
                                                           QStringLiteral("scale"),
                                                           kDay0,
                                                           kDay0,
                                                           QStringLiteral("freeze"),
                                                           {},
                                                           {}}
                                            << split("b");
    }
    void rows_filter()
    {
        QFETCH(AuditFilter, filter);
        QFETCH(QStringList, ids);
        QCOMPARE(idsOf(filter, AuditQuery::Time, Qt::DescendingOrder), ids);
        auto listed = query().ids(filter, AuditQuery::Time, Qt::DescendingOrder);
        QVERIFY(listed.ok());
        QCOMPARE(listed.value(), ids);
    }
    void rows_sort_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<Qt::SortOrder>("order");
        QTest::addColumn<QStringList>("ids"); // ties by time, in the same order
        QTest::newRow("time, ascending")
            << int(AuditQuery::Time) << Qt::AscendingOrder << split("a b c d e f g");
        QTest::newRow("client, ascending")
            << int(AuditQuery::Client) << Qt::AscendingOrder << split("a e g b d f c");
        QTest::newRow("tool, ascending")
            << int(AuditQuery::Tool) << Qt::AscendingOrder << split("a c g d b e f");
        QTest::newRow("tool, descending")
            << int(AuditQuery::Tool) << Qt::DescendingOrder << split("f e b d g c a");
        QTest::newRow("target, ascending")
            << int(AuditQuery::Target) << Qt::AscendingOrder << split("d c b e a g f");
        QTest::newRow("decision, ascending")
            << int(AuditQuery::Decision) << Qt::AscendingOrder << split("g a d e b c f");
        QTest::newRow("who, ascending")
            << int(AuditQuery::Who) << Qt::AscendingOrder << split("f g d a c e b");
        QTest::newRow("reason, ascending")
            << int(AuditQuery::Reason) << Qt::AscendingOrder << split("a d e f g c b");
        QTest::newRow("outcome, ascending") // failed, not run, succeeded, unknown, waiting
            << int(AuditQuery::Outcome) << Qt::AscendingOrder << split("e b c g a d f");
        QTest::newRow("outcome, descending")
            << int(AuditQuery::Outcome) << Qt::DescendingOrder << split("f d a g c b e");
    }
    void rows_sort()
    {
        QFETCH(int, column);
        QFETCH(Qt::SortOrder, order);
        QFETCH(QStringList, ids);
        QCOMPARE(idsOf({}, AuditQuery::Column(column), order), ids);
        QCOMPARE(query().ids({}, AuditQuery::Column(column), order).value(), ids);
    }
    void perDay_countsApprovalsAndDeclines_perUtcDay()
    {
        auto days = query().perDay({});
        QVERIFY2(days.ok(), days.ok() ? "" : qPrintable(days.error()));
        QCOMPARE(days.value().size(), 3);
        const int expected[3][2] = {{1, 1}, {1, 1}, {2, 0}}; // day 2: approved "e", allowed "g", pending "f"
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(days.value()[i].day, kDay0.addDays(i));
            QCOMPARE(days.value()[i].approved, expected[i][0]);
            QCOMPARE(days.value()[i].declined, expected[i][1]);
        }
        auto cursor = query().perDay({{}, QStringLiteral("Cursor"), {}, {}, {}, {}, {}, {}});
        QCOMPARE(cursor.value().size(), 3);
        QCOMPARE(cursor.value()[0].declined, 1);
        QCOMPARE(cursor.value()[1].approved, 1);
        QCOMPARE(cursor.value()[2].approved + cursor.value()[2].declined, 0); // "f" is pending
        QVERIFY(query().perDay({{}, {}, {}, kDay0.addDays(7), {}, {}, {}, {}}).value().isEmpty());
    }
    void distinctLists_areSorted()
    {
        auto clients = query().distinctClients();
        QVERIFY2(clients.ok(), clients.ok() ? "" : qPrintable(clients.error()));
        QCOMPARE(clients.value(), (QStringList{QStringLiteral("Claude Code"), QStringLiteral("Cursor"),
                                               QStringLiteral("ci-bot")}));
        auto tools = query().distinctTools();
        QVERIFY(tools.ok());
        QCOMPARE(tools.value(), (QStringList{QStringLiteral("delete_service"), QStringLiteral("drop_table"),
                                             QStringLiteral("scale")}));
    }
    void everyRead_whenTheStoreCannotBeRead_failsWithSQLitesWords_data()
    {
        QTest::addColumn<QString>("read");
        for (const char *read :
             {"order", "rowsWithKeys", "ids", "perDay", "distinctClients", "distinctTools"})
            QTest::newRow(read) << QString::fromLatin1(read);
    }
    void everyRead_whenTheStoreCannotBeRead_failsWithSQLitesWords()
    {
        QFETCH(QString, read);
        QVERIFY(m_db->exec("ALTER TABLE operations RENAME TO operations_gone").ok());
        const AuditQuery q = query();
        QString error;
        if (read == QLatin1String("order"))
            error = q.order({}, AuditQuery::Time, Qt::DescendingOrder).error();
        else if (read == QLatin1String("rowsWithKeys"))
            error = q.rowsWithKeys({1}).error();
        else if (read == QLatin1String("ids"))
            error = q.ids({}, AuditQuery::Time, Qt::DescendingOrder).error();
        else if (read == QLatin1String("perDay"))
            error = q.perDay({}).error();
        else if (read == QLatin1String("distinctClients"))
            error = q.distinctClients().error();
        else
            error = q.distinctTools().error();
        QVERIFY2(error.contains(QLatin1String("no such table: operations")), qPrintable(error));
    }
    void reads_onAConnectionThatIsNotOpen_fail()
    {
        const AuditQuery q(QStringLiteral("no-such-connection"));
        for (int i = 0; i < 2; ++i)
            QTest::ignoreMessage(QtWarningMsg, "QSqlQuery::prepare: database not open");
        QVERIFY(!q.order({}, AuditQuery::Time, Qt::DescendingOrder).ok());
        QVERIFY(!q.distinctTools().ok());
    }
};

QTEST_GUILESS_MAIN(AuditQueryTest)
#include "auditquery_test.moc"
