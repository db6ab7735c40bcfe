#pragma once

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace Countersign::BlastRadiusText {

// A plan's blastRadius in words, one line per fact, for the approval card, the audit view and the
// phone's card: counts with their noun in the right number ("1 file", "3 DNS records"), sizes once ("14
// bytes", "1.5 MiB"), a unit in the key put before its noun ("volumeGB": 40 is "40 GB volume"), true flags as
// what they say ("a new file") and false ones left out, unless false says something ("not in a git work
// tree"). Keys the workspace tools write come first, in an order that reads; a plan command's own keys follow
// in key order. "irreversible" is left to the risk's words. Values are the agent's or the plan command's
// text: shown as plain text, never as markup.
QStringList lines(const nlohmann::json &blastRadius);
// lines() joined by line breaks, or a sentence saying nothing was measured.
QString text(const nlohmann::json &blastRadius);

} // namespace Countersign::BlastRadiusText
