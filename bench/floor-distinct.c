/*
 * The floor of the distinct-names benchmark (issue 21, item 7): the grocery job with a price, on
 * bench/make-grocery.py --distinct's export, written by hand in C on the libraries pipectl uses
 * (libcsv, SQLite prepared statements), with nothing general about it. bench/floor.c's approach
 * and code (its hash tables, trimming and number reading, shared in bench/floor-common.h), for
 * seven columns: name;quantity;unit;locationathome;locationatshop;added;price.
 *
 *   cc -O2 -o floor-distinct bench/floor-distinct.c -lcsv -lsqlite3
 *   floor-distinct [--delimiter C] [--cache-mb N] [--on-duplicate keep|update] [--sql-upsert]
 *                  INPUT.csv OUTPUT.sqlite
 *
 * Reads the CSV (UTF-8, optional BOM, CRLF, ';' by default), trims every field (space, tab, CR,
 * LF, no-break space), reads quantities and prices with a decimal comma and '.' between
 * thousands, dates yyyy-MM-dd at midnight in Europe/Berlin as seconds since 2001-01-01 UTC, and
 * writes the plain layout (Item with a NUMERIC price, Unit, LocationAtHome, LocationAtShop,
 * `<relationship>_id` columns) as pipectl's `layout: sqlite` does: find-or-create by unique key
 * through in-memory hash tables, an empty link key leaves the link NULL. The store is built beside
 * the target in one transaction without a journal, indexed after the rows are in, and renamed
 * into place.
 *
 * A later row of a name (the upsert):
 *   --on-duplicate keep    (default) the first row wins; a later one creates nothing, not even a
 *                          unit only it names (pipectl's `on_duplicate: keep`)
 *   --on-duplicate update  a later row finds or creates its links and writes its quantity, date,
 *                          price and links over the stored item (UPDATE ... WHERE id = ?), even
 *                          when they are the same (pipectl compares first and updates only a
 *                          row that differs)
 *   --sql-upsert           the items' upsert done by SQLite instead of the hash table: the unique
 *                          index on Item.name is made before the rows, and each row is one
 *                          INSERT ... ON CONFLICT(name) DO NOTHING (keep) or DO UPDATE SET ...
 *                          (update). Its links are found or created before the insert, so with
 *                          keep a later row can create a unit only it names (none does in the
 *                          generated data: the stores hold the same content).
 *
 * Prints `read N inserted N duplicates N skipped-links N rejected N` to stderr (duplicates: the
 * later rows of a name, kept out or updated; with --sql-upsert the rows SQLite found present).
 */
#include <csv.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define FIELDS 7
enum { NAME, QUANTITY, UNIT, HOME, SHOP, ADDED, PRICE };

#define FLOOR_NAME "floor-distinct"
#include "floor-common.h"

/* "yyyy-MM-dd" at 00:00 Europe/Berlin -> seconds since 2001-01-01T00:00:00Z. */
static int parseAdded(Text t, double *out) {
    static const unsigned char monthDays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    const char *s = t.s;
    if (t.n != 10 || s[4] != '-' || s[7] != '-') return 0;
    int digits[] = { 0, 1, 2, 3, 5, 6, 8, 9 };
    for (int i = 0; i < 8; i++) if (s[digits[i]] < '0' || s[digits[i]] > '9') return 0;
    int64_t y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + s[3] - '0';
    unsigned m = (unsigned)((s[5] - '0') * 10 + s[6] - '0'), d = (unsigned)((s[8] - '0') * 10 + s[9] - '0');
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m < 1 || m > 12 || d < 1 || d > monthDays[m - 1] || (m == 2 && d == 29 && !leap)) return 0;
    int64_t day = daysFromCivil(y, m, d);
    int summer = day > lastSunday(y, 3) && day <= lastSunday(y, 10);
    static const int64_t epoch2001 = 11323;  /* daysFromCivil(2001, 1, 1) */
    *out = (double)((day - epoch2001) * 86400 - (summer ? 7200 : 3600));
    return 1;
}

/* ---- The job ---- */

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *insertItem, *updateItem, *insertUnit, *insertHome, *insertShop;
    Map items, units, homes, shops;
    int64_t nextItem, nextUnit, nextHome, nextShop;
    int update, sqlUpsert;
    /* the fields of the current row: copied, as libcsv reuses its buffer */
    char *buffer;
    size_t used, size;
    size_t offset[FIELDS + 1], length[FIELDS + 1];
    int fields, header;
    long read, inserted, duplicates, skippedLinks, rejected;
} Job;

#include "floor-job.h"

/* Binds the values both statements share, ?2 to ?8: name, quantity, added, price and the links. */
static void bindValues(Job *job, sqlite3_stmt *statement, Text *f, double quantity, double added, double price) {
    int64_t unit = findOrCreate(job, &job->units, job->insertUnit, &job->nextUnit, f[UNIT]);
    int64_t home = findOrCreate(job, &job->homes, job->insertHome, &job->nextHome, f[HOME]);
    int64_t shop = findOrCreate(job, &job->shops, job->insertShop, &job->nextShop, f[SHOP]);
    sqlite3_bind_text(statement, 2, f[NAME].s, (int)f[NAME].n, SQLITE_STATIC);
    sqlite3_bind_double(statement, 3, quantity);
    if (f[ADDED].n) sqlite3_bind_double(statement, 4, added); else sqlite3_bind_null(statement, 4);
    if (f[PRICE].n) sqlite3_bind_double(statement, 5, price); else sqlite3_bind_null(statement, 5);
    bindLink(statement, 6, unit);
    bindLink(statement, 7, home);
    bindLink(statement, 8, shop);
}

static void row(Job *job) {
    Text f[FIELDS];
    for (int i = 0; i < FIELDS; i++) f[i] = trim(job->buffer + job->offset[i], job->length[i]);
    double quantity = 1, added = 0, price = 0;  /* 1: the model's default for an empty quantity */
    if ((f[QUANTITY].n && !parseQuantity(f[QUANTITY], &quantity)) || (f[ADDED].n && !parseAdded(f[ADDED], &added))
        || (f[PRICE].n && !parseQuantity(f[PRICE], &price))) {
        job->rejected++;
        return;
    }
    if (f[NAME].n == 0) { job->skippedLinks++; return; }  /* an empty key: skipped */

    if (job->sqlUpsert) {  /* SQLite finds the name through its unique index */
        sqlite3_stmt *insert = job->insertItem;
        sqlite3_bind_null(insert, 1);
        bindValues(job, insert, f, quantity, added, price);
        check(job, sqlite3_step(insert), "insert");
        sqlite3_reset(insert);
        /* DO NOTHING changes no row for a name already in; DO UPDATE changes one either way, so
         * with update every row counts here and the end tells the items from the updates. */
        if (!job->update && sqlite3_changes(job->db) == 0) job->duplicates++; else job->inserted++;
        return;
    }

    uint64_t h = hashBytes(f[NAME].s, f[NAME].n);
    Slot *slot = mapFind(&job->items, f[NAME].s, f[NAME].n, h);
    if (slot->key) {  /* a later row of a name */
        job->duplicates++;
        if (!job->update) return;  /* the first row wins */
        sqlite3_stmt *update = job->updateItem;
        sqlite3_bind_int64(update, 1, slot->id);
        bindValues(job, update, f, quantity, added, price);
        check(job, sqlite3_step(update), "update");
        sqlite3_reset(update);
        return;
    }
    int64_t id = ++job->nextItem;
    sqlite3_stmt *insert = job->insertItem;
    sqlite3_bind_int64(insert, 1, id);
    bindValues(job, insert, f, quantity, added, price);
    check(job, sqlite3_step(insert), "insert");
    sqlite3_reset(insert);
    /* lookups may have grown the map: find the slot again */
    mapPut(&job->items, mapFind(&job->items, f[NAME].s, f[NAME].n, h), f[NAME].s, f[NAME].n, h, id);
    job->inserted++;
}

int main(int argc, char **argv) {
    unsigned char delimiter = ';';
    long cacheMB = 0;
    Job job = { .header = 1, .size = 4096 };
    int i = 1;
    while (argc - i > 2 && strncmp(argv[i], "--", 2) == 0) {
        const char *option = argv[i++];
        if (strcmp(option, "--sql-upsert") == 0) { job.sqlUpsert = 1; continue; }
        const char *value = argv[i++];
        if (strcmp(option, "--delimiter") == 0 && strlen(value) == 1) delimiter = (unsigned char)value[0];
        else if (strcmp(option, "--cache-mb") == 0) cacheMB = strtol(value, NULL, 10);
        else if (strcmp(option, "--on-duplicate") == 0 && strcmp(value, "keep") == 0) job.update = 0;
        else if (strcmp(option, "--on-duplicate") == 0 && strcmp(value, "update") == 0) job.update = 1;
        else die("unknown option or value", option);
    }
    if (argc - i != 2)
        die("usage: floor-distinct [--delimiter C] [--cache-mb N] [--on-duplicate keep|update] [--sql-upsert]"
            " INPUT.csv OUTPUT.sqlite", NULL);
    const char *input = argv[i], *output = argv[i + 1];

    FILE *file = fopen(input, "rb");
    if (!file) die(input, strerror(errno));
    char building[4096];
    snprintf(building, sizeof building, "%s.building", output);
    remove(building);

    openStore(&job, building, cacheMB);
    exec(&job,
         "BEGIN;"
         "CREATE TABLE Unit (id INTEGER PRIMARY KEY, name TEXT);"
         "CREATE TABLE LocationAtHome (id INTEGER PRIMARY KEY, storedIn TEXT);"
         "CREATE TABLE LocationAtShop (id INTEGER PRIMARY KEY, aisle TEXT);"
         "CREATE TABLE Item (id INTEGER PRIMARY KEY, added REAL, collected INTEGER, listed INTEGER, name TEXT,"
         " price NUMERIC, quantity REAL, locationAtHome_id INTEGER REFERENCES LocationAtHome(id),"
         " locationAtShop_id INTEGER REFERENCES LocationAtShop(id), unit_id INTEGER REFERENCES Unit(id));");
    if (job.sqlUpsert) exec(&job, "CREATE UNIQUE INDEX Item_name_unique ON Item (name)");
    job.insertUnit = prepare(&job, "INSERT INTO Unit (id, name) VALUES (?, ?)");
    job.insertHome = prepare(&job, "INSERT INTO LocationAtHome (id, storedIn) VALUES (?, ?)");
    job.insertShop = prepare(&job, "INSERT INTO LocationAtShop (id, aisle) VALUES (?, ?)");
    const char *insertItem = "INSERT INTO Item (id, name, quantity, added, price, unit_id, locationAtHome_id,"
                             " locationAtShop_id, listed, collected) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, 0)";
    const char *updateSet = "quantity = ?3, added = ?4, price = ?5, unit_id = ?6, locationAtHome_id = ?7,"
                            " locationAtShop_id = ?8";
    char sql[1024];
    if (job.sqlUpsert && job.update)
        snprintf(sql, sizeof sql, "%s ON CONFLICT (name) DO UPDATE SET %s", insertItem, updateSet);
    else if (job.sqlUpsert)
        snprintf(sql, sizeof sql, "%s ON CONFLICT (name) DO NOTHING", insertItem);
    else
        snprintf(sql, sizeof sql, "%s", insertItem);
    job.insertItem = prepare(&job, sql);
    /* ?2, the name, is bound but not used: bindValues binds the same parameters for both */
    snprintf(sql, sizeof sql, "UPDATE Item SET %s WHERE id = ?1", updateSet);
    job.updateItem = prepare(&job, sql);

    readRows(&job, file, input, delimiter);

    sqlite3_finalize(job.insertItem);
    sqlite3_finalize(job.updateItem);
    sqlite3_finalize(job.insertUnit);
    sqlite3_finalize(job.insertHome);
    sqlite3_finalize(job.insertShop);
    if (job.sqlUpsert) {
        sqlite3_stmt *count = prepare(&job, "SELECT count(*) FROM Item");
        check(&job, sqlite3_step(count), "count");
        long items = (long)sqlite3_column_int64(count, 0);
        sqlite3_finalize(count);
        if (job.update) { job.duplicates = job.inserted - items; job.inserted = items; }  /* see row() */
    } else {
        exec(&job, "CREATE UNIQUE INDEX Item_name_unique ON Item (name)");
    }
    finishStore(&job, building, output);
    return 0;
}
