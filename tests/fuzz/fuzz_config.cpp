// libFuzzer target: the configuration loader (JSON with comments, actions, rules, approval). Any
// input is either a Config or an error naming the file and a line.
#include "config.h"

#include <cstdint>
#include <cstdlib>

using namespace Countersign;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto config = Config::parse(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)),
                                      QStringLiteral("fuzz.json"));
    if (!config && !config.error().startsWith(QLatin1String("fuzz.json")))
        std::abort(); // an error that does not say where
    return 0;
}
