#ifndef PEEZ_SQLITE_SHIM_H
#define PEEZ_SQLITE_SHIM_H
#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type peez_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Extended result codes are macros built from expressions; Swift imports only plain literals.
static inline int peez_sqlite_constraint_unique(void) { return SQLITE_CONSTRAINT_UNIQUE; }
static inline int peez_sqlite_constraint_primary_key(void) { return SQLITE_CONSTRAINT_PRIMARYKEY; }
static inline int peez_sqlite_constraint_not_null(void) { return SQLITE_CONSTRAINT_NOTNULL; }
#endif
