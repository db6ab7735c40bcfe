// libFuzzer target: the HTTP request parser and the /mcp endpoint behind it (Host/Origin/auth/
// content-type checks, JSON body, envelope, MCP header checks, dispatch). The input is split into
// chunks at the positions its first byte picks, as a socket would deliver it.
#include "fuzzdispatcher.h"
#include "httpparser.h"
#include "localcaller.h"
#include "mcphttpendpoint.h"

#include <cstdint>
#include <cstdlib>

using namespace Countersign;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static McpHttpEndpoint endpoint(fuzzDispatcher());
    static const LocalCaller::Authenticator authenticate =
        [](const QByteArray &token) -> std::optional<Principal> {
        if (token == "cs_fuzz")
            return Principal{1, QStringLiteral("fuzz"), {}};
        return std::nullopt;
    };
    if (size == 0)
        return 0;
    const size_t step = 1 + data[0] % 64;
    const QByteArray bytes(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    HttpParser parser;
    int requests = 0;
    for (qsizetype at = 0; at < bytes.size() || at == 0; at += qsizetype(step)) {
        HttpParser::State state = parser.feed(bytes.mid(at, qsizetype(step)));
        while (state == HttpParser::State::Complete) {
            const HttpRequest request = parser.takeRequest();
            if (request.body.size() > HttpParser::kMaxBodyBytes)
                std::abort(); // the parser let through more than its limit
            int answered = 0;
            endpoint.serve(request, LocalCaller::check(request, authenticate, {}),
                           [&answered](HttpResponse response) {
                               if (response.status < 200 || response.status > 599)
                                   std::abort();
                               ++answered;
                           });
            FuzzSupport::awaitAnswer(answered);
            if (const auto host = request.header("host"))
                (void)LocalCaller::isLoopbackHost(*host);
            if (const auto origin = request.header("origin"))
                (void)LocalCaller::isAllowedOrigin(*origin);
            if (++requests > 64)
                return 0;
            state = parser.feed({});
        }
        if (state == HttpParser::State::Failed) {
            if (parser.errorStatus() < 400 || parser.errorStatus() > 505)
                std::abort();
            break;
        }
        if (bytes.isEmpty())
            break;
    }
    return 0;
}
