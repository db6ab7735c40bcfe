// UpstreamTrust on a real SQLite store: an upstream seen first is taken as it lists itself; a change
// that narrows is taken at once; one that widens is held (the tool keeps its accepted standing, a
// new tool asks) until accepted; a refusal holds until the upstream changes again; and what was
// accepted, and refused, is read back by the next start.
#include "auditstore.h"
#include "database.h"
#include "fakeclock.h"
#include "helperfailure.h"
#include "receipt.h"
#include "upstreamtrust.h"

#include <QSignalSpy>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;
using json = nlohmann::json;

namespace {

json tool(const char *name, bool readOnly, json schema = {{"type", "object"}})
{
    json t = {{"name", name}, {"inputSchema", std::move(schema)}};
    if (readOnly)
        t["annotations"] = {{"readOnlyHint", true}};
    return t;
}

} // namespace

class UpstreamTrustTest : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    FakeClock m_clock;
    const ReceiptSigner m_signer{QByteArray(32, '\x05')};
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AuditStore> m_store;
    int m_test = 0;

    QStringList events()
    {
        QSqlQuery query(QSqlDatabase::database(m_db->connectionName()));
        if (!query.exec(
                QStringLiteral("SELECT event FROM audit_log WHERE event LIKE 'upstream-%' ORDER BY seq"))) {
            helperFailed(query.lastError().text());
            return {};
        }
        QStringList out;
        while (query.next())
            out.append(query.value(0).toString());
        return out;
    }
    static QStringList without(QStringList events, const char *event)
    {
        events.removeAll(QLatin1String(event));
        return events;
    }

private Q_SLOTS:
    void init()
    {
        auto db = Database::open(m_dir.filePath(QStringLiteral("trust%1.db").arg(++m_test)));
        QVERIFY2(db, db ? "" : qPrintable(db.error()));
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
    }
    void cleanup()
    {
        m_store.reset();
        m_db.reset();
    }

    void firstSeen_isTakenAsListed_narrowingAtOnce_wideningHeld()
    {
        UpstreamTrust trust(*m_store);
        QVERIFY(trust.load());
        QSignalSpy held(&trust, &UpstreamTrust::wideningHeld);
        trust.judge(QStringLiteral("fs"), json::array({tool("read", true), tool("wipe", false)}));
        QVERIFY(trust.standing(QStringLiteral("fs"), QStringLiteral("read")).readOnly);
        QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("wipe")).readOnly);
        QCOMPARE(held.count(), 0);

        // read drops readOnlyHint (narrows: taken), wipe gains it (widens: held), a new tool asks.
        trust.judge(QStringLiteral("fs"), json::array({tool("read", false), tool("wipe", true),
                                                       tool("more", false), tool("peek", true)}));
        QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("read")).readOnly);
        const UpstreamTrust::Standing wipe = trust.standing(QStringLiteral("fs"), QStringLiteral("wipe"));
        QVERIFY(!wipe.readOnly);
        QVERIFY(wipe.destructive);
        QVERIFY2(wipe.held.contains(QLatin1String("waits for you")), qPrintable(wipe.held));
        QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("peek")).readOnly);
        QVERIFY(trust.standing(QStringLiteral("fs"), QStringLiteral("more")).held.isEmpty());
        QCOMPARE(held.count(), 1);
        const QStringList lines = held.at(0).at(1).toStringList();
        QVERIFY2(
            lines.contains(QStringLiteral("tool wipe: readOnlyHint: no → yes (it would run without a card)")),
            qPrintable(lines.join(QLatin1Char('\n'))));
        QVERIFY2(
            lines.contains(QStringLiteral("tool peek: new, says readOnlyHint (it would run without a card)")),
            qPrintable(lines.join(QLatin1Char('\n'))));
        QCOMPARE(
            without(events(), "upstream-tools-accepted"),
            (QStringList{QStringLiteral("upstream-narrowed"), QStringLiteral("upstream-widening-held")}));
        // Listed again unchanged: not reported again.
        trust.judge(QStringLiteral("fs"), json::array({tool("read", false), tool("wipe", true),
                                                       tool("more", false), tool("peek", true)}));
        QCOMPARE(held.count(), 1);

        // Accepted: the listing is what is taken.
        QSignalSpy changed(&trust, &UpstreamTrust::changed);
        trust.accept(QStringLiteral("fs"), QStringLiteral("not what the banner showed"));
        QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("wipe")).readOnly); // not taken
        trust.accept(QStringLiteral("fs"), held.at(0).at(2).toString());
        QCOMPARE(changed.count(), 1);
        QVERIFY(trust.standing(QStringLiteral("fs"), QStringLiteral("wipe")).readOnly);
        QVERIFY(trust.standing(QStringLiteral("fs"), QStringLiteral("peek")).readOnly);
        QVERIFY(trust.held(QStringLiteral("fs")).isEmpty());
        QVERIFY(without(events(), "upstream-tools-accepted")
                    .endsWith(QStringLiteral("upstream-widened-accepted")));
    }

    void aSchemaChange_ofAToolThatRunsWithoutACard_isHeld_ofOneThatAsks_isTaken()
    {
        UpstreamTrust trust(*m_store);
        QVERIFY(trust.load());
        trust.judge(QStringLiteral("fs"), json::array({tool("read", true), tool("wipe", false)}));
        const json wider = {{"type", "object"}, {"properties", {{"force", {{"type", "boolean"}}}}}};
        trust.judge(QStringLiteral("fs"),
                    json::array({tool("read", true, wider), tool("wipe", false, wider)}));
        QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("read")).readOnly);
        QCOMPARE(trust.held(QStringLiteral("fs")),
                 QStringList{QStringLiteral("tool read: input schema changed (it runs without a card)")});
    }

    void aRefusal_holdsAcrossAStart_untilTheUpstreamChangesAgain()
    {
        {
            UpstreamTrust trust(*m_store);
            QVERIFY(trust.load());
            trust.judge(QStringLiteral("fs"), json::array({tool("wipe", false)}));
            trust.judge(QStringLiteral("fs"), json::array({tool("wipe", true)}));
            QCOMPARE(trust.heldUpstreams(), QStringList{QStringLiteral("fs")});
            trust.keep(QStringLiteral("fs"), trust.heldDigest(QStringLiteral("fs")));
            QVERIFY(trust.heldUpstreams().isEmpty());
            QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("wipe")).readOnly);
        }
        // The next start reads what was accepted and refused.
        UpstreamTrust next(*m_store);
        QVERIFY(next.load());
        QSignalSpy held(&next, &UpstreamTrust::wideningHeld);
        next.judge(QStringLiteral("fs"), json::array({tool("wipe", true)}));
        QVERIFY(!next.standing(QStringLiteral("fs"), QStringLiteral("wipe")).readOnly);
        QCOMPARE(held.count(), 0); // refused: not asked again
        QVERIFY(next.heldUpstreams().isEmpty());
        // Changed again: asked again.
        next.judge(QStringLiteral("fs"), json::array({tool("wipe", true), tool("peek", true)}));
        QCOMPARE(held.count(), 1);
        QCOMPARE(next.heldUpstreams(), QStringList{QStringLiteral("fs")});
        QVERIFY(events().contains(QStringLiteral("upstream-widened-rejected")));
    }

    // The attack from the review: refuse R, list W (shown), list R again: W's banner goes, and its
    // Accept cannot take R.
    void anAccept_takesOnlyTheListingItWasShown()
    {
        UpstreamTrust trust(*m_store);
        QVERIFY(trust.load());
        trust.judge(QStringLiteral("fs"), json::array({tool("rm_all", false)}));
        const json refused = json::array({tool("rm_all", true)});
        trust.judge(QStringLiteral("fs"), refused);
        trust.keep(QStringLiteral("fs"), trust.heldDigest(QStringLiteral("fs")));
        QSignalSpy held(&trust, &UpstreamTrust::wideningHeld);
        QSignalSpy cleared(&trust, &UpstreamTrust::wideningCleared);
        trust.judge(QStringLiteral("fs"), json::array({tool("rm_all", false), tool("ping", true)}));
        QCOMPARE(held.count(), 1);
        const QString shown = held.at(0).at(2).toString();
        trust.judge(QStringLiteral("fs"), refused);
        QCOMPARE(cleared.count(), 1);
        trust.accept(QStringLiteral("fs"), shown);
        QVERIFY(!trust.standing(QStringLiteral("fs"), QStringLiteral("rm_all")).readOnly);
        QVERIFY(!events().contains(QStringLiteral("upstream-widened-accepted")));
    }

    void aNewToolSayingItDoesNotDestroy_isHeld_andKeepsTheHigherRisk()
    {
        UpstreamTrust trust(*m_store);
        QVERIFY(trust.load());
        trust.judge(QStringLiteral("fs"), json::array({tool("wipe", false)}));
        json mild = tool("mild", false);
        mild["annotations"] = {{"destructiveHint", false}};
        trust.judge(QStringLiteral("fs"), json::array({tool("wipe", false), mild}));
        QVERIFY(trust.standing(QStringLiteral("fs"), QStringLiteral("mild")).destructive);
        QCOMPARE(trust.held(QStringLiteral("fs")),
                 QStringList{QStringLiteral(
                     "tool mild: new, says destructiveHint false (a lower risk on its card)")});
    }

    void aToolGoneAndBack_unchanged_isNoChange()
    {
        UpstreamTrust trust(*m_store);
        QVERIFY(trust.load());
        QSignalSpy held(&trust, &UpstreamTrust::wideningHeld);
        trust.judge(QStringLiteral("fs"), json::array({tool("read", true), tool("wipe", false)}));
        trust.judge(QStringLiteral("fs"), json::array({tool("wipe", false)}));
        trust.judge(QStringLiteral("fs"), json::array({tool("read", true), tool("wipe", false)}));
        QCOMPARE(held.count(), 0);
        QVERIFY(trust.standing(QStringLiteral("fs"), QStringLiteral("read")).readOnly);
    }
};

QTEST_GUILESS_MAIN(UpstreamTrustTest)
#include "upstreamtrust_test.moc"
