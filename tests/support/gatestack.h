#pragma once

#include "gate.h"
#include "policy.h"
#include "result.h"

#include <QString>

#include <memory>

namespace Countersign {

class ApprovalQueue;
class AuditStore;
class Database;
class ReceiptSigner;
class TicketSealer;

// The stack the gate and tool tests build on, as the app wires it: a real SQLite database (a file
// or ":memory:"), the audit store, the real sealer (a fresh key) and signer, the gate on the
// test's clock, and the approval queue parked by the gate and waking it.
class GateStack final
{
public:
    static Result<std::unique_ptr<GateStack>> create(const Clock &clock, const QString &databasePath,
                                                     Policy policy = {}, Gate::Settings settings = {});
    ~GateStack();
    Q_DISABLE_COPY_MOVE(GateStack)

    // A new gate and queue over the same store (another policy or poll window).
    void rebuildGate(Policy policy, Gate::Settings settings);

    Database &database() { return *m_db; }
    AuditStore &store() { return *m_store; }
    const TicketSealer &sealer() const { return *m_sealer; }
    const ReceiptSigner &signer() const { return *m_signer; }
    Gate &gate() { return *m_gate; }
    ApprovalQueue &queue() { return *m_queue; }

private:
    explicit GateStack(const Clock &clock);

    const Clock &m_clock;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AuditStore> m_store;
    std::unique_ptr<TicketSealer> m_sealer;
    std::unique_ptr<ReceiptSigner> m_signer;
    std::unique_ptr<Gate> m_gate;
    std::unique_ptr<ApprovalQueue> m_queue;
};

} // namespace Countersign
