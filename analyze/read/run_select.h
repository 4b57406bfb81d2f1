/*
 * run_select.h - which runs of which databases an analysis reads: the
 * `--runs` syntax, the default (every finished run with data), and the
 * checks that make a selection unambiguous.
 *
 *   --runs SPEC[,SPEC...]
 *     ID          run ID of the only database given
 *     DB:ID       run ID of database DB (as given on the command line, or
 *                 any path to the same file)
 *     label:NAME  the runs labelled NAME
 *     kind:exact  runs with exact counts; kind:sampled  runs with samples
 *     all         every run, finished or not
 *
 * Specs of one sort add up (3,5 is runs 3 and 5); sorts narrow each other
 * (label:base,kind:exact is the exact runs labelled base).  Without --runs,
 * or with only labels and kinds, runs that did not finish or hold no data
 * are left out, each with its reason; runs named by id are read whatever
 * state they are in.  An id that names no run, a label no run has, and a
 * bare id when several databases are read are errors.
 */
#ifndef AN_RUN_SELECT_H
#define AN_RUN_SELECT_H

#include <stddef.h>
#include <stdint.h>

enum { AN_SEL_MAX = 64 };

/* The --runs and --skip-damaged lines of both tools' --help. */
#define AN_RUNS_HELP                                                                     \
    "  --runs SPEC,...  runs to read (default: every run that finished with data;\n"      \
    "                 the others are listed on stderr): ID (of the only database),\n"  \
    "                 DB:ID, label:NAME, kind:exact, kind:sampled, all (every run,\n"  \
    "                 finished or not); one sort adds up, sorts narrow each other\n"    \
    "  --skip-damaged   leave out damaged runs, with a warning (default: refuse):\n"  \
    "                 stored code or instructions changed since they were written,\n" \
    "                 or rows no collector writes (negative or non-integer counts,\n" \
    "                 totals past 2^63-1, rows naming no function of the run)\n"     \
    "  --mix-isas     read runs of different instruction sets together (their\n"     \
    "                 opcodes then meet by name; default: refuse)\n"


typedef enum { AN_SEL_ID, AN_SEL_LABEL, AN_SEL_KIND } an_sel_sort;

typedef struct an_sel_item {
    an_sel_sort sort;
    uint16_t db, label; /* offsets of strings in an_runsel.text; 0: none */
    int64_t id;         /* AN_SEL_ID */
    int exact;          /* AN_SEL_KIND: 1 exact, 0 sampled */
    size_t matched;     /* runs it selected */
} an_sel_item;

typedef struct an_runsel {
    int all;            /* "all": every run, finished or not */
    an_sel_item items[AN_SEL_MAX];
    size_t n;
    int exact_only;     /* --exact: as kind:exact */
    int skip_damaged;   /* --skip-damaged: leave damaged runs out with a warning */
    int mix_isas;       /* --mix-isas: runs of different instruction sets together */
    char text[2048];    /* the strings items name (text[0] is unused) */
    size_t used;
} an_runsel;

/* Reset sel to the default: every finished run with data. */
void an_runsel_init(an_runsel *sel);

/* Add the specs of one --runs argument.  Returns 0, or -1 with err saying
 * which spec is wrong. */
int an_runsel_parse(an_runsel *sel, const char *text, char *err, size_t cap);

/* Add label:NAME (--train, --test). */
int an_runsel_add_label(an_runsel *sel, const char *label, char *err, size_t cap);

/* Does sel narrow by label already? */
int an_runsel_has_labels(const an_runsel *sel);

/* Before reading: a bare id needs a single database.  0, or -1 with err. */
int an_runsel_check_dbs(const an_runsel *sel, int ndbs, char *err, size_t cap);

/* What the selection looks at in one run. */
typedef struct an_run_facts {
    const char *db; /* the database as given */
    int64_t id;
    const char *label;
    int exact;
    const char *unfinished; /* NULL: finished with data; else why not */
} an_run_facts;

/* Is the run selected (AN_RUN_SELECTED), not (AN_RUN_OTHER), or would it
 * be but for not having finished with data (AN_RUN_SKIPPED, to be
 * reported with run->unfinished)?  Counts the items it matches. */
enum { AN_RUN_OTHER = 0, AN_RUN_SELECTED = 1, AN_RUN_SKIPPED = 2 };
int an_runsel_match(an_runsel *sel, const an_run_facts *run);

/* After reading every database: each id and label selected a run.  0, or
 * -1 with err naming the first that did not. */
int an_runsel_check_matched(const an_runsel *sel, char *err, size_t cap);

/* db and path name the same file (stat's device and inode; the strings
 * when either cannot be examined). */
int an_same_file(const char *db, const char *path);

#endif
