/*
 * profile_db.c - opening, checking, creating and migrating the profile
 * database, and the checked SQLite helpers everything else writes with.
 *
 * Opening reads before it writes: the header's application_id and
 * user_version say whether the file is ours and how old, and the schema
 * must parse; a file with free pages gets a whole-file quick_check (see
 * check_file); only then is WAL mode switched on and the schema created
 * or migrated, inside BEGIN IMMEDIATE so that collectors starting together
 * do it once.  Damage SQLite meets later, on a page a run writes through,
 * is refused as damage too (pp__pdb_fail).
 */
#include "profile_db.h"
#include "base/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "legacy_roles.h"

extern const char pdb_schema_sql[]; /* format/schema.sql, embedded by the build */
extern const char pdb_views_sql[];  /* format/views.sql: dropped and re-created */

/* Version 1 -> 2 (format/schema.sql says what changed).  SQLite cannot change
 * a primary key, so edge_counts is rebuilt, exactly as schema.sql creates
 * it; its version 1 rows were all transfers inside one function. */
static const char migrate_1_to_2[] =
    "CREATE TABLE edge_counts_v2 ("
    "  run_id         INTEGER NOT NULL REFERENCES runs(id),"
    "  function_id    INTEGER NOT NULL REFERENCES functions(id),"
    "  from_offset    INTEGER NOT NULL,"
    "  to_function_id INTEGER NOT NULL REFERENCES functions(id),"
    "  to_offset      INTEGER NOT NULL,"
    "  count          INTEGER NOT NULL,"
    "  PRIMARY KEY (function_id, from_offset, to_function_id, to_offset)"
    ") WITHOUT ROWID;"
    "INSERT INTO edge_counts_v2 (run_id, function_id, from_offset, to_function_id, to_offset,"
    "                            count)"
    "  SELECT run_id, function_id, from_offset, function_id, to_offset, count"
    "  FROM edge_counts;"
    "DROP TABLE edge_counts;"
    "ALTER TABLE edge_counts_v2 RENAME TO edge_counts;"
    "CREATE INDEX edge_counts_target ON edge_counts(to_function_id, to_offset);"
    "ALTER TABLE runs ADD COLUMN counts_unmapped INTEGER;"
    "PRAGMA user_version = 2;";

/* Version 2 -> 3: roles and the return flag as format/legacy_roles.h reads
 * an older row, its 5-bit register packs, and the (empty) table of macro
 * parts. */
static const char migrate_2_to_3[] =
    "ALTER TABLE opcodes ADD COLUMN roles TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE opcodes ADD COLUMN reg_bits INTEGER NOT NULL DEFAULT 5;"
    "UPDATE opcodes SET roles = " PVM_LEGACY_ROLES_SQL ";"
    "UPDATE opcodes SET flag_names = flag_names || ' return'"
    "  WHERE " PVM_LEGACY_FLAGS_SQL " <> flags;"
    "UPDATE opcodes SET flags = " PVM_LEGACY_FLAGS_SQL ";"
    "CREATE TABLE macro_parts ("
    "  run_id      INTEGER NOT NULL REFERENCES runs(id),"
    "  opcode      INTEGER NOT NULL,"
    "  part        INTEGER NOT NULL,"
    "  part_opcode INTEGER NOT NULL,"
    "  regs        TEXT NOT NULL,"
    "  imms        TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, opcode, part)"
    ") WITHOUT ROWID;"
    "PRAGMA user_version = 3;";

/* Version 3 -> 4: the functions' checksums (NULL: written before). */
static const char migrate_3_to_4[] =
    "ALTER TABLE functions ADD COLUMN checksum INTEGER;"
    "PRAGMA user_version = 4;";

/* Version 4 -> 5: only the views changed (views.sql re-creates them). */
static const char migrate_4_to_5[] = "PRAGMA user_version = 5;";

/* Version 5 -> 6: instruction rows carry their operands and branch
 * targets (NULL in runs written before), runs say so, and count the
 * functions whose code stopped decoding. */
static const char migrate_5_to_6[] =
    "ALTER TABLE instructions ADD COLUMN regs TEXT;"
    "ALTER TABLE instructions ADD COLUMN imms TEXT;"
    "ALTER TABLE instructions ADD COLUMN targets TEXT;"
    "ALTER TABLE runs ADD COLUMN operands_stored INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN functions_cut_short INTEGER;"
    "PRAGMA user_version = 6;";

/* Version 6 -> 7: opcodes name their wide form (NULL: none). */
static const char migrate_6_to_7[] =
    "ALTER TABLE opcodes ADD COLUMN wide_form INTEGER;"
    "PRAGMA user_version = 7;";

/* Version 7 -> 8: what handlers and dispatches cost (NULL: not measured). */
static const char migrate_7_to_8[] =
    "ALTER TABLE opcodes ADD COLUMN cost REAL;"
    "ALTER TABLE runs ADD COLUMN dispatch_cost REAL;"
    "PRAGMA user_version = 8;";

/* Version 8 -> 9: registers read or written beyond the register operands
 * (none in runs written before); functions.address is the stored address,
 * which for every run written before is the function's own. */
static const char migrate_8_to_9[] =
    "CREATE TABLE register_ranges ("
    "  run_id       INTEGER NOT NULL REFERENCES runs(id),"
    "  opcode       INTEGER NOT NULL,"
    "  n            INTEGER NOT NULL,"
    "  access       INTEGER NOT NULL,"
    "  base         INTEGER NOT NULL,"
    "  offset       INTEGER NOT NULL,"
    "  count_imm    INTEGER NOT NULL,"
    "  count_add    INTEGER NOT NULL,"
    "  open_if_zero INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, opcode, n)"
    ") WITHOUT ROWID;"
    "PRAGMA user_version = 9;";

/* Version 9 -> 10: runs.run_starts (every run written before sampled
 * each instruction) and runs.sampler_cpu_ns (not measured before). */
static const char migrate_9_to_10[] =
    "ALTER TABLE runs ADD COLUMN run_starts INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN sampler_cpu_ns INTEGER;"
    "PRAGMA user_version = 10;";

/* migrations[v - 1] takes a database from version v to v + 1.  An empty
 * file gets the current schema from schema.sql at once.  A new schema
 * version changes schema.sql and adds its migration here; views.sql is
 * applied after every creation or migration. */
static const char *const migrations[] = {migrate_1_to_2, migrate_2_to_3, migrate_3_to_4,
                                         migrate_4_to_5, migrate_5_to_6, migrate_6_to_7,
                                         migrate_7_to_8, migrate_8_to_9, migrate_9_to_10};
_Static_assert(sizeof migrations / sizeof *migrations == PDB_SCHEMA_VERSION - 1,
               "one migration per schema version after the first");

enum { BUSY_TIMEOUT_MS = 60000, BUSY_RETRIES = 50 };


int pp__pdb_fail(profile_db *p, const char *what, char *err, size_t errcap)
{
    /* An I/O error says why: "disk I/O error (File too large)". */
    int sys = sqlite3_system_errno(p->db);
    int code = sqlite3_errcode(p->db);
    if ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB)
        return base_fail(err, errcap, "%s: %s: the database is damaged (%s); refusing to write to it",
                         p->path, what, sqlite3_errmsg(p->db));
    if (sys && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
        return base_fail(err, errcap, "%s: %s: %s (%s)", p->path, what, sqlite3_errmsg(p->db),
                    strerror(sys));
    return base_fail(err, errcap, "%s: %s: %s", p->path, what, sqlite3_errmsg(p->db));
}

static bool busy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

static void pause_briefly(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int pp__pdb_exec(profile_db *p, const char *sql, char *err, size_t errcap)
{
    char *msg = NULL;
    int rc = sqlite3_exec(p->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        base_fail(err, errcap, "%s: %s", p->path, msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* Run sql (a statement without results), retrying while the database is
 * busy beyond the busy timeout. */
static int exec_retrying(profile_db *p, const char *sql, char *err, size_t errcap)
{
    for (int i = 0;; i++) {
        int rc = sqlite3_exec(p->db, sql, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if (!busy(rc) || i == BUSY_RETRIES)
            return pp__pdb_fail(p, sql, err, errcap);
        pause_briefly();
    }
}

void pp__pdb_lock(profile_db *p) { pthread_mutex_lock(&p->lock); }

void pp__pdb_unlock(profile_db *p) { pthread_mutex_unlock(&p->lock); }

int pp__pdb_begin(profile_db *p, char *err, size_t errcap)
{
    return exec_retrying(p, "BEGIN IMMEDIATE", err, errcap);
}

int pp__pdb_commit(profile_db *p, char *err, size_t errcap)
{
    return exec_retrying(p, "COMMIT", err, errcap);
}

void pp__pdb_rollback(profile_db *p)
{
    if (!sqlite3_get_autocommit(p->db))
        (void)sqlite3_exec(p->db, "ROLLBACK", NULL, NULL, NULL);
}

int pp__pdb_prepare(profile_db *p, const char *sql, sqlite3_stmt **st, char *err, size_t errcap)
{
    if (sqlite3_prepare_v2(p->db, sql, -1, st, NULL) != SQLITE_OK)
        return pp__pdb_fail(p, "preparing a statement", err, errcap);
    return 0;
}

int pp__pdb_run_rebound(profile_db *p, sqlite3_stmt *st, int rc, char *err, size_t errcap)
{
    if (rc != SQLITE_OK)
        return pp__pdb_fail(p, "binding a value", err, errcap);
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        pp__pdb_fail(p, sqlite3_sql(st), err, errcap);
        sqlite3_reset(st);
        return -1;
    }
    sqlite3_reset(st);
    return 0;
}

int pp__pdb_run(profile_db *p, sqlite3_stmt *st, int rc, char *err, size_t errcap)
{
    if (pp__pdb_run_rebound(p, st, rc, err, errcap) != 0)
        return -1;
    sqlite3_clear_bindings(st);
    return 0;
}

int pp__pdb_finalize(profile_db *p, sqlite3_stmt *st, char *err, size_t errcap)
{
    if (sqlite3_finalize(st) != SQLITE_OK)
        return pp__pdb_fail(p, "finishing a statement", err, errcap);
    return 0;
}

/* The integer result of a one-row query. */
static int query_int(profile_db *p, const char *sql, int64_t *out, char *err, size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p, sql, &st, err, errcap) != 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        pp__pdb_fail(p, sql, err, errcap);
        sqlite3_finalize(st);
        return -1;
    }
    *out = sqlite3_column_int64(st, 0);
    return pp__pdb_finalize(p, st, err, errcap);
}

/* Is the file ours?  *version is its schema version, 0 for an empty
 * database.  Refuses foreign and newer files. */
static int check_ours(profile_db *p, int64_t *version, char *err, size_t errcap)
{
    int64_t app, objects;
    if (query_int(p, "PRAGMA application_id", &app, err, errcap) != 0 ||
        query_int(p, "PRAGMA user_version", version, err, errcap) != 0 ||
        query_int(p, "SELECT count(*) FROM sqlite_schema", &objects, err, errcap) != 0)
        return -1;
    if (app == 0 && *version == 0 && objects == 0)
        return 0; /* empty: ours to create */
    if (app != PDB_APPLICATION_ID)
        return base_fail(err, errcap,
                    "%s: not a pulley profile database (application_id %lld); refusing to "
                    "touch it",
                    p->path, (long long)app);
    if (*version > PDB_SCHEMA_VERSION)
        return base_fail(err, errcap,
                    "%s: profile schema version %lld is newer than this collector's (%d); "
                    "use a newer pulley-collect",
                    p->path, (long long)*version, PDB_SCHEMA_VERSION);
    if (*version < 1)
        return base_fail(err, errcap, "%s: profile database without a schema version", p->path);
    return 0;
}

/* A whole-file quick_check reads every page of the file: seconds for a
 * large profile, paid by every run appended to it.  What it protects
 * against is a write spreading damage.  SQLite checks each page a write
 * goes through as it reads it (and refuses the write as corrupt), and a
 * run only adds rows, so a damaged page elsewhere stays as it was, and the
 * readers check each run they read (functions.checksum); cell_size_check
 * makes SQLite check every page it loads in full.  The one place a
 * write reaches pages it did not read through is the freelist: a damaged
 * one could hand out a page that still holds data.  A profile database
 * frees pages only when rows were deleted (by hand), so the whole file is
 * checked only when its freelist is not empty. */
/* Checked once per freelist: a file whose freelist was checked whole
 * records how many free pages it had then (freelist_checked, a row
 * written by the collect that checked it, and lowered by every collect
 * after it as runs take free pages); a file with no more free pages than
 * that has had pages only taken from the freelist, by SQLite itself,
 * since it was checked, and is not read whole again.  More free pages
 * (rows deleted since) mean a freelist not checked: the whole file is
 * read again.  p->free_pages is what the next write records. */
static int check_whole_file(profile_db *p, char *err, size_t errcap)
{
    int64_t free_pages, marked = 0, checked = -1;
    if (query_int(p, "PRAGMA freelist_count", &free_pages, err, errcap) != 0 ||
        query_int(p, "SELECT count(*) FROM sqlite_schema WHERE name = 'freelist_checked'",
                  &marked, err, errcap) != 0 ||
        (marked && query_int(p, "SELECT coalesce(max(free_pages), -1) FROM freelist_checked",
                             &checked, err, errcap) != 0))
        return -1;
    p->free_pages = free_pages;
    p->mark_freelist = marked || free_pages > 0;
    if (free_pages == 0 || free_pages <= checked)
        return 0;
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p, "PRAGMA quick_check(1)", &st, err, errcap) != 0)
        return -1;
    int step = sqlite3_step(st);
    const unsigned char *text = step == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    int rc = 0;
    if (!text || strcmp((const char *)text, "ok") != 0)
        rc = base_fail(err, errcap, "%s: the database is damaged (%s); refusing to write to it",
                       p->path, text ? (const char *)text : sqlite3_errmsg(p->db));
    sqlite3_finalize(st);
    return rc;
}

/* Read-only checks: ours, not newer, its schema readable, and not damaged
 * where a run could make it worse. */
static int check_file(profile_db *p, int64_t *version, char *err, size_t errcap)
{
    if (pp__pdb_exec(p, "BEGIN", err, errcap) != 0)
        return -1;
    int rc = check_ours(p, version, err, errcap);
    if (rc == 0 && *version > 0)
        rc = check_whole_file(p, err, errcap);
    pp__pdb_rollback(p);
    return rc;
}

/* Under the write lock: record the free pages checked (or fewer, when a
 * run took some since the check). */
static int mark_freelist(profile_db *p, char *err, size_t errcap)
{
    int64_t now;
    if (query_int(p, "PRAGMA freelist_count", &now, err, errcap) != 0 ||
        pp__pdb_exec(p, "CREATE TABLE IF NOT EXISTS freelist_checked ("
                        " id INTEGER PRIMARY KEY CHECK (id = 1), free_pages INTEGER NOT NULL)",
                     err, errcap) != 0)
        return -1;
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO freelist_checked VALUES (1, %lld)",
             (long long)(now < p->free_pages ? now : p->free_pages));
    return pp__pdb_exec(p, sql, err, errcap);
}

/* Create or migrate the schema, once, under a write lock; all of it or
 * (on any failure) none of it. */
static int upgrade(profile_db *p, char *err, size_t errcap)
{
    int64_t version, now;
    if (pp__pdb_begin(p, err, errcap) != 0)
        return -1;
    if (check_ours(p, &version, err, errcap) != 0)
        goto failed;
    if (version == 0 && pp__pdb_exec(p, pdb_schema_sql, err, errcap) != 0)
        goto failed;
    for (int64_t v = version ? version : PDB_SCHEMA_VERSION; v < PDB_SCHEMA_VERSION; v++)
        if (pp__pdb_exec(p, migrations[v - 1], err, errcap) != 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", err);
            base_fail(err, errcap, "migrating from schema version %lld to %lld: %s", (long long)v,
                 (long long)v + 1, why);
            goto failed;
        }
    if (version != PDB_SCHEMA_VERSION && pp__pdb_exec(p, pdb_views_sql, err, errcap) != 0)
        goto failed;
    if (p->mark_freelist && mark_freelist(p, err, errcap) != 0)
        goto failed;
    if (query_int(p, "PRAGMA user_version", &now, err, errcap) != 0)
        goto failed;
    if (now != PDB_SCHEMA_VERSION) {
        base_fail(err, errcap, "%s: the schema is at version %lld after creating or migrating it,"
                          " not %d", p->path, (long long)now, PDB_SCHEMA_VERSION);
        goto failed;
    }
    if (pp__pdb_commit(p, err, errcap) == 0)
        return 0;
failed:
    pp__pdb_rollback(p);
    return -1;
}

/* WAL mode, the schema created or migrated, and the connection's settings.
 * Foreign keys are not enforced: every row the library writes refers to
 * rows it wrote before in the same run, and enforcing them cost a lookup
 * per instruction row, a sixth of writing the catalog (the end-to-end
 * tests run PRAGMA foreign_key_check on what they collect).
 * A file that held runs before is written as WAL mode wants (synchronous
 * NORMAL: synced at checkpoints, the last one at close).  A new file
 * (version 0) holds nothing but this run, and is never synced: a killed
 * process still loses nothing committed (the system has the pages), and
 * a machine that crashes before the system writes them back loses this
 * run, as a crash during it would; the syncs of its set-up and of the
 * checkpoint at close would cost every first run several milliseconds. */
static int set_up(profile_db *p, int64_t version, char *err, size_t errcap)
{
    const char *sync = version == 0 ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL";
    return pp__pdb_exec(p, sync, err, errcap) != 0 ||
                   exec_retrying(p, "PRAGMA journal_mode = WAL", err, errcap) != 0 ||
                   pp__pdb_exec(p, "PRAGMA cell_size_check = ON", err, errcap) != 0 ||
                   upgrade(p, err, errcap) != 0
               ? -1
               : 0;
}

static const char *const side_suffix[3] = {"", "-wal", "-shm"};

/* The path of file[i]: the database, its -wal or its -shm; false when it
 * does not fit. */
static bool side_path(const profile_db *p, int i, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s%s", p->path, side_suffix[i]);
    return n >= 0 && (size_t)n < cap;
}

/* Record which files the path and its side files name now (once set up:
 * the database and, in WAL mode, its -wal and -shm exist). */
static int record_files(profile_db *p, char *err, size_t errcap)
{
    char path[4096];
    for (int i = 0; i < 3; i++) {
        struct stat st;
        p->file[i].known = side_path(p, i, path, sizeof path) && stat(path, &st) == 0;
        if (p->file[i].known) {
            p->file[i].dev = st.st_dev;
            p->file[i].ino = st.st_ino;
        }
    }
    if (!p->file[0].known)
        return base_fail(err, errcap, "%s: cannot find the database file just opened", p->path);
    return 0;
}

/* Does path name file[i] still? */
static bool still_there(const profile_db *p, int i)
{
    char path[4096];
    struct stat st;
    return p->file[i].known && side_path(p, i, path, sizeof path) && stat(path, &st) == 0 &&
           st.st_dev == p->file[i].dev && st.st_ino == p->file[i].ino;
}

/* Was the database file deleted, renamed or replaced since it was
 * opened?  By what was recorded at open, and by SQLite's own look at the
 * file it holds open (SQLITE_FCNTL_HAS_MOVED). */
static bool file_moved(profile_db *p)
{
    int moved = 0;
    if (sqlite3_file_control(p->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
        moved = 0;
    return moved || !still_there(p, 0);
}

/* Why the directory of `path` (put in dir) cannot be written, as an errno,
 * or 0.  SQLite creates a new database there, and beside any database its
 * WAL files; it reports only "unable to open" or "readonly" when it cannot. */
static int dir_error(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= cap)
        return 0; /* not judged here */
    if (!slash)
        memcpy(dir, ".", 2);
    else if (n == 0)
        memcpy(dir, "/", 2);
    else {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return access(dir, W_OK | X_OK) == 0 ? 0 : errno;
}

/* path + suffix exists. */
static bool side_exists(const char *path, const char *suffix)
{
    char side[4200];
    struct stat st;
    return snprintf(side, sizeof side, "%s%s", path, suffix) < (int)sizeof side &&
           stat(side, &st) == 0;
}

/* Undo what pp__pdb_open set up before it failed; -1. */
static int open_failed(profile_db *p)
{
    sqlite3_close(p->db);
    p->db = NULL;
    pthread_mutex_destroy(&p->lock);
    free(p->path);
    p->path = NULL;
    return -1;
}

int pp__pdb_open(profile_db *p, const char *path, char *err, size_t errcap)
{
    int64_t version = 0;
    p->path = NULL;
    p->free_pages = 0;
    p->mark_freelist = false;
    if (errcap)
        err[0] = '\0';
    p->db = NULL;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return base_fail(err, errcap, "%s: cannot open: is a directory, not a profile database", path);
    char dir[4096];
    int derr = dir_error(path, dir, sizeof dir);
    if (derr && !exists)
        return base_fail(err, errcap, "%s: cannot create the database: directory %s: %s", path,
                         dir, strerror(derr));
    if (derr && access(path, W_OK) == 0 && !(side_exists(path, "-wal") && side_exists(path, "-shm")))
        return base_fail(err, errcap,
                         "%s: cannot write the database: its directory %s is not writable (%s), "
                         "and SQLite keeps its journal (the -wal and -shm files) beside it",
                         path, dir, strerror(derr));
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        return base_fail(err, errcap, "%s: cannot create a mutex", path);
    if (!(p->path = strdup(path))) { /* the caller's may not outlive the run */
        base_fail(err, errcap, "%s: out of memory", path);
        return open_failed(p);
    }
    /* No mutex of SQLite's own: every thread holds p->lock around its
     * use of the connection (pp__pdb_lock), and before the threads start
     * and after they end only one uses it. */
    int rc = sqlite3_open_v2(path, &p->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        if (p->db)
            pp__pdb_fail(p, "cannot open", err, errcap);
        else
            base_fail(err, errcap, "%s: cannot open: %s", path, sqlite3_errstr(rc));
        return open_failed(p);
    }
    sqlite3_extended_result_codes(p->db, 1);
    /* SQLite opens a file it may not write read-only, and fails later on
     * whatever first writes (a WAL file's shared memory, the run row). */
    if (sqlite3_db_readonly(p->db, "main") == 1) {
        base_fail(err, errcap,
                  "%s: the database file is read-only (no permission to write it, or a "
                  "read-only file system); cannot append a run to it",
                  path);
        return open_failed(p);
    }
    if (sqlite3_busy_timeout(p->db, BUSY_TIMEOUT_MS) != SQLITE_OK ||
        check_file(p, &version, err, errcap) != 0 || set_up(p, version, err, errcap) != 0 ||
        record_files(p, err, errcap) != 0) {
        if (!*err)
            pp__pdb_fail(p, "setting up", err, errcap);
        return open_failed(p);
    }
    return 0;
}

int pp__pdb_close(profile_db *p, char *err, size_t errcap)
{
    if (!p->db)
        return 0;
    bool moved = file_moved(p);
    int rc = sqlite3_close(p->db);
    p->db = NULL;
    pthread_mutex_destroy(&p->lock);
    int result = 0;
    if (moved) {
        /* SQLite does not checkpoint into a moved file and leaves its WAL
         * at the path, where the next connection would read it as the WAL
         * of whatever file is there then: remove ours, only ours. */
        char path[4096];
        for (int i = 1; i < 3; i++)
            if (still_there(p, i) && side_path(p, i, path, sizeof path))
                (void)unlink(path);
        base_fail(err, errcap,
                  "%s: the database file was deleted, renamed or replaced while the run was "
                  "being written (the path no longer names the file opened)",
                  p->path);
        result = PDB_FILE_LOST;
    } else if (rc != SQLITE_OK) {
        result = base_fail(err, errcap, "%s: closing: %s", p->path, sqlite3_errstr(rc));
    }
    free(p->path);
    p->path = NULL;
    return result;
}
