#include "gatestack.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "database.h"
#include "receipt.h"
#include "ticketsealer.h"

#include <sodium.h>

namespace Countersign {

GateStack::GateStack(const Clock &clock) : m_clock(clock) {}

GateStack::~GateStack()
{
    // The queue and gate hold references into the store, the store into the database.
    m_queue.reset();
    m_gate.reset();
    m_store.reset();
    m_db.reset();
}

Result<std::unique_ptr<GateStack>> GateStack::create(const Clock &clock, const QString &databasePath,
                                                     Policy policy, Gate::Settings settings)
{
    std::unique_ptr<GateStack> stack(new GateStack(clock));
    auto db = Database::open(databasePath);
    if (!db)
        return failure(db.error());
    stack->m_db = std::move(db).value();
    QByteArray seed(32, '\0');
    randombytes_buf(seed.data(), static_cast<size_t>(seed.size()));
    stack->m_signer = std::make_unique<ReceiptSigner>(seed);
    stack->m_store = std::make_unique<AuditStore>(*stack->m_db, clock, stack->m_signer.get());
    stack->m_sealer = std::make_unique<TicketSealer>(TicketSealer::generateKey(), QStringLiteral("k1"));
    stack->rebuildGate(std::move(policy), std::move(settings));
    return stack;
}

void GateStack::rebuildGate(Policy policy, Gate::Settings settings)
{
    m_queue.reset();
    m_gate = std::make_unique<Gate>(*m_store, m_clock, *m_sealer, *m_signer, std::move(policy),
                                    std::move(settings));
    m_queue = std::make_unique<ApprovalQueue>(*m_store, m_clock);
    QObject::connect(m_gate.get(), &Gate::parked, m_queue.get(), &ApprovalQueue::park);
    QObject::connect(m_gate.get(), &Gate::retired, m_queue.get(), &ApprovalQueue::retire);
    QObject::connect(m_gate.get(), &Gate::waiting, m_queue.get(), &ApprovalQueue::setWaiting);
    QObject::connect(m_gate.get(), &Gate::clientAnswered, m_queue.get(), &ApprovalQueue::noteClientAnswer);
    QObject::connect(m_queue.get(), &ApprovalQueue::decided, m_gate.get(), &Gate::wake);
}

} // namespace Countersign
