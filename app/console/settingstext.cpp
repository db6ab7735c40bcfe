#include "settingstext.h"

#include "commandline.h"
#include "config.h"
#include "serverkeys.h"

#include <QCoreApplication>
#include <QUrl>

#include <nlohmann/json.hpp>

namespace Countersign {

// What is in force, as the Settings tab shows it: the address served now (a --listen given on the
// command line wins over the file's), the roots and upstreams that decide what agents can touch,
// every hold and bound, and the policy. An upstream's headers and environment are named, never
// shown: they hold its secrets.
QString settingsText(const Config &config, const CommandLine &cl, const ServerKeys &keys,
                     const QString &servedUrl)
{
    nlohmann::json actions = nlohmann::json::array();
    for (const ActionSpec &a : config.actions())
        actions.push_back({{"name", a.name.toStdString()},
                           {"risk", riskName(a.risk).toStdString()},
                           {"plan", a.plan.join(QLatin1Char(' ')).toStdString()},
                           {"apply", a.apply.join(QLatin1Char(' ')).toStdString()}});
    nlohmann::json upstreams = nlohmann::json::array();
    for (const UpstreamSpec &u : config.upstreams()) {
        nlohmann::json entry = {{"name", u.name.toStdString()},
                                {"prefix", u.prefix.toStdString()},
                                {"timeoutSeconds", u.timeoutSeconds}};
        if (u.isStdio())
            entry["command"] = u.command.join(QLatin1Char(' ')).toStdString();
        else
            entry["url"] = u.url.toStdString();
        nlohmann::json headerNames = nlohmann::json::array();
        for (const auto &h : u.headers)
            headerNames.push_back(h.first.toStdString());
        if (!headerNames.empty())
            entry["headers (values not shown)"] = headerNames;
        nlohmann::json envNames = nlohmann::json::array();
        for (auto it = u.env.cbegin(); it != u.env.cend(); ++it)
            envNames.push_back(it.key().toStdString());
        if (!envNames.empty())
            entry["env (values not shown)"] = envNames;
        upstreams.push_back(std::move(entry));
    }
    nlohmann::json roots = nlohmann::json::array();
    for (const QString &root : config.workspaceRoots())
        roots.push_back(root.toStdString());
    const QString configured = QStringLiteral("%1:%2").arg(config.listenHost()).arg(config.listenPort());
    const QString served =
        QUrl(servedUrl).isValid() && !servedUrl.isEmpty()
            ? QStringLiteral("%1:%2").arg(QUrl(servedUrl).host()).arg(QUrl(servedUrl).port())
            : configured;
    nlohmann::json effective = {{"configFile", cl.configPath.toStdString()},
                                {"dataFolder", cl.dataDir.toStdString()},
                                {"serving", served.toStdString()},
                                {"mode", gateModeName(config.mode()).toStdString()},
                                {"workspaceRoots", roots},
                                {"upstreams", upstreams},
                                {"ttlSeconds", config.ttlSeconds()},
                                {"pollWindowSeconds", config.pollWindowSeconds()},
                                {"legacyHoldSeconds", config.legacyHoldSeconds()},
                                {"progressHoldSeconds", config.progressHoldSeconds()},
                                {"hookHoldSeconds", config.hookHoldSeconds()},
                                {"cardMinimumSeconds", config.cardMinimumSeconds()},
                                {"undoMegabytes", config.undoMegabytes()},
                                {"undoDays", config.undoDays()},
                                {"undoKeepHours", config.undoKeepHours()},
                                {"keys", keys.storedIn.toStdString()},
                                {"actions", actions},
                                {"policy", config.policy().toJson()}};
    if (served != configured)
        effective["listen (configured; port 0 picks a free one)"] = configured.toStdString();
    return QCoreApplication::translate(
               "main", "The effective configuration (edit the configuration file to change it; "
                       "it is reloaded when saved):\n\n") +
           QString::fromStdString(effective.dump(2));
}

} // namespace Countersign
