#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro cast of -1 that Swift cannot import: bind calls that copy use this.
static inline sqlite3_destructor_type pipectl_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// SQLite keeps memory statistics by default, taking a global mutex around every allocation it
// makes (several a row); pipectl reads none. Only takes effect before SQLite is initialized.
static inline void pipectl_sqlite_disable_memory_statistics(void) { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
