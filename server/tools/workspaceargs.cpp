#include "workspaceargs.h"

#include "workspace.h"

#include <QDir>

namespace Countersign::WorkspaceArgs {

using json = nlohmann::json;

json descriptor(const char *name, const char *title, const char *description, json properties, json required,
                bool readOnly, bool destructive)
{
    return {{"name", name},
            {"title", title},
            {"description", std::string(description) +
                                (readOnly ? "" : " Needs a human's approval in the Countersign window.")},
            {"inputSchema",
             {{"type", "object"},
              {"properties", std::move(properties)},
              {"required", std::move(required)},
              {"additionalProperties", false}}},
            {"annotations",
             {{"title", title},
              {"readOnlyHint", readOnly},
              {"destructiveHint", destructive},
              {"idempotentHint", readOnly},
              {"openWorldHint", false}}}};
}

QString str(const json &args, const char *key)
{
    const auto it = args.find(key);
    return it != args.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

// The path as the human reads it: relative to its root.
QString shown(const Workspace &ws, const QString &resolved)
{
    const QString root = ws.rootOf(resolved);
    const QString rel = QDir(root).relativeFilePath(resolved);
    return rel == QLatin1String(".") ? root : rel;
}

} // namespace Countersign::WorkspaceArgs
