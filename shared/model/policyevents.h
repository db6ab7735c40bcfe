#pragma once

#include <nlohmann/json.hpp>

#include <QString>

namespace Countersign::PolicyEvents {

// The configuration's changes as the audit chain holds them (ConfigGuard's policy-narrowed,
// policy-widened-accepted, policy-widened-rejected and policy-widening-waiting events), read as rows
// of the audit view and of its export beside the calls.

// AuditFilter::decision that lists them (and only them) in the audit view.
inline constexpr const char *kDecision = "configuration";
// A row's id: "policy-" and the chain's sequence number.
QString idOf(qint64 seq);
// What a change did, in words: "subject: before -> after", each widening and narrowing, "; " between.
QString changesText(const nlohmann::json &detail);

} // namespace Countersign::PolicyEvents
