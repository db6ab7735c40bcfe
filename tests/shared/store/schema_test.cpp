// The store's schema is written once (shared/store/migrations.cpp) for SQLite and PostgreSQL. Both stores,
// migrated from nothing, must come out the same: tables, columns (type, NOT NULL, default), primary
// keys, unique constraints, foreign keys, CHECK constraints and indexes, each read back from the
// database's own catalogue. Types compare by kind (SQLite's INTEGER is PostgreSQL's BIGINT or
// INTEGER: PostgreSQL's times and sequence numbers are checked to be BIGINT apart); an index on an
// expression and a CHECK compare by their words, values and operators; the rest must match exactly.
// And a SQLite store written at schema 7 gains what the two had drifted on.
#include "database.h"
#include "migrations.h"
#include "teststore.h"

#include <QRegularExpression>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace Countersign;

namespace {

QString kind(QString type)
{
    type = type.toLower();
    if (type == QLatin1String("integer") || type == QLatin1String("bigint"))
        return QStringLiteral("integer");
    return type;
}

// A CHECK's or an index expression's words, values and operators, whichever way the database writes
// it back: SQLite keeps the text as written ("outcome IN ('approved', ...)"), PostgreSQL its own form
// ("outcome = ANY (ARRAY['approved'::text, ...])", "'$.name'::text").
QString checkWords(QString check)
{
    static const QRegularExpression anyArray(QStringLiteral("=\\s*ANY\\s*\\(\\s*ARRAY\\["),
                                             QRegularExpression::CaseInsensitiveOption);
    check.replace(anyArray, QStringLiteral("IN ("));
    static const QRegularExpression token(
        QStringLiteral("'[^']*'|[A-Za-z_][A-Za-z_0-9]*|[0-9]+|<>|!=|<=|>=|=|<|>"));
    static const QStringList syntax{QStringLiteral("check"), QStringLiteral("array"), QStringLiteral("text")};
    QStringList words;
    for (auto it = token.globalMatch(check); it.hasNext();) {
        const QString word = it.next().captured(0);
        if (!syntax.contains(word.toLower()))
            words.append(word.startsWith(QLatin1Char('\'')) ? word : word.toLower());
    }
    words.sort();
    return words.join(QLatin1Char(' '));
}

// What an index covers, from its CREATE INDEX text (SQLite's as written, PostgreSQL's
// pg_get_indexdef): the part in parentheses after the table (and PostgreSQL's USING btree).
QString indexedWords(const QString &create)
{
    const qsizetype on = create.indexOf(QLatin1String(" ON "), 0, Qt::CaseInsensitive);
    const qsizetype open = create.indexOf(QLatin1Char('('), on);
    return on < 0 || open < 0 ? QStringLiteral("<unreadable: %1>").arg(create) : checkWords(create.mid(open));
}

// Every statement's rows as text, each value separated by '|'.
QStringList rows(Database &db, const char *sql, const QVariantList &bindings = {})
{
    QStringList out;
    auto query = db.exec(sql, bindings);
    if (!query) {
        out.append(QStringLiteral("ERROR ") + query.error());
        return out;
    }
    while (query.value().next()) {
        QStringList values;
        for (int i = 0; i < query.value().record().count(); ++i)
            values.append(query.value().value(i).toString());
        out.append(values.join(QLatin1Char('|')));
    }
    return out;
}

// SQLite's balanced "CHECK (...)" clauses of a CREATE TABLE text.
QStringList sqliteChecks(const QString &create)
{
    static const QRegularExpression keyword(QStringLiteral("\\bCHECK\\s*\\("),
                                            QRegularExpression::CaseInsensitiveOption);
    QStringList checks;
    for (auto it = keyword.globalMatch(create); it.hasNext();) {
        const qsizetype open = it.next().capturedEnd() - 1;
        int depth = 0;
        for (qsizetype i = open; i < create.size(); ++i) {
            depth += create[i] == QLatin1Char('(') ? 1 : create[i] == QLatin1Char(')') ? -1 : 0;
            if (depth == 0) {
                checks.append(create.mid(open, i - open + 1));
                break;
            }
        }
    }
    return checks;
}

QStringList describeSqlite(Database &db)
{
    QStringList out;
    for (const QString &row :
         rows(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) {
        const QString table = row.section(QLatin1Char('|'), 0, 0);
        const QString create = row.section(QLatin1Char('|'), 1);
        out.append(QStringLiteral("table %1").arg(table));
        QStringList pk;
        for (const QString &c :
             rows(db, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", {table})) {
            const QStringList v = c.split(QLatin1Char('|'));
            const bool inKey = v[4] != QLatin1String("0");
            if (inKey)
                pk.append(v[0]);
            // A key's columns are NOT NULL on PostgreSQL and (by a quirk) not marked so on SQLite.
            out.append(QStringLiteral("column %1.%2 %3%4 default=%5")
                           .arg(table, v[0], kind(v[1]),
                                inKey                        ? QStringLiteral(" key")
                                : v[2] == QLatin1String("1") ? QStringLiteral(" not null")
                                                             : QString(),
                                v[3]));
        }
        out.append(QStringLiteral("primary key %1 (%2)").arg(table, pk.join(QLatin1Char(','))));
        for (const QString &i :
             rows(db, "SELECT name, \"unique\", origin FROM pragma_index_list(?)", {table})) {
            const QStringList v = i.split(QLatin1Char('|'));
            QStringList columns;
            for (const QString &col :
                 rows(db, "SELECT cid, name FROM pragma_index_info(?) ORDER BY seqno", {v[0]}))
                columns.append(col.startsWith(QLatin1Char('-')) ? QStringLiteral("<expression>")
                                                                : col.section(QLatin1Char('|'), 1));
            if (v[2] == QLatin1String("u"))
                out.append(QStringLiteral("unique %1 (%2)").arg(table, columns.join(QLatin1Char(','))));
            else if (v[2] == QLatin1String("c"))
                out.append(QStringLiteral("index %1 on %2 (%3)%4%5")
                               .arg(v[0], table, columns.join(QLatin1Char(',')),
                                    v[1] == QLatin1String("1") ? QStringLiteral(" unique") : QString(),
                                    columns.contains(QStringLiteral("<expression>"))
                                        ? QStringLiteral(": ") +
                                              indexedWords(rows(db,
                                                                "SELECT sql FROM sqlite_master WHERE "
                                                                "type = 'index' AND name = ?",
                                                                {v[0]})
                                                               .value(0))
                                        : QString()));
        }
        for (const QString &f :
             rows(db, "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?)", {table})) {
            const QStringList v = f.split(QLatin1Char('|'));
            out.append(QStringLiteral("foreign key %1 (%2) -> %3 (%4)").arg(table, v[1], v[0], v[2]));
        }
        for (const QString &check : sqliteChecks(create))
            out.append(QStringLiteral("check %1: %2").arg(table, checkWords(check)));
    }
    out.sort();
    return out;
}

QStringList describePostgres(Database &db)
{
    QStringList out;
    for (const QString &table :
         rows(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                  "'public' AND table_name <> 'countersign_schema'")) {
        out.append(QStringLiteral("table %1").arg(table));
        const QStringList keyColumns =
            rows(db,
                 "SELECT a.attname FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND "
                 "a.attnum = "
                 "ANY (c.conkey) WHERE c.conrelid = CAST(? AS regclass) AND c.contype = 'p'",
                 {table});
        for (const QString &c :
             rows(db,
                  "SELECT column_name, data_type, is_nullable, COALESCE(column_default, '') FROM "
                  "information_schema.columns WHERE table_schema = 'public' AND table_name = ?",
                  {table})) {
            const QStringList v = c.split(QLatin1Char('|'));
            const bool inKey = keyColumns.contains(v[0]);
            out.append(QStringLiteral("column %1.%2 %3%4 default=%5")
                           .arg(table, v[0], kind(v[1]),
                                inKey                         ? QStringLiteral(" key")
                                : v[2] == QLatin1String("NO") ? QStringLiteral(" not null")
                                                              : QString(),
                                v[3]));
        }
        // Each constraint's columns in the constraint's order.
        for (const QString &k :
             rows(db,
                  "SELECT c.contype, c.conname, "
                  "(SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.conkey) WITH "
                  "ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND "
                  "a.attnum = k.attnum), "
                  "COALESCE(CAST(c.confrelid AS regclass)::text, ''), "
                  "COALESCE((SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.confkey) "
                  "WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.confrelid "
                  "AND a.attnum = k.attnum), ''), pg_get_constraintdef(c.oid) "
                  "FROM pg_constraint c WHERE c.conrelid = CAST(? AS regclass)",
                  {table})) {
            const QStringList v = k.split(QLatin1Char('|'));
            if (v[0] == QLatin1String("p"))
                out.append(QStringLiteral("primary key %1 (%2)").arg(table, v[2]));
            else if (v[0] == QLatin1String("u"))
                out.append(QStringLiteral("unique %1 (%2)").arg(table, v[2]));
            else if (v[0] == QLatin1String("f"))
                out.append(QStringLiteral("foreign key %1 (%2) -> %3 (%4)").arg(table, v[2], v[3], v[4]));
            else if (v[0] == QLatin1String("c"))
                out.append(QStringLiteral("check %1: %2").arg(table, checkWords(v[5])));
            else if (v[0] != QLatin1String("n")) // NOT NULL (PostgreSQL 18 lists it): compared by column
                out.append(QStringLiteral("constraint %1 of kind %2").arg(v[1], v[0]));
        }
        // Indexes made by CREATE INDEX (not those behind a key or a unique constraint).
        for (const QString &i :
             rows(db,
                  "SELECT ic.relname, x.indisunique, pg_get_indexdef(x.indexrelid), "
                  "(SELECT string_agg(CASE WHEN k.attnum = 0 THEN '<expression>' ELSE a.attname END, "
                  "',' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n) LEFT JOIN "
                  "pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum) "
                  "FROM pg_index x JOIN pg_class ic ON ic.oid = x.indexrelid WHERE x.indrelid = "
                  "CAST(? AS regclass) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE "
                  "c.conindid = x.indexrelid)",
                  {table})) {
            // The definition holds '|' nowhere in this schema; the covered columns come last.
            const QStringList v = i.split(QLatin1Char('|'));
            const QString columns = v.value(3);
            out.append(QStringLiteral("index %1 on %2 (%3)%4%5")
                           .arg(v[0], table, columns,
                                v[1] == QLatin1String("true") || v[1] == QLatin1String("1")
                                    ? QStringLiteral(" unique")
                                    : QString(),
                                columns.contains(QStringLiteral("<expression>"))
                                    ? QStringLiteral(": ") +
                                          indexedWords(QString(v[2]).replace(QLatin1String(" USING btree "),
                                                                             QLatin1String(" ")))
                                    : QString()));
        }
    }
    out.sort();
    return out;
}

} // namespace

class SchemaTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bothStores_fromNothing_haveOneSchema()
    {
        if (TestStore::postgresServer().isEmpty())
            QSKIP("COUNTERSIGN_TEST_POSTGRES unset: the schema is compared only with a PostgreSQL server");
        QTemporaryDir dir;
        auto sqlite = Database::open(dir.filePath(QStringLiteral("schema.db")));
        QVERIFY2(sqlite.ok(), qPrintable(sqlite.ok() ? QString() : sqlite.error()));
        auto url = TestStore::freshPostgres(QStringLiteral("countersign_schema_test"));
        QVERIFY2(url.ok(), qPrintable(url.ok() ? QString() : url.error()));
        auto postgres = Database::open(url.value());
        QVERIFY2(postgres.ok(), qPrintable(postgres.ok() ? QString() : postgres.error()));
        QCOMPARE(Migrations::version(*sqlite.value()), Migrations::latest());
        QCOMPARE(Migrations::version(*postgres.value()), Migrations::latest());

        const QStringList onSqlite = describeSqlite(*sqlite.value());
        const QStringList onPostgres = describePostgres(*postgres.value());
        // Not a comparison of two empty lists: the tables and what the gate relies on are there.
        for (const char *expected :
             {"table operations", "table decisions", "table audit_log", "table reviews",
              "index operations_supersedes on operations (supersedes)",
              "foreign key decisions (nonce) -> operations (nonce)", "primary key reviews (nonce,reviewer)",
              "unique connections (token_hash)"})
            QVERIFY2(onSqlite.contains(QLatin1String(expected)), expected);
        QVERIFY(!onSqlite.filter(QStringLiteral("check decisions: "))
                     .filter(QStringLiteral("'abandoned'"))
                     .isEmpty());
        QVERIFY(!onSqlite.filter(QStringLiteral("ERROR")).size());
        QVERIFY2(onPostgres.filter(QStringLiteral("ERROR")).isEmpty(),
                 qPrintable(onPostgres.join(QLatin1Char('\n'))));

        // The kinds compare INTEGER and BIGINT alike: on PostgreSQL every time in milliseconds and
        // every sequence number must be the 64-bit one.
        const QStringList narrow =
            rows(*postgres.value(), "SELECT table_name || '.' || column_name FROM information_schema.columns "
                                    "WHERE table_schema = 'public' AND (column_name LIKE '%\\_ms' OR "
                                    "column_name = 'seq') AND data_type <> 'bigint'");
        QVERIFY2(narrow.isEmpty(), qPrintable(narrow.join(QLatin1Char(' '))));
        QVERIFY(!onPostgres.filter(QStringLiteral("index operations_client"))
                     .filter(QStringLiteral("json_extract"))
                     .isEmpty());

        QStringList onlySqlite, onlyPostgres;
        for (const QString &line : onSqlite)
            if (!onPostgres.contains(line))
                onlySqlite.append(line);
        for (const QString &line : onPostgres)
            if (!onSqlite.contains(line))
                onlyPostgres.append(line);
        QVERIFY2(onlySqlite.isEmpty() && onlyPostgres.isEmpty(),
                 qPrintable(QStringLiteral("only on SQLite:\n  %1\nonly on PostgreSQL:\n  %2")
                                .arg(onlySqlite.join(QStringLiteral("\n  ")),
                                     onlyPostgres.join(QStringLiteral("\n  ")))));
    }

    // Migration 8 on a store written before it: the index the two schemas had drifted on arrives.
    void sqliteStoreAtSchema7_gainsWhatPostgresHad()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.db"));
        {
            auto db = Database::open(path);
            QVERIFY2(db.ok(), qPrintable(db.ok() ? QString() : db.error()));
            // As a build of schema 7 left it.
            QVERIFY(db.value()->exec("DROP INDEX operations_supersedes").ok());
            QVERIFY(db.value()->exec("DROP INDEX operations_same_call").ok()); // schema 9's
            QVERIFY(db.value()->exec("PRAGMA user_version = 7").ok());
            QVERIFY(!describeSqlite(*db.value())
                         .contains(QStringLiteral("index operations_supersedes on operations (supersedes)")));
        }
        auto reopened = Database::open(path);
        QVERIFY2(reopened.ok(), qPrintable(reopened.ok() ? QString() : reopened.error()));
        QCOMPARE(Migrations::version(*reopened.value()), Migrations::latest());
        QVERIFY(describeSqlite(*reopened.value())
                    .contains(QStringLiteral("index operations_supersedes on operations (supersedes)")));
        const QStringList described = describeSqlite(*reopened.value());
        QVERIFY(std::any_of(described.cbegin(), described.cend(), [](const QString &line) {
            return line.startsWith(QLatin1String("index operations_same_call on operations"));
        }));
    }

    // The same text for both dialects where they agree; each dialect's own statements only for it.
    void statements_eachDialectItsOwnWords()
    {
        const QList<QByteArray> sqlite = Migrations::statements(Database::Dialect::Sqlite, 0);
        const QList<QByteArray> postgres = Migrations::statements(Database::Dialect::Postgres, 0);
        for (const QList<QByteArray> &all : {sqlite, postgres})
            for (const QByteArray &statement : all)
                QVERIFY2(!statement.contains('{') || statement.contains("'{}'"),
                         statement.constData()); // no token left
        QVERIFY(std::any_of(postgres.cbegin(), postgres.cend(), [](const QByteArray &s) {
            return s.contains("GENERATED BY DEFAULT AS IDENTITY");
        }));
        QVERIFY(std::none_of(sqlite.cbegin(), sqlite.cend(), [](const QByteArray &s) {
            return s.contains("BIGINT") || s.contains("IDENTITY") || s.contains("FUNCTION");
        }));
        QVERIFY(std::none_of(postgres.cbegin(), postgres.cend(),
                             [](const QByteArray &s) { return s.contains("decisions_v7"); }));
        QCOMPARE(Migrations::statements(Database::Dialect::Sqlite, Migrations::latest()).size(), 0);
    }
};

QTEST_GUILESS_MAIN(SchemaTest)
#include "schema_test.moc"
