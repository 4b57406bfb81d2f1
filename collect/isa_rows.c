/*
 * isa_rows.c - the opcode table checked and indexed, and instructions
 * decoded and checked against it (see isa_rows.h).
 */
#include "isa_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "stored_text.h"

static int by_id(const void *x, const void *y)
{
    unsigned a = (*(const pulleyprof_opcode *const *)x)->id;
    unsigned b = (*(const pulleyprof_opcode *const *)y)->id;
    return a < b ? -1 : a > b;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return base_fnv1a64_bytes(h, s ? s : "", strlen(s ? s : "") + 1); /* with its NUL */
}

/* A hash of the rows, in id order, for an ISA that gives none. */
static uint64_t hash_rows(const isa_rows *r)
{
    uint64_t h = BASE_FNV1A64_INIT;
    for (size_t i = 0; i < r->n; i++) {
        const pulleyprof_opcode *o = r->by_id[i];
        unsigned nums[4] = {o->id, o->length, o->flags, o->nparts};
        h = base_fnv1a64_bytes(h, nums, sizeof nums);
        h = fnv_str(fnv_str(fnv_str(h, o->name), o->operands), o->roles);
        if (o->wide_form)
            h = fnv_str(h, o->wide_form);
        for (unsigned k = 0; o->parts && k < o->nparts; k++)
            h = fnv_str(fnv_str(base_fnv1a64_bytes(h, &o->parts[k].opcode, sizeof(unsigned)),
                                o->parts[k].regs),
                        o->parts[k].imms);
        /* Only rows with implicit ranges hash them: tables without any
         * (Pulley's, CPython's) keep the hash they had before. */
        for (unsigned k = 0; o->implicit && k < o->nimplicit; k++) {
            const pulleyprof_range *g = &o->implicit[k];
            int64_t v[6] = {k, g->access, g->base, g->offset, g->count_imm,
                            (int64_t)g->count_add * 2 + (g->open_if_zero != 0)};
            h = base_fnv1a64_bytes(h, v, sizeof v);
        }
    }
    return h;
}

/* Immediates a row declares: its operand kinds after the register ones. */
static unsigned imm_count(const pulleyprof_opcode *o)
{
    unsigned nwords = fmt_count_words(o->operands), nregs = fmt_count_words(o->roles);
    return nwords > nregs ? nwords - nregs : 0;
}

/* c is 0 (not measured) or a positive number the readers take (at most
 * 1e9, as analyze/ and bench/op_costs.sh's files allow). */
static int cost_is_a_cost(double c)
{
    return c >= 0 && c <= 1e9;
}

/* What is wrong with row o, or NULL. */
static const char *row_problem(const pulleyprof_opcode *o)
{
    unsigned nregs = fmt_count_words(o->roles), nwords = fmt_count_words(o->operands);
    uint16_t reads, writes;
    const char *roles_problem = fmt_parse_roles(o->roles, nregs, &reads, &writes);
    if (!o->name || !*o->name)
        return "it has no name";
    if (roles_problem) /* a word that is not a role, or more than 16 */
        return roles_problem;
    if (nwords && nwords < nregs)
        return "fewer operand kinds than roles";
    if (nwords > nregs + PULLEYPROF_MAX_IMMS)
        return "more than 8 immediates";
    if (o->flags >= 2 * PULLEYPROF_ADAPTIVE) /* the highest flag */
        return "flags that are not PULLEYPROF_ flags";
    if (o->nparts && !o->parts)
        return "nparts without parts";
    if (o->parts && (o->nparts < 2 || o->nparts > 8))
        return "a macro op has 2 to 8 parts";
    if (o->parts && !(o->flags & PULLEYPROF_MACRO))
        return "parts without the PULLEYPROF_MACRO flag";
    if (o->reg_bits && o->reg_bits != 5 && o->reg_bits != 8)
        return "reg_bits is neither 0, 5 nor 8";
    if (!cost_is_a_cost(o->cost))
        return "a cost that is negative, above 1e9 or not a number";
    if (o->nimplicit && !o->implicit)
        return "nimplicit without implicit ranges";
    if (o->implicit && o->nimplicit > PULLEYPROF_MAX_REGS)
        return "more than 16 implicit ranges";
    return NULL;
}

enum { RANGE_LIMIT = 65535 }; /* |offset| and |count_add| */

/* What is wrong with o's implicit range g, or NULL. */
static const char *range_problem(const pulleyprof_opcode *o, const pulleyprof_range *g,
                                 char *buf, size_t cap)
{
    unsigned nregs = fmt_count_words(o->roles), nimms = imm_count(o);
    if (g->access == 0 || (g->access & ~(unsigned)(PULLEYPROF_READS | PULLEYPROF_WRITES)))
        snprintf(buf, cap, "access %u is not PULLEYPROF_READS, PULLEYPROF_WRITES or both",
                 g->access);
    else if (g->base >= nregs)
        snprintf(buf, cap, "base %u is not one of its %u register operands", g->base, nregs);
    else if (g->count_imm < -1 || (g->count_imm >= 0 && (unsigned)g->count_imm >= nimms))
        snprintf(buf, cap, "count_imm %d is neither -1 nor one of its %u immediates",
                 g->count_imm, nimms);
    else if (g->count_imm == -1 && g->count_add < 1)
        snprintf(buf, cap, "a fixed count (count_imm -1) of %d registers: it must be >= 1",
                 g->count_add);
    else if (g->open_if_zero != 0 && (g->open_if_zero != 1 || g->count_imm == -1))
        snprintf(buf, cap, "open_if_zero %d: 0, or 1 with a count immediate", g->open_if_zero);
    else if (g->offset < -RANGE_LIMIT || g->offset > RANGE_LIMIT || g->count_add < -RANGE_LIMIT ||
             g->count_add > RANGE_LIMIT)
        snprintf(buf, cap, "offset %d or count_add %d beyond +-%d", g->offset, g->count_add,
                 RANGE_LIMIT);
    else
        return NULL;
    return buf;
}

/* What is wrong with part k of macro row o (its part row p), or NULL. */
static const char *part_problem(const pulleyprof_opcode *o, const pulleyprof_opcode *p,
                                unsigned k, char *buf, size_t cap)
{
    const pulleyprof_part *pt = &o->parts[k];
    uint8_t idx[PULLEYPROF_MAX_REGS];
    unsigned mregs = fmt_count_words(o->roles), pregs = fmt_count_words(p->roles);
    int nr = fmt_parse_indices(pt->regs, idx, PULLEYPROF_MAX_REGS, mregs);
    int ni = fmt_parse_indices(pt->imms, idx, PULLEYPROF_MAX_IMMS, imm_count(o));
    if (nr < 0 || (unsigned)nr != pregs)
        snprintf(buf, cap, "part %u (%s): regs \"%s\" must name %u of the macro's %u register"
                 " operands", k, p->name, pt->regs ? pt->regs : "", pregs, mregs);
    else if (ni < 0 || (unsigned)ni != imm_count(p))
        snprintf(buf, cap, "part %u (%s): imms \"%s\" must name %u of the macro's %u immediates",
                 k, p->name, pt->imms ? pt->imms : "", imm_count(p), imm_count(o));
    else
        return NULL;
    return buf;
}

/* What is wrong with macro row o's parts (in r, indexed), or NULL. */
static const char *parts_problem(const isa_rows *r, const pulleyprof_opcode *o, char *buf,
                                 size_t cap)
{
    for (unsigned k = 0; o->parts && k < o->nparts; k++) {
        const pulleyprof_opcode *p = pp__isa_rows_find(r, o->parts[k].opcode, NULL);
        if (!p || p == o)
            return "a part is no other row of the table";
        if (part_problem(o, p, k, buf, cap))
            return buf;
    }
    return NULL;
}

const pulleyprof_opcode *pp__isa_rows_named(const isa_rows *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->by_id[i]->name && strcmp(r->by_id[i]->name, name) == 0)
            return r->by_id[i];
    return NULL;
}

/* What is wrong with o's wide form (o->wide_form set), or NULL. */
static const char *wide_form_problem(const isa_rows *r, const pulleyprof_opcode *o)
{
    const pulleyprof_opcode *w = pp__isa_rows_named(r, o->wide_form);
    if (!w || w == o)
        return "its wide_form names no other row of the table";
    if (w->wide_form)
        return "its wide_form has a wide_form of its own";
    if (o->parts || w->parts || o->flags != w->flags ||
        strcmp(o->roles ? o->roles : "", w->roles ? w->roles : "") != 0 ||
        fmt_count_words(o->operands) != fmt_count_words(w->operands))
        return "its wide_form differs in roles, operand count or flags, or is a macro op";
    return NULL;
}

int pp__isa_rows_init(isa_rows *r, const pulleyprof_isa *isa, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->isa = isa;
    if (!isa->opcodes || isa->nopcodes == 0) {
        snprintf(err, cap, "the instruction set '%s' has no opcodes", isa->name ? isa->name : "?");
        return -1;
    }
    if (!cost_is_a_cost(isa->dispatch_cost)) {
        snprintf(err, cap, "the instruction set '%s': a dispatch_cost that is negative, above 1e9"
                 " or not a number", isa->name ? isa->name : "?");
        return -1;
    }
    r->by_id = malloc(isa->nopcodes * sizeof *r->by_id);
    r->nregs = malloc(isa->nopcodes);
    if (!r->by_id || !r->nregs) {
        snprintf(err, cap, "out of memory");
        pp__isa_rows_free(r);
        return -1;
    }
    r->n = isa->nopcodes;
    for (size_t i = 0; i < r->n; i++)
        r->by_id[i] = &isa->opcodes[i];
    qsort(r->by_id, r->n, sizeof *r->by_id, by_id);
    char buf[320], why[256];
    for (size_t i = 0; i < r->n; i++) {
        const pulleyprof_opcode *o = r->by_id[i];
        const char *problem = row_problem(o);
        if (!problem && i > 0 && r->by_id[i - 1]->id == o->id)
            problem = "its id is also another row's";
        problem = problem ? problem : parts_problem(r, o, buf, sizeof buf);
        if (!problem && o->wide_form)
            problem = wide_form_problem(r, o);
        for (unsigned k = 0; !problem && o->implicit && k < o->nimplicit; k++)
            if (range_problem(o, &o->implicit[k], why, sizeof why)) {
                snprintf(buf, sizeof buf, "implicit range %u: %s", k, why);
                problem = buf;
            }
        if (!problem && !isa->decode && fmt_count_words(o->roles))
            problem = "register operands (roles) in a table without a decoder (isa.decode"
                      " NULL): no register numbers could be stored for them";
        if (problem) {
            snprintf(err, cap, "opcode table '%s', row %u (%s): %s", isa->name ? isa->name : "?",
                     o->id, o->name ? o->name : "no name", problem);
            pp__isa_rows_free(r);
            return -1;
        }
        r->nregs[i] = (unsigned char)fmt_count_words(o->roles);
    }
    r->hash = isa->hash ? isa->hash : hash_rows(r);
    return 0;
}

void pp__isa_rows_free(isa_rows *r)
{
    free(r->by_id);
    free(r->nregs);
    memset(r, 0, sizeof *r);
}

const pulleyprof_opcode *pp__isa_rows_find(const isa_rows *r, unsigned id, unsigned *nregs)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->by_id[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->n || r->by_id[lo]->id != id)
        return NULL;
    if (nregs)
        *nregs = r->nregs[lo];
    return r->by_id[lo];
}

int pulleyprof_insn_add_target(pulleyprof_insn *insn, uint32_t offset)
{
    if (BASE_GROW(insn->targets, insn->targets_cap, insn->ntargets + 1, 8) != 0)
        return -1;
    insn->targets[insn->ntargets++] = offset;
    return 0;
}

const pulleyprof_opcode *pp__isa_rows_decode(const isa_rows *r, const void *ctx,
                                             const uint8_t *code, size_t size, size_t off,
                                             pulleyprof_insn *insn, char *text, size_t cap)
{
    uint32_t *targets = insn->targets;
    size_t targets_cap = insn->targets_cap;
    memset(insn, 0, sizeof *insn);
    insn->targets = targets;
    insn->targets_cap = targets_cap;
    insn->text = text;
    insn->text_cap = cap;
    text[0] = '\0';
    const pulleyprof_opcode *row;
    unsigned nregs = 0;
    if (r->isa->decode) {
        if (r->isa->decode(ctx, code, size, off, insn) != 0)
            return NULL;
        row = pp__isa_rows_find(r, insn->opcode, &nregs);
    } else {
        row = pp__isa_rows_find(r, code[off], &nregs);
        insn->opcode = code[off];
        insn->length = row ? row->length : 0;
    }
    if (!row || insn->length == 0 || insn->length > size - off ||
        (r->isa->decode && insn->nregs != nregs) || insn->nimms > PULLEYPROF_MAX_IMMS)
        return NULL;
    for (size_t i = 0; i < insn->ntargets; i++)
        if (insn->targets[i] >= size) /* a branch target outside the code */
            return NULL;
    text[cap - 1] = '\0';
    if (!text[0]) { /* the mnemonic, for every instruction of most decoders */
        size_t n = strlen(row->name);
        n = n < cap ? n : cap - 1;
        memcpy(text, row->name, n);
        text[n] = '\0';
    }
    return row;
}
