// One reading of a line per decision (CommandEffects::Memo, commandeffects.h): ofLine and ofPython
// give what a live memo already read in the same context.
#include "commandeffects.h"

#include <QHash>

namespace Countersign::Shell {

namespace {

struct Memory final
{
    int depth = 0;
    QHash<QString, QList<Effect>> effects;
};

Memory &memory()
{
    thread_local Memory m;
    return m;
}

// The effects of key from the memo when one is alive, else computed (and kept while it lives).
template <typename Compute> QList<Effect> remembered(const QString &key, Compute compute)
{
    Memory &m = memory();
    if (m.depth == 0)
        return compute();
    if (const auto it = m.effects.constFind(key); it != m.effects.cend())
        return *it;
    QList<Effect> effects = compute();
    if (m.effects.size() < 64)
        m.effects.insert(key, effects);
    return effects;
}

} // namespace

CommandEffects::Memo::Memo()
{
    ++memory().depth;
}

CommandEffects::Memo::~Memo()
{
    if (--memory().depth == 0)
        memory().effects.clear();
}

QList<Effect> CommandEffects::ofLine(const QString &line, const Context &context)
{
    return remembered(QStringLiteral("line\n%1\n%2\n%3").arg(context.cwd, context.home, line),
                      [&] { return read(line, context); });
}

QList<Effect> CommandEffects::ofPython(const QString &code, const QString &origin, const Context &context,
                                       const QString &importFolder)
{
    return remembered(QStringLiteral("python\n%1\n%2\n%3\n%4\n%5")
                          .arg(context.cwd, context.home, origin, importFolder, code),
                      [&] { return readPython(code, origin, context, importFolder); });
}

} // namespace Countersign::Shell
