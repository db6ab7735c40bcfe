#include "commandstore.h"

#include "auditstore.h"
#include "commandline.h"
#include "database.h"
#include "keyloader.h"
#include "postgresurl.h"
#include "receipt.h"

#include <QFile>

namespace Countersign {

CommandStore::~CommandStore() = default;

Result<std::unique_ptr<CommandStore>> CommandStore::open(const CommandLine &cl, const QString &missing)
{
    auto config = Config::load(cl.configPath);
    if (!config)
        return failure(config.error());
    const QString path = config.value().storeLocation(cl.dataDir);
    if (!PostgresUrl::names(path) && !QFile::exists(path))
        return failure(QStringLiteral("no audit log at %1%2").arg(path, missing));
    auto keys = loadServerKeys(config.value(), cl.dataDir);
    if (!keys)
        return failure(keys.error());
    auto db = Database::open(path);
    if (!db)
        return failure(db.error());
    auto opened = std::make_unique<CommandStore>();
    opened->config = std::move(config).value();
    opened->db = std::move(db).value();
    opened->signer = std::make_unique<ReceiptSigner>(keys.value().signingSeed);
    opened->store = std::make_unique<AuditStore>(*opened->db, opened->clock, opened->signer.get());
    return opened;
}

} // namespace Countersign
