#pragma once

#include "result.h"

#include <QString>

namespace Countersign {

class Database;

// The tables against the audit chain (`audit verify`, after the chain itself verified): every
// operation, decision and claim has the chain row that records it, with the same fields; every
// decision row in the chain has its table row; every decision is covered by a signed checkpoint;
// every stored result has the digest its run row recorded; a claim exists only for an approved or
// allowed operation. A row written around the store (by another process) shows up here.
namespace AuditCrossCheck {

// The first inconsistency in words, or an empty string when the tables agree with the chain.
Result<QString> firstProblem(Database &database);

} // namespace AuditCrossCheck

} // namespace Countersign
