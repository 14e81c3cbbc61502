/*
 * The parts of a floor's job both floors share, on its `Job` (which must have `db`,
 * the maps and counts, the row buffer fields and `header`) and its `row(Job *)`: SQLite calls
 * that die on failure (floor-sqlite.h, which the recipes floor shares), find-or-create of a
 * linked row, libcsv's callbacks, opening the store,
 * reading the rows and finishing the store (its Item_name index is the floor's own). Include
 * after the floor defines `Job`.
 */

static void row(Job *job);

#include "floor-sqlite.h"

/* The row id of `key` in a linked table, inserted on first sight; 0 for an empty key. */
static int64_t findOrCreate(Job *job, Map *map, sqlite3_stmt *insert, int64_t *next, Text key) {
    if (key.n == 0) { job->skippedLinks++; return 0; }
    uint64_t h = hashBytes(key.s, key.n);
    Slot *slot = mapFind(map, key.s, key.n, h);
    if (slot->key) return slot->id;
    int64_t id = ++*next;
    sqlite3_bind_int64(insert, 1, id);
    sqlite3_bind_text(insert, 2, key.s, (int)key.n, SQLITE_STATIC);
    check(job, sqlite3_step(insert), "insert");
    sqlite3_reset(insert);
    mapPut(map, slot, key.s, key.n, h, id);
    return id;
}

static void bindLink(sqlite3_stmt *statement, int index, int64_t id) {
    if (id) sqlite3_bind_int64(statement, index, id); else sqlite3_bind_null(statement, index);
}

static void onField(void *s, size_t n, void *data) {
    Job *job = data;
    if (job->fields < FIELDS + 1) {
        if (job->used + n > job->size) {
            while (job->used + n > job->size) job->size *= 2;
            job->buffer = checked(realloc(job->buffer, job->size));
        }
        if (n) memcpy(job->buffer + job->used, s, n);
        job->offset[job->fields] = job->used;
        job->length[job->fields] = n;
        job->used += n;
    }
    job->fields++;
}

static void onRow(int terminator, void *data) {
    (void)terminator;
    Job *job = data;
    if (job->header) {
        job->header = 0;
    } else {
        job->read++;
        if (job->fields == FIELDS) row(job); else job->rejected++;
    }
    job->fields = 0;
    job->used = 0;
}

/* The maps, and the store being built at `building` without a journal, `cacheMB` of page cache. */
static void openStore(Job *job, const char *building, long cacheMB) {
    job->buffer = checked(malloc(job->size));
    mapInit(&job->items, 1 << 16);  /* grows by doubling */
    mapInit(&job->units, 64);
    mapInit(&job->homes, 64);
    mapInit(&job->shops, 64);
    if (sqlite3_open(building, &job->db) != SQLITE_OK) die(building, sqlite3_errmsg(job->db));
    exec(job, "PRAGMA journal_mode = OFF; PRAGMA synchronous = NORMAL");
    if (cacheMB > 0) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA cache_size = -%ld", cacheMB * 1024);
        exec(job, pragma);
    }
}

/* Every row of `file` through libcsv, a megabyte at a time, without a leading BOM; closes it. */
static void readRows(Job *job, FILE *file, const char *input, char delimiter) {
    struct csv_parser parser;
    if (csv_init(&parser, CSV_APPEND_NULL) != 0) die("csv_init failed", NULL);
    csv_set_delim(&parser, delimiter);
    static char chunk[1 << 20];
    size_t n, total = 0;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0) {
        const char *start = chunk;
        if (total == 0 && n >= 3 && memcmp(chunk, "\xEF\xBB\xBF", 3) == 0) { start += 3; n -= 3; }  /* BOM */
        total += n;
        if (csv_parse(&parser, start, n, onField, onRow, job) != n) die(input, csv_strerror(csv_error(&parser)));
    }
    if (ferror(file)) die(input, strerror(errno));
    csv_fini(&parser, onField, onRow, job);
    csv_free(&parser);
    fclose(file);
}

/* The other indexes, the commit, and the store renamed into place; prints the counts. */
static void finishStore(Job *job, const char *building, const char *output) {
    exec(job,
         "CREATE UNIQUE INDEX Unit_name_unique ON Unit (name);"
         "CREATE UNIQUE INDEX LocationAtHome_storedIn_unique ON LocationAtHome (storedIn);"
         "CREATE UNIQUE INDEX LocationAtShop_aisle_unique ON LocationAtShop (aisle);"
         "CREATE INDEX Item_locationAtHome_id_index ON Item (locationAtHome_id);"
         "CREATE INDEX Item_locationAtShop_id_index ON Item (locationAtShop_id);"
         "CREATE INDEX Item_unit_id_index ON Item (unit_id);"
         "COMMIT");
    if (sqlite3_close(job->db) != SQLITE_OK) die("close", sqlite3_errmsg(job->db));
    if (rename(building, output) != 0) die(output, strerror(errno));
    fprintf(stderr, "read %ld inserted %ld duplicates %ld skipped-links %ld rejected %ld\n",
            job->read, job->inserted, job->duplicates, job->skippedLinks, job->rejected);
}
