#include "receiptbody.h"

#include "toolresult.h"

namespace Countersign::ReceiptBody {

using json = nlohmann::json;

json make(const Ticket &ticket, const Decision &decision, qint64 consumedMs, qint64 finishedMs,
          const json &result, const json &auditHead, const QString &diffDigest)
{
    json body = {{"v", 1},
                 {"type", "countersign.receipt"},
                 {"tool", ticket.op.toStdString()},
                 {"connection", ticket.sub.toStdString()},
                 {"client", ticket.client.toStdString()},
                 {"nonce", ticket.nonce.toStdString()},
                 {"argsDigest", ticket.argsDigest.toStdString()},
                 {"planDigest", ticket.planDigest.toStdString()},
                 {"decision", "approved"},
                 {"approver", decision.by.toStdString()},
                 {"decidedAt", decision.atMs},
                 {"mintedAt", ticket.iat},
                 {"expiresAt", ticket.exp},
                 {"consumedAt", consumedMs},
                 {"finishedAt", finishedMs},
                 {"outcome", ToolResult::failed(result) ? "failed" : "succeeded"},
                 {"resultDigest", ReceiptSigner::resultDigest(result).toStdString()},
                 {"auditHead", auditHead}};
    if (!diffDigest.isEmpty())
        body["diffDigest"] = diffDigest.toStdString();
    return body;
}

json attach(json result, json signedReceipt)
{
    json meta = result.contains("_meta") && result["_meta"].is_object() ? result["_meta"] : json::object();
    meta[kMetaKey] = std::move(signedReceipt);
    result["_meta"] = std::move(meta);
    return result;
}

} // namespace Countersign::ReceiptBody
