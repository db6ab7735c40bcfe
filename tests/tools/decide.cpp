// countersign-test-decide: the test host's hand on the approval queue. Opens the queue over a data
// folder's database (as the window does), waits for a pending card and decides it. Built only with
// the tests; never installed.
//
//   countersign-test-decide DATA_DIR approve|decline|list [--nonce N] [--reason R] [--typed T]
//                           [--wait-ms MS] [--by NAME] [--store LOCATION]
//   countersign-test-decide DATA_DIR grant [--nonce N] [--verdict allow|deny] [--scope
//   call|command|file|tool]
//                           [--expires-ms MS] [--session card]
//                                               (approves or declines the card, then grants as the card's
//                                                "Allow / Deny from now on" does; MS 0: until revoked)
//   countersign-test-decide DATA_DIR revoke-grant --id ID
//   countersign-test-decide DATA_DIR seen [--nonce N] [--ttl-ms MS] [--by WHERE]
//                           (records the card as seen, as the window or a phone's page does; its
//                            time to decide, MS, counts from now: 300000 by default)
// --store: the store to decide in (a postgresql:// URL the console shares with others); the data
// folder's countersign.db by default. The key is always the data folder's.
// Prints one JSON line: {"nonce", "tool", "outcome"} (or the pending cards for list, each with
// the words its card shows, CardFace, and what would make them hard to read).
#include "approvalqueue.h"
#include "auditstore.h"
#include "cardface.h"
#include "cardsightings.h"
#include "database.h"
#include "filesecretstore.h"
#include "grants.h"
#include "receipt.h"
#include "serverkeys.h"
#include "systemclock.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QThread>

#include <cstdio>

using namespace Countersign;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: countersign-test-decide DATA_DIR approve|decline|list [options]\n");
        return 2;
    }
    const QString dataDir = args.takeFirst();
    const QString verb = args.takeFirst();
    QString nonce, reason, typed, by = QStringLiteral("console:test-host");
    QString verdict = QStringLiteral("allow"), scope = QStringLiteral("call"), grantId;
    qint64 expiresInMs = 3600 * 1000;
    qint64 ttlMs = 300'000;
    bool sessionBound = false;
    QString store = QDir(dataDir).filePath(QStringLiteral("countersign.db"));
    int waitMs = 10000;
    for (qsizetype i = 0; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--nonce"))
            nonce = args[i + 1];
        else if (args[i] == QLatin1String("--reason"))
            reason = args[i + 1];
        else if (args[i] == QLatin1String("--typed"))
            typed = args[i + 1];
        else if (args[i] == QLatin1String("--wait-ms"))
            waitMs = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--by"))
            by = args[i + 1];
        else if (args[i] == QLatin1String("--store"))
            store = args[i + 1];
        else if (args[i] == QLatin1String("--verdict"))
            verdict = args[i + 1];
        else if (args[i] == QLatin1String("--scope"))
            scope = args[i + 1];
        else if (args[i] == QLatin1String("--expires-ms"))
            expiresInMs = args[i + 1].toLongLong();
        else if (args[i] == QLatin1String("--id"))
            grantId = args[i + 1];
        else if (args[i] == QLatin1String("--session") && args[i + 1] == QLatin1String("card"))
            sessionBound = true;
        else if (args[i] == QLatin1String("--ttl-ms"))
            ttlMs = args[i + 1].toLongLong();
    }
    auto db = Database::open(store);
    if (!db) {
        std::fprintf(stderr, "%s\n", qPrintable(db.error()));
        return 1;
    }
    SystemClock clock;
    // The console's key (the tests' servers keep it in the data folder's key file): a decision is
    // checkpointed with it, or the gate does not act on it.
    FileSecretStore files(QDir(dataDir).filePath(QStringLiteral("keys")));
    auto keys = ServerKeys::load(files, nullptr);
    if (!keys) {
        std::fprintf(stderr, "%s\n", qPrintable(keys.error()));
        return 1;
    }
    const ReceiptSigner signer(keys.value().signingSeed);
    AuditStore audit(*db.value(), clock, &signer);
    ApprovalQueue queue(audit, clock);
    Grants grants(audit, clock, signer);
    if (verb == QLatin1String("revoke-grant")) {
        if (auto revoked = grants.revoke(grantId, by); !revoked) {
            std::fprintf(stderr, "%s\n", qPrintable(revoked.error()));
            return 1;
        }
        std::printf("%s\n", nlohmann::json({{"revoked", grantId.toStdString()}}).dump().c_str());
        return 0;
    }
    QElapsedTimer waited;
    waited.start();
    std::optional<Operation> card;
    while (true) {
        if (auto r = queue.restore(); !r) {
            std::fprintf(stderr, "%s\n", qPrintable(r.error()));
            return 1;
        }
        card = nonce.isEmpty()
                   ? (queue.pending().isEmpty() ? std::nullopt : std::optional(queue.pending().first()))
                   : queue.find(nonce);
        if (verb == QLatin1String("list") || card || waited.elapsed() > waitMs)
            break;
        QThread::msleep(50);
    }
    if (verb == QLatin1String("list")) {
        nlohmann::json cards = nlohmann::json::array();
        for (const Operation &op : queue.pending()) {
            const CardFace face = CardFace::of(op);
            nlohmann::json problems = nlohmann::json::array();
            for (const QString &p : face.problems(op))
                problems.push_back(p.toStdString());
            cards.push_back({{"nonce", op.nonce.toStdString()},
                             {"tool", op.tool.toStdString()},
                             {"title", op.plan.title.toStdString()},
                             {"summary", op.plan.summary.toStdString()},
                             {"risk", riskName(op.plan.risk).toStdString()},
                             {"targets", op.plan.toJson()["targets"]},
                             {"diff", op.plan.diff.toStdString()},
                             {"prompt", op.plan.prompt.toStdString()},
                             {"face", face.toJson()},
                             {"problems", problems}});
        }
        std::printf("%s\n", cards.dump().c_str());
        return 0;
    }
    if (!card) {
        std::fprintf(stderr, "no pending card within %d ms\n", waitMs);
        return 1;
    }
    if (verb == QLatin1String("seen")) {
        CardSightings sightings(queue, audit, clock);
        sightings.setTimeToDecideMs(ttlMs);
        if (auto marked = sightings.markSeen(card->nonce, by); !marked) {
            std::fprintf(stderr, "%s\n", qPrintable(marked.error()));
            return 1;
        }
        const auto seen = sightings.seenOf(card->nonce);
        std::printf("%s\n", nlohmann::json({{"nonce", card->nonce.toStdString()},
                                            {"seenMs", seen ? seen->atMs : 0},
                                            {"decideByMs", seen ? seen->decideByMs : 0}})
                                .dump()
                                .c_str());
        return 0;
    }
    if (verb == QLatin1String("grant")) {
        const Verdict v = verdict == QLatin1String("deny") ? Verdict::Deny : Verdict::Allow;
        std::optional<Grant> offer;
        for (const Grant &g : Grant::offersFor(*card, v)) {
            if (grantScopeName(g.scope) == scope)
                offer = g;
        }
        if (!offer) {
            std::fprintf(stderr, "no %s grant is offered for this card\n", qPrintable(scope));
            return 1;
        }
        offer->by = by;
        offer->expiresMs = expiresInMs == 0 ? 0 : clock.nowMs() + expiresInMs;
        if (sessionBound) { // "while this agent session lasts", as the window offers it
            offer->session = card->agentSession();
            if (offer->session.isEmpty()) {
                std::fprintf(stderr, "the card's call names no agent session\n");
                return 1;
            }
        }
        const auto decided = v == Verdict::Allow
                                 ? queue.approve(card->nonce, by, card->confirmationText())
                                 : queue.decline(card->nonce, by, QStringLiteral("denied from now on"));
        if (!decided) {
            std::fprintf(stderr, "%s\n", qPrintable(decided.error()));
            return 1;
        }
        auto made = grants.add(*offer);
        if (!made) {
            std::fprintf(stderr, "%s\n", qPrintable(made.error()));
            return 1;
        }
        std::printf("%s\n", nlohmann::json({{"nonce", card->nonce.toStdString()},
                                            {"grant", made.value().id.toStdString()},
                                            {"rule", made.value().ruleText().toStdString()}})
                                .dump()
                                .c_str());
        return 0;
    }
    const auto decided =
        verb == QLatin1String("approve")
            ? queue.approve(card->nonce, by, typed.isEmpty() ? card->confirmationText() : typed)
            : queue.decline(card->nonce, by, reason);
    if (!decided) {
        std::fprintf(stderr, "%s\n", qPrintable(decided.error()));
        return 1;
    }
    std::printf("%s\n", nlohmann::json({{"nonce", card->nonce.toStdString()},
                                        {"tool", card->tool.toStdString()},
                                        {"outcome", statusName(decided.value().outcome).toStdString()}})
                            .dump()
                            .c_str());
    return 0;
}
