#include "auditcrosscheck.h"

#include "canonicaljson.h"
#include "database.h"
#include "plan.h"
#include "storedvalue.h"
#include "storesql.h"

#include <nlohmann/json.hpp>

#include <QSqlRecord>

namespace Countersign::AuditCrossCheck {

namespace {

// The first operation whose stored plan or arguments are not what the digests (compared with the
// chain above) seal: the card would show, or the run use, something nobody approved. Or whose
// client is not the one its chain row records: the card and the audit view would name another.
Result<QString> operationDigests(Database &database)
{
    auto q = database.exec(StoreSql::kCrossOperationDigests);
    if (!q)
        return failure(q.error());
    QSqlQuery &row = q.value();
    while (row.next()) {
        const QString nonce = row.value(0).toString();
        auto plan = Plan::fromJson(StoredValue::parseJson(row.value(1)));
        if (!plan || plan.value().digest() != row.value(2).toString())
            return QStringLiteral("the stored plan of %1 is not the one its digest seals").arg(nonce);
        if (QString::fromLatin1(CanonicalJson::digest(StoredValue::parseJson(row.value(3)))) !=
            row.value(4).toString())
            return QStringLiteral("the stored arguments of %1 are not the ones their digest seals")
                .arg(nonce);
        // Rows minted before the chain recorded the client hold none to compare.
        const nlohmann::json minted = StoredValue::parseJson(row.value(6));
        if (minted.is_object() && minted.contains("client") &&
            CanonicalJson::digest(minted.at("client")) !=
                CanonicalJson::digest(StoredValue::parseJson(row.value(5))))
            return QStringLiteral("the stored client of %1 is not the one the audit chain records")
                .arg(nonce);
    }
    return QString();
}

} // namespace

Result<QString> firstProblem(Database &database)
{
    struct Check
    {
        const char *sql;
        const char *problem; // %1: the operation's nonce
    };
    static constexpr Check kChecks[] = {
        {StoreSql::kCrossOperationUnrecorded, "operation %1 is not recorded in the audit chain as stored"},
        {StoreSql::kCrossDecisionUnrecorded, "the decision on %1 is not the one the audit chain records"},
        {StoreSql::kCrossDecisionRemoved,
         "the audit chain records a decision on %1 that the decisions table lacks"},
        {StoreSql::kCrossDecisionUnsigned, "the decision on %1 is not covered by a signed checkpoint"},
        {StoreSql::kCrossStatusUndecided, "operation %1 has a status its decision does not give it"},
        {StoreSql::kCrossStatusUnrecorded, "operation %1 has a status the audit chain does not record"},
        {StoreSql::kCrossTimedOutRevived,
         "operation %1 timed out in the audit chain but is stored as if not"},
        {StoreSql::kCrossClaimUnrecorded, "the run of %1 is not recorded in the audit chain"},
        {StoreSql::kCrossClaimRemoved, "the audit chain records a run of %1 that the claims table lacks"},
        {StoreSql::kCrossClaimUnfinished,
         "the audit chain records the end of the run of %1, but the claims table says it never ended"},
        {StoreSql::kCrossClaimUnauthorised, "%1 was run without an approval or a rule allowing it"},
        {StoreSql::kCrossReviewUnrecorded, "an approval of %1 is not the one the audit chain records"},
        {StoreSql::kCrossReviewRemoved,
         "the audit chain records an approval of %1 that the reviews table lacks"},
    };
    for (const Check &check : kChecks) {
        auto q = database.exec(check.sql);
        if (!q)
            return failure(q.error());
        if (q.value().next())
            return QString::fromLatin1(check.problem).arg(q.value().value(0).toString());
    }
    if (auto digests = operationDigests(database); !digests || !digests.value().isEmpty())
        return digests;
    auto finished = database.exec(StoreSql::kCrossFinishedClaims);
    if (!finished)
        return failure(finished.error());
    QSqlQuery &row = finished.value();
    const QSqlRecord record = row.record();
    const int nonceAt = StoredValue::column(record, "nonce");
    const int resultAt = StoredValue::column(record, "result");
    const int digestAt = StoredValue::column(record, "digest");
    while (row.next()) {
        const QByteArray text = row.value(resultAt).toByteArray();
        const nlohmann::json result = nlohmann::json::parse(text.cbegin(), text.cend(), nullptr, false);
        if (result.is_discarded() ||
            QString::fromLatin1(CanonicalJson::digest(result)) != row.value(digestAt).toString())
            return QStringLiteral("the stored result of %1 is not the one its run recorded")
                .arg(row.value(nonceAt).toString());
    }
    return QString();
}

} // namespace Countersign::AuditCrossCheck
