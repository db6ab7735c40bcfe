#pragma once

#include <QString>

namespace Countersign {

class Config;
struct CommandLine;
struct ServerKeys;

// The Settings page's text: the effective configuration and policy, read-only. servedUrl: the
// address the server listens on now (empty before it listens).
QString settingsText(const Config &config, const CommandLine &cl, const ServerKeys &keys,
                     const QString &servedUrl);

} // namespace Countersign
