#pragma once

#include "result.h"
#include "serverkeys.h"

namespace Countersign {

class Config;

// Loads the server keys for the data folder: from the OS keychain (a key file in the data folder
// when no keychain answers, with a warning), or only from the key file when the configuration says
// "keyStore": "file". Writes the receipt public key next to the database for `receipt verify`.
Result<ServerKeys> loadServerKeys(const Config &config, const QString &dataDir);

// Where the receipt-signing public key (base64) of a data folder is written.
QString receiptPublicKeyPath(const QString &dataDir);

} // namespace Countersign
