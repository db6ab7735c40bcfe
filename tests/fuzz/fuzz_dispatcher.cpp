// libFuzzer target: JSON bodies (duplicate keys, depth) and the JSON-RPC dispatcher without
// sockets. Every message that parses must get exactly one well-formed answer (or a 202).
#include "fuzzdispatcher.h"
#include "jsonbody.h"

#include <cstdint>
#include <cstdlib>

using namespace Countersign;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const Dispatcher &dispatcher = fuzzDispatcher();
    auto parsed = JsonBody::parse(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)));
    if (!parsed)
        return 0;
    int answers = 0;
    dispatcher.dispatch(parsed.value(),
                        CallContext{Principal{1, QStringLiteral("fuzz"), {}}, Transport::Http},
                        [&answers](Reply reply) {
                            ++answers;
                            if (reply.body) {
                                const auto &b = *reply.body;
                                if (!b.is_object() || b.value("jsonrpc", "") != "2.0" ||
                                    (b.contains("result") == b.contains("error")))
                                    std::abort();
                                (void)b.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
                            } else if (reply.httpStatus != 202) {
                                std::abort();
                            }
                        });
    FuzzSupport::awaitAnswer(answers);
    return 0;
}
