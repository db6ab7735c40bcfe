// libFuzzer target: the shell command reader (shared/shell). Any line is read without a crash, a
// hang or unbounded work; what the parser could not read always shows as an Unknown effect (so
// it asks); and reading is deterministic.
#include "commandeffects.h"
#include "shellparser.h"

#include <cstdint>
#include <cstdlib>

using namespace Countersign::Shell;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString line = QString::fromUtf8(reinterpret_cast<const char *>(data), qsizetype(size));
    const CommandEffects::Context context{QStringLiteral("/work/ws"), QStringLiteral("/home/user")};
    const QList<Effect> effects = CommandEffects::ofLine(line, context);
    const Script script = ShellParser::parse(line);
    if (!script.problems.isEmpty()) {
        bool unknown = false;
        for (const Effect &e : effects)
            unknown = unknown || e.kind == Effect::Kind::Unknown;
        if (!unknown)
            std::abort(); // a line the reader could not read must never look harmless
    }
    const QList<Effect> again = CommandEffects::ofLine(line, context);
    if (again.size() != effects.size())
        std::abort();
    for (qsizetype i = 0; i < effects.size(); ++i) {
        if (again.at(i).kind != effects.at(i).kind || again.at(i).path != effects.at(i).path)
            std::abort();
    }
    return 0;
}
