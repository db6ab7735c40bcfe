#pragma once

#include <QString>
#include <QStringList>

// What a path is, for the judge: a secret, a protected file, a device, where it leads.
namespace Countersign::PathRules {

// path is folder or inside it (both clean and absolute).
bool under(const QString &path, const QString &folder);
// Whether a path holds a component path among names (a/b/.git/hooks/x holds ".git").
bool hasComponentPath(const QString &path, const QStringList &names);
// A file name that says it holds a credential (.env, id_rsa, *.pem, ...).
bool secretFileName(const QString &name);
// /dev/null, /dev/stdout and their kind: reading or writing them touches no file.
bool isDevice(const QString &path);
// bash's /dev/tcp and /dev/udp: a network connection.
bool isNetworkDevice(const QString &path);
// ~ in front of a path in the home folder.
QString shortPath(const QString &path, const QString &home);
// Where a path leads as the kernel finds it: each link followed before a ".." goes up.
QString resolved(const QString &path);
// A file whose reading hands over a credential (~/.ssh, ~/.aws, .env, ...), as written or where it leads.
bool isSecret(const QString &absolutePath, const QString &home);
// A file whose change reaches past the project or the gate: shell start-up files, the agents' and
// Countersign's own settings, .git/ internals, CI definitions, agent instructions.
bool isProtected(const QString &absolutePath, const QString &home);

} // namespace Countersign::PathRules
