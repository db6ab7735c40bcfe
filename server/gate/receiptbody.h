#pragma once

#include "operation.h"
#include "receipt.h"
#include "ticket.h"

#include <nlohmann/json.hpp>

namespace Countersign {

// The receipt of an approved run (docs/design.md, step 8): what was approved by whom, which ticket it
// consumed and when, and the digest of the result it produced. ReceiptSigner signs the body.
namespace ReceiptBody {

// _meta key of the signed receipt on a complete result.
inline constexpr const char *kMetaKey = ReceiptSigner::kResultMetaKey;

// auditHead: the audit chain's head when the run was claimed ({"seq", "hash"}); signed with the
// receipt, it proves the log up to that row, and a log cut or rewritten below it fails audit verify.
// diffDigest: the hex SHA-256 of the diff the card showed (for git reset --hard, the work it
// discarded), named in the receipt when given.
nlohmann::json make(const Ticket &ticket, const Decision &decision, qint64 consumedMs, qint64 finishedMs,
                    const nlohmann::json &result, const nlohmann::json &auditHead,
                    const QString &diffDigest = {});
// result with the signed receipt added under _meta[kMetaKey] (other _meta keys kept).
nlohmann::json attach(nlohmann::json result, nlohmann::json signedReceipt);

} // namespace ReceiptBody

} // namespace Countersign
