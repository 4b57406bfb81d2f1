/*
 * fuse_cover.c - the optimal cover through the public API
 * (include/pulley/fusion.h): a set bound to an interpreter's opcode
 * numbers becomes fusion/'s patterns and their index by last opcode (made
 * once), and a block of the interpreter's instructions becomes fusion/'s
 * (its registers renumbered by fusion/renumber.c), covered by
 * fu_cover_indexed: the answer the analysis and this project's VM get.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_set.h"
#include "renumber.h"

void pp__fuse_unbind(pulleyfuse_set *s)
{
    free(s->patterns);
    free(s->part_regs);
    fu_index_free(&s->index);
    s->patterns = NULL;
    s->part_regs = NULL;
    s->nops = 0;
    s->none_op = 0;
}

/* The caller's opcode_of, with its numbers checked: those above 65535
 * are refused, and the first such remembered for the message. */
typedef struct numbering {
    pulleyfuse_opcode_fn opcode_of;
    void *ctx;
    long too_high;
    const char *too_high_name;
} numbering;

static int checked_opcode(void *ctx, const char *mnemonic)
{
    numbering *nb = ctx;
    int op = nb->opcode_of(nb->ctx, mnemonic);
    if (op > UINT16_MAX && !nb->too_high_name) {
        nb->too_high = op;
        nb->too_high_name = mnemonic;
    }
    return op >= 0 && op <= UINT16_MAX ? op : -1;
}

/* s's patterns from s->set, numbered by nb.  0, or -1 with err. */
static int make_patterns(pulleyfuse_set *s, numbering *nb, char *err, size_t cap)
{
    for (size_t i = 0; i < s->set.n; i++) {
        const fu_macro *m = &s->set.macros[i];
        char why[256];
        if (fu_pattern_of(m, checked_opcode, nb, &s->patterns[i], why, sizeof why) == 0)
            continue;
        if (nb->too_high_name)
            snprintf(err, cap, "%s: macro op %s: %s is opcode %ld: the opcodes of parts must be"
                               " 0 to 65535",
                     s->name, m->name, nb->too_high_name, nb->too_high);
        else
            snprintf(err, cap, "%s: %s of the interpreter", s->name, why);
        return -1;
    }
    return 0;
}

/* The register operands of every part's opcode (s->part_regs), and an
 * opcode no part names.  0, or -1 with err. */
static int number_operands(pulleyfuse_set *s, char *err, size_t cap)
{
    for (size_t i = 0; i < s->set.n; i++)
        for (unsigned k = 0; k < s->patterns[i].n; k++)
            if (s->patterns[i].op[k] >= s->nops)
                s->nops = s->patterns[i].op[k] + 1u;
    if (!(s->part_regs = calloc(s->nops + 1, 1))) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < s->set.n; i++)
        for (unsigned k = 0; k < s->patterns[i].n; k++) {
            const fu_part *pt = &s->set.macros[i].part[k];
            uint8_t *have = &s->part_regs[s->patterns[i].op[k]];
            if (*have && *have != pt->nregs + 1) {
                snprintf(err, cap, "%s: macro op %s: part %u, %s, has %u register operands, and"
                                   " another part of its opcode (%u) %u",
                         s->name, s->set.macros[i].name, k + 1, pt->op, pt->nregs,
                         s->patterns[i].op[k], *have - 1u);
                return -1;
            }
            *have = (uint8_t)(pt->nregs + 1);
        }
    uint32_t none = 0;
    while (none < s->nops && s->part_regs[none])
        none++;
    if (none > UINT16_MAX) {
        snprintf(err, cap, "%s: the parts name every opcode 0 to 65535", s->name);
        return -1;
    }
    s->none_op = (uint16_t)none;
    return 0;
}

int pulleyfuse_bind(pulleyfuse_set *set, pulleyfuse_opcode_fn opcode_of, void *ctx, char *err,
                    size_t errcap)
{
    char why[512];
    if (!set || !opcode_of) {
        snprintf(err, errcap, "pulleyfuse_bind: no %s", set ? "opcode_of function" : "set");
        return -1;
    }
    pp__fuse_unbind(set);
    if (set->set.n > INT32_MAX) {
        snprintf(err, errcap, "%s: %zu macro ops: at most %ld", set->name, set->set.n,
                 (long)INT32_MAX);
        return -1;
    }
    numbering nb = {opcode_of, ctx, 0, NULL};
    set->patterns = calloc(set->set.n + 1, sizeof *set->patterns);
    int rc = set->patterns ? 0 : -1;
    snprintf(why, sizeof why, "out of memory");
    if (rc == 0)
        rc = make_patterns(set, &nb, why, sizeof why);
    if (rc == 0)
        rc = number_operands(set, why, sizeof why);
    if (rc == 0 && fu_index_build(&set->index, set->patterns, set->set.n) != 0) {
        snprintf(why, sizeof why, "out of memory");
        rc = -1;
    }
    if (rc != 0) {
        pp__fuse_unbind(set);
        snprintf(err, errcap, "%s", why);
    }
    return rc;
}

/* Each thread's renumbering state, kept from block to block so that a
 * block costs what it numbers, not the 13 KB a fresh state clears. */
static pthread_key_t renumber_key;
static int renumber_key_made;
static pthread_once_t renumber_once = PTHREAD_ONCE_INIT;

static void make_renumber_key(void)
{
    renumber_key_made = pthread_key_create(&renumber_key, free) == 0;
}

/* The calling thread's state, made ready for a block of n instructions;
 * NULL when it cannot have one (then a fresh state on the stack). */
static fu_renumber *thread_renumber(size_t n)
{
    pthread_once(&renumber_once, make_renumber_key);
    fu_renumber *rn = renumber_key_made ? pthread_getspecific(renumber_key) : NULL;
    if (!rn && renumber_key_made && (rn = malloc(sizeof *rn)) != NULL) {
        fu_renumber_start(rn);
        if (pthread_setspecific(renumber_key, rn) != 0) {
            free(rn);
            return NULL;
        }
    }
    if (rn)
        fu_renumber_gap(rn, (uint32_t)n);
    return rn;
}

/* fusion/'s instructions of block insns[0 .. n) into keys.  0, or -1
 * with err. */
static int make_keys(const pulleyfuse_set *s, const pulleyfuse_insn *insns, size_t n,
                     fu_insn *keys, char *err, size_t cap)
{
    fu_renumber fresh, *rn = thread_renumber(n);
    if (!rn) {
        fu_renumber_start(&fresh);
        rn = &fresh;
    }
    for (size_t i = 0; i < n; i++) {
        const pulleyfuse_insn *in = &insns[i];
        uint32_t op = in->opcode;
        if (in->nregs > FU_MAX_REGS) {
            snprintf(err, cap, "instruction %zu of the block has %u register operands: at most %d",
                     i, (unsigned)in->nregs, FU_MAX_REGS);
            return -1;
        }
        if (op < s->nops && s->part_regs[op] && s->part_regs[op] != in->nregs + 1) {
            snprintf(err, cap, "instruction %zu of the block (opcode %u) has %u register operands:"
                               " the parts of %s give its opcode %u",
                     i, (unsigned)op, (unsigned)in->nregs, s->name, s->part_regs[op] - 1u);
            return -1;
        }
        keys[i].op = op <= UINT16_MAX ? (uint16_t)op : s->none_op;
        fu_renumber_next(rn, in->regs, in->nregs, &keys[i]);
    }
    return 0;
}

int64_t pulleyfuse_cover(const pulleyfuse_set *set, const pulleyfuse_insn *insns, size_t n,
                         int32_t *choice, char *err, size_t errcap)
{
    if (!set || !set->patterns) {
        snprintf(err, errcap, "pulleyfuse_cover: the set is not bound (pulleyfuse_bind)");
        return -1;
    }
    if (n == 0)
        return 0;
    if (!insns || n >= UINT32_MAX || n > SIZE_MAX / sizeof(fu_insn) - 1) {
        snprintf(err, errcap, insns ? "a block of %zu instructions: at most 4294967294"
                                    : "pulleyfuse_cover: no instructions (%zu expected)", n);
        return -1;
    }
    fu_insn *keys = malloc(n * sizeof *keys);
    uint32_t *scratch = malloc((n + 1) * sizeof *scratch);
    int64_t cost = -1;
    if (!keys || !scratch)
        snprintf(err, errcap, "out of memory (a block of %zu instructions)", n);
    else if (make_keys(set, insns, n, keys, err, errcap) == 0)
        cost = fu_cover_indexed(keys, (uint32_t)n, set->patterns, set->set.n, &set->index,
                                scratch, choice);
    free(keys);
    free(scratch);
    return cost;
}
