// libFuzzer target: the ticket opener. The key is random per process and never leaves it, so no
// input the fuzzer can make may open: an accepted ticket is a forgery and aborts. The seed corpus
// holds real sealed tickets (of another key) for the mutations to start from.
#include "ticketsealer.h"

#include <cstdint>
#include <cstdlib>

using namespace Countersign;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const TicketSealer sealer(TicketSealer::generateKey(), QStringLiteral("fuzz"));
    const QString sealed = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    if (sealer.open(sealed).ok())
        std::abort(); // a forged ticket was accepted
    return 0;
}
