/*
 * The floor of the speed benchmark: the grocery job written by hand in C on the libraries pipectl
 * uses (libcsv, SQLite prepared statements), with nothing general about it.
 *
 *   cc -O2 -o floor bench/floor.c -lcsv -lsqlite3
 *   floor [--delimiter C] [--cache-mb N] INPUT.csv OUTPUT.sqlite
 *
 * Reads the grocery CSV (UTF-8, optional BOM, CRLF, ';' by default), trims every field (space,
 * tab, CR, LF, no-break space), reads quantities with a decimal comma and '.' between thousands,
 * dates dd/MM/yyyy at midnight in Europe/Berlin as seconds since 2001-01-01 UTC, and writes the
 * plain layout (Item, Unit, LocationAtHome, LocationAtShop, `<relationship>_id` columns) as
 * pipectl's `layout: sqlite` does: find-or-create by unique key through in-memory hash tables,
 * the first row of a name wins and a later one creates nothing, an empty link key leaves the
 * link NULL. The store is built beside the target in one transaction without a journal, indexed
 * after the rows are in, synced and renamed into place.
 *
 * Europe/Berlin is hard-coded as the EU rule (CET, UTC+1; CEST, UTC+2 from the last Sunday of
 * March to the last Sunday of October), which holds for every year since 1996: midnight is CEST
 * on the days after the March change up to the October change, inclusive.
 *
 * Prints `read N inserted N duplicates N skipped-links N rejected N` to stderr.
 */
#include <csv.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#define FIELDS 6
enum { NAME, QUANTITY, UNIT, HOME, SHOP, ADDED };

#define FLOOR_NAME "floor"
#include "floor-common.h"

/* "dd/MM/yyyy" at 00:00 Europe/Berlin -> seconds since 2001-01-01T00:00:00Z. */
static int parseAdded(Text t, double *out) {
    static const unsigned char monthDays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    const char *s = t.s;
    if (t.n != 10 || s[2] != '/' || s[5] != '/') return 0;
    int digits[] = { 0, 1, 3, 4, 6, 7, 8, 9 };
    for (int i = 0; i < 8; i++) if (s[digits[i]] < '0' || s[digits[i]] > '9') return 0;
    unsigned d = (unsigned)((s[0] - '0') * 10 + s[1] - '0'), m = (unsigned)((s[3] - '0') * 10 + s[4] - '0');
    int64_t y = (s[6] - '0') * 1000 + (s[7] - '0') * 100 + (s[8] - '0') * 10 + s[9] - '0';
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
    sqlite3_stmt *insertItem, *insertUnit, *insertHome, *insertShop;
    Map items, units, homes, shops;
    int64_t nextItem, nextUnit, nextHome, nextShop;
    /* the fields of the current row: copied, as libcsv reuses its buffer */
    char *buffer;
    size_t used, size;
    size_t offset[FIELDS + 1], length[FIELDS + 1];
    int fields, header;
    long read, inserted, duplicates, skippedLinks, rejected;
} Job;

#include "floor-job.h"

static void row(Job *job) {
    Text f[FIELDS];
    for (int i = 0; i < FIELDS; i++) f[i] = trim(job->buffer + job->offset[i], job->length[i]);
    double quantity = 1, added = 0;  /* 1: the model's default for an empty quantity */
    if ((f[QUANTITY].n && !parseQuantity(f[QUANTITY], &quantity)) || (f[ADDED].n && !parseAdded(f[ADDED], &added))) {
        job->rejected++;
        return;
    }
    if (f[NAME].n == 0) { job->skippedLinks++; return; }  /* an empty key: skipped */
    uint64_t h = hashBytes(f[NAME].s, f[NAME].n);
    Slot *slot = mapFind(&job->items, f[NAME].s, f[NAME].n, h);
    if (slot->key) { job->duplicates++; return; }  /* the first row of a name wins */

    int64_t unit = findOrCreate(job, &job->units, job->insertUnit, &job->nextUnit, f[UNIT]);
    int64_t home = findOrCreate(job, &job->homes, job->insertHome, &job->nextHome, f[HOME]);
    int64_t shop = findOrCreate(job, &job->shops, job->insertShop, &job->nextShop, f[SHOP]);
    int64_t id = ++job->nextItem;
    sqlite3_stmt *insert = job->insertItem;
    sqlite3_bind_int64(insert, 1, id);
    sqlite3_bind_text(insert, 2, f[NAME].s, (int)f[NAME].n, SQLITE_STATIC);
    sqlite3_bind_double(insert, 3, quantity);
    if (f[ADDED].n) sqlite3_bind_double(insert, 4, added); else sqlite3_bind_null(insert, 4);
    bindLink(insert, 5, unit);
    bindLink(insert, 6, home);
    bindLink(insert, 7, shop);
    check(job, sqlite3_step(insert), "insert");
    sqlite3_reset(insert);
    /* lookups may have grown the map: find the slot again */
    mapPut(&job->items, mapFind(&job->items, f[NAME].s, f[NAME].n, h), f[NAME].s, f[NAME].n, h, id);
    job->inserted++;
}

int main(int argc, char **argv) {
    unsigned char delimiter = ';';
    long cacheMB = 0;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
        if (strcmp(argv[i], "--delimiter") == 0 && strlen(argv[i + 1]) == 1) delimiter = (unsigned char)argv[i + 1][0];
        else if (strcmp(argv[i], "--cache-mb") == 0) cacheMB = strtol(argv[i + 1], NULL, 10);
        else die("unknown option", argv[i]);
    }
    if (argc - i != 2) die("usage: floor [--delimiter C] [--cache-mb N] INPUT.csv OUTPUT.sqlite", NULL);
    const char *input = argv[i], *output = argv[i + 1];

    FILE *file = fopen(input, "rb");
    if (!file) die(input, strerror(errno));
    char building[4096];
    snprintf(building, sizeof building, "%s.building", output);
    remove(building);

    Job job = { .header = 1, .size = 4096 };
    openStore(&job, building, cacheMB);
    exec(&job,
         "BEGIN;"
         "CREATE TABLE Unit (id INTEGER PRIMARY KEY, name TEXT);"
         "CREATE TABLE LocationAtHome (id INTEGER PRIMARY KEY, storedIn TEXT);"
         "CREATE TABLE LocationAtShop (id INTEGER PRIMARY KEY, aisle TEXT);"
         "CREATE TABLE Item (id INTEGER PRIMARY KEY, added REAL, collected INTEGER, listed INTEGER, name TEXT,"
         " quantity REAL, locationAtHome_id INTEGER REFERENCES LocationAtHome(id),"
         " locationAtShop_id INTEGER REFERENCES LocationAtShop(id), unit_id INTEGER REFERENCES Unit(id));");
    job.insertUnit = prepare(&job, "INSERT INTO Unit (id, name) VALUES (?, ?)");
    job.insertHome = prepare(&job, "INSERT INTO LocationAtHome (id, storedIn) VALUES (?, ?)");
    job.insertShop = prepare(&job, "INSERT INTO LocationAtShop (id, aisle) VALUES (?, ?)");
    job.insertItem = prepare(&job, "INSERT INTO Item (id, name, quantity, added, unit_id, locationAtHome_id,"
                                   " locationAtShop_id, listed, collected) VALUES (?, ?, ?, ?, ?, ?, ?, 1, 0)");

    readRows(&job, file, input, delimiter);

    sqlite3_finalize(job.insertItem);
    sqlite3_finalize(job.insertUnit);
    sqlite3_finalize(job.insertHome);
    sqlite3_finalize(job.insertShop);
    exec(&job, "CREATE UNIQUE INDEX Item_name_unique ON Item (name)");
    finishStore(&job, building, output);
    return 0;
}
