/*
 * SQLite calls that die on failure, for every floor's `Job` (which must have `sqlite3 *db`).
 * Include after the floor defines `Job`.
 */

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
