// CommandEffects' public readers: one reading of a line per decision (CommandEffects::Memo,
// commandeffects.h), where ofLine, ofPython and ofJavaScript give what a live memo already read
// in the same context; and the names of the effects' kinds.
#include "commandeffects.h"

#include "javascriptcode.h"
#include "pythoncode.h"

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
                      [&] { return readCode(PythonCode::read, code, origin, context, importFolder); });
}

QList<Effect> CommandEffects::ofJavaScript(const QString &code, const QString &origin, const Context &context,
                                           const QString &moduleFolder)
{
    return remembered(QStringLiteral("javascript\n%1\n%2\n%3\n%4\n%5")
                          .arg(context.cwd, context.home, origin, moduleFolder, code),
                      [&] { return readCode(JavaScriptCode::read, code, origin, context, moduleFolder); });
}

QString CommandEffects::kindName(Effect::Kind kind)
{
    switch (kind) {
    case Effect::Kind::Reads:
        return QStringLiteral("reads");
    case Effect::Kind::Writes:
        return QStringLiteral("writes");
    case Effect::Kind::Deletes:
        return QStringLiteral("deletes");
    case Effect::Kind::Network:
        return QStringLiteral("network");
    case Effect::Kind::Runs:
        return QStringLiteral("runs");
    case Effect::Kind::Installs:
        return QStringLiteral("installs");
    case Effect::Kind::Secret:
        return QStringLiteral("secret");
    case Effect::Kind::History:
        return QStringLiteral("history");
    case Effect::Kind::Environment:
        return QStringLiteral("environment");
    case Effect::Kind::Privilege:
        return QStringLiteral("privilege");
    case Effect::Kind::Unknown:
        return QStringLiteral("unknown");
    }
    return QStringLiteral("unknown");
}

} // namespace Countersign::Shell
