#pragma once

#include "result.h"

#include <QString>

namespace Countersign::TestStore {

// The PostgreSQL server the store tests also run against: COUNTERSIGN_TEST_POSTGRES, a
// postgresql:// URL of a superuser (tests/support/postgres.sh starts a throwaway one; tests/run.sh
// does so for every run). Empty when unset: those runs are skipped, and say so.
QString postgresServer();
// A new empty database `name` on that server (dropped first if it exists, its connections ended);
// its URL.
Result<QString> freshPostgres(const QString &name);

} // namespace Countersign::TestStore
