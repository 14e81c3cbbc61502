#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro cast of -1 that Swift cannot import: bind calls that copy use this.
static inline sqlite3_destructor_type pipectl_sqlite_transient(void) { return SQLITE_TRANSIENT; }
