#pragma once

#include <QString>

namespace Countersign {

class AuditStore;
struct Operation;

namespace AuditDetail {

// The audit view's detail pane for one operation, as HTML: who asked for what and when, its
// decision, whether its card was seen, its outcome, risk, rule, prompt, summary, targets and blast
// radius, then its result, receipt, plan and arguments. Every text from the store is escaped.
QString page(AuditStore &store, const Operation &operation);

} // namespace AuditDetail

} // namespace Countersign
