/*
 * The parts of a floor's job both floors share, on its `Job` (which must have `db`,
 * `skippedLinks`, the row buffer fields, `header`, `read` and `rejected`) and its `row(Job *)`:
 * SQLite calls that die on failure, find-or-create of a linked row, and libcsv's callbacks. Include
 * after the floor defines `Job`.
 */

static void row(Job *job);

static void check(Job *job, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) die(what, sqlite3_errmsg(job->db));
}

static void exec(Job *job, const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(job->db, sql, NULL, NULL, &message) != SQLITE_OK) die(sql, message);
}

static sqlite3_stmt *prepare(Job *job, const char *sql) {
    sqlite3_stmt *statement;
    check(job, sqlite3_prepare_v3(job->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL), sql);
    return statement;
}

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
