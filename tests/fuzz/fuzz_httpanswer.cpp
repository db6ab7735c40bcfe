// libFuzzer target: the reader of an upstream's HTTP answers (HttpAnswer, what the gateway's
// HttpExchange feeds from its socket): heads, interim answers, Content-Length, chunked and
// read-to-close bodies, event streams. The input is split into chunks at the positions its first
// byte picks, as a socket would deliver it, and the connection closes at its end. Checked: nothing
// is handed over after the end, and never more message bytes than came in.
#include "httpanswer.h"

#include <cstdint>
#include <cstdlib>

using namespace Countersign;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const size_t step = 1 + data[0] % 64;
    const QByteArray bytes(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    HttpAnswer answer(64 * 1024);
    qsizetype handed = 0;
    bool ended = false;
    const auto check = [&](const HttpAnswer::Progress &progress) {
        if (ended && (!progress.messages.isEmpty() || progress.headNow))
            std::abort(); // anything after the end
        for (const QByteArray &message : progress.messages)
            handed += message.size();
        ended = ended || progress.ended;
        if (handed > bytes.size())
            std::abort(); // more out than came in
    };
    for (qsizetype at = 0; at < bytes.size() && !ended; at += qsizetype(step))
        check(answer.feed(bytes.mid(at, qsizetype(step))));
    check(answer.close());
    if (!answer.isEnded())
        std::abort(); // a close always ends it
    return 0;
}
