/*
 * set_check.c - --evaluate's set checked against the runs' stored opcode
 * tables (set_check.h).
 */
#include "set_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_open.h"
#include "isa_table.h"
#include "macro_check.h"

/* One stored opcode table, as fu_isa asks it. */
typedef struct stored_isa {
    const an_profile *p;
    an_isa isa;
} stored_isa;

static int stored_lookup(void *ctx, const char *mnemonic, fu_isa_op *out)
{
    const stored_isa *s = ctx;
    const an_profile *p = s->p;
    for (size_t i = 0; i < s->isa.rows.n; i++) {
        const ot_opcode *row = &s->isa.rows.ops[i];
        if (!row->name || strcmp(row->name, mnemonic) != 0)
            continue;
        const an_isa_op *op = &s->isa.ops[i];
        out->nregs = row->nregs;
        out->nimms = row->nimms;
        for (unsigned j = 0; j < row->nregs && j < FU_MAX_REGS; j++)
            snprintf(out->kind[j], sizeof out->kind[j], "%s",
                     op->kinds_known && op->kind[j] < p->nkinds ? p->kinds[op->kind[j]] : "");
        out->ends = (op->flags & (AN_BRANCH | AN_TERM | AN_CALL | AN_RETURN)) != 0;
        out->macro = (op->flags & AN_MACRO) != 0;
        snprintf(out->wide, sizeof out->wide, "%s",
                 op->mgop != op->gop && op->mgop < p->nops ? p->opnames[op->mgop] : "");
        return 1;
    }
    return 0;
}

/* The opcode table of run r of p, loaded into *s; 0, or -1 with err. */
static int load_table(an_profile *p, const an_run *r, stored_isa *s, char *err, size_t cap)
{
    sqlite3 *db;
    char why[1024];
    s->p = p;
    memset(&s->isa, 0, sizeof s->isa);
    if (an_db_open_reading(r->db, &db, err, cap) != 0)
        return -1;
    int rc = an_isa_load(db, r->id, p, &s->isa, why, sizeof why);
    if (rc != 0)
        snprintf(err, cap, "%s: %s", r->db, why);
    if (sqlite3_close(db) != SQLITE_OK && rc == 0) {
        snprintf(err, cap, "%s: cannot close the database", r->db);
        rc = -1;
    }
    if (rc != 0)
        an_isa_free(&s->isa);
    return rc;
}

static int same_isa(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

int ng_check_set(an_profile *p, const fu_set *set, const char *file, char *err, size_t cap)
{
    /* One table per instruction set: that of its first run. */
    stored_isa *tables = calloc(p->nruns + 1, sizeof *tables);
    size_t n = 0;
    int rc = 0;
    if (!tables) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < p->nruns && rc == 0; i++) {
        size_t j = 0;
        while (j < i && !same_isa(p->runs[j].isa, p->runs[i].isa))
            j++;
        if (j == i)
            rc = load_table(p, &p->runs[i], &tables[n++], err, cap);
        if (rc != 0)
            n--;
    }
    for (size_t k = 0; k < set->n && rc == 0 && n > 0; k++) {
        char why[1024];
        rc = -1;
        for (size_t t = n; t > 0 && rc != 0; t--) {
            const fu_isa isa = {stored_lookup, &tables[t - 1]};
            rc = fu_check_macro(&set->macros[k], &isa, file, t == 1 ? err : why,
                                t == 1 ? cap : sizeof why);
        }
    }
    for (size_t t = 0; t < n; t++)
        an_isa_free(&tables[t].isa);
    free(tables);
    return rc;
}
