#pragma once

#include <QString>

class QObject;

namespace Countersign {

class ConfigGuard;
class McpServer;
class PolicyChange;

// What the console says on stderr (and the window repeats) as configurations are read and judged,
// and as upstreams change their tools.

// One line for stderr: the file's text may hold line breaks and control characters.
QString oneLine(QString text);
// At start, a widening the human refused is still in the file, in words (stderr and the window).
QString stillRefusedText(const PolicyChange &change, const QString &sourcePath);
void reportConfigChanges(ConfigGuard *guard);
// Once per change; context: an object of the console's thread.
void reportUpstreamChanges(McpServer *server, QObject *context);

} // namespace Countersign
