#pragma once

#include "database.h"
#include "result.h"

#include <QByteArray>
#include <QList>

// The store's schema, written once for SQLite and PostgreSQL, and the migrations that bring a store
// to it. Where the two dialects spell a type differently the text holds a token:
//   {ID}      the row id of a table with one: SQLite's INTEGER PRIMARY KEY, PostgreSQL's identity
//   {BIGINT}  a 64-bit integer (times in milliseconds, sequence numbers): SQLite's INTEGER
// and the few statements one dialect needs and the other cannot run are marked as that dialect's.
namespace Countersign::Migrations {

// The schema this build writes and reads: the last migration's version, the same on both stores.
int latest();
// The store's schema version (0: a new store), or -1 when it cannot be read.
int version(Database &database);
// The statements that bring a store of the dialect from schema `after` to latest(), in order, with
// the dialect's words for the tokens.
QList<QByteArray> statements(Database::Dialect dialect, int after);
// Brings a store opened for writing to latest(): SQLite one version per write transaction,
// PostgreSQL all in one (it holds the store's write lock, so instances starting together migrate
// one at a time; the version is read again under it). A store newer than this build is refused.
Status apply(Database &database);

} // namespace Countersign::Migrations
