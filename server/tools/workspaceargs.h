#pragma once

#include <nlohmann/json.hpp>

#include <QString>

namespace Countersign {

class Workspace;

// What the workspace tools share: their tools/list entry, a string argument read whatever the
// agent sent, and a path as the human reads it.
namespace WorkspaceArgs {

// A tools/list entry: a closed object schema and the annotations every tool states.
nlohmann::json descriptor(const char *name, const char *title, const char *description,
                          nlohmann::json properties, nlohmann::json required, bool readOnly,
                          bool destructive);
// args[key] when it is a string, else empty.
QString str(const nlohmann::json &args, const char *key);
// A resolved path relative to its root (the root itself when it is the root).
QString shown(const Workspace &ws, const QString &resolved);

} // namespace WorkspaceArgs

} // namespace Countersign
