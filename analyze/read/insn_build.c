/*
 * insn_build.c - instructions of a function from its code or its stored
 * rows (insn_build.h): opcode, immediates, targets, and registers as the
 * function's register ids with the opcode's windows evaluated.
 */
#include "insn_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "opcode_decode.h"
#include "stored_text.h"

/* What an immediate is to the analysis. */
static an_imm imm_class(ot_imm kind)
{
    switch (kind) {
    case OT_IMM_NONE: return AN_IMM_NONE;
    case OT_IMM_S8:
    case OT_IMM_S16:
    case OT_IMM_S32:
    case OT_IMM_OFF32:
    case OT_IMM_I64: return AN_IMM_SIGNED;
    case OT_IMM_U32: return AN_IMM_UNSIGNED;
    case OT_IMM_REL32: return AN_IMM_REL;
    case OT_IMM_TABLE: return AN_IMM_TABLE;
    default: return AN_IMM_OTHER;
    }
}

/* The immediate the analysis describes: the first one that is not a
 * branch offset (a macro op ending in a branch has others first). */
static void note_imm(an_insn *out, an_imm kind, int64_t value)
{
    if (out->imm_kind == AN_IMM_NONE || out->imm_kind == AN_IMM_REL) {
        out->imm_kind = (uint8_t)kind;
        out->imm = value;
    }
}

void an_fbuild_start(an_fbuild *b, an_func *f)
{
    b->f = f;
    an_regmap_reset(&b->regs);
    b->implicit_cap = 0;
}

/* The registers window r of an instruction holds, its base register
 * numbered `base` and its immediates imms[0 .. nimms): *first and *count
 * (AN_OPEN: from *first up).  0 when it holds none. */
static int window(const an_range *r, int64_t base, const int64_t *imms, unsigned nimms,
                  int64_t *first, uint32_t *count)
{
    int64_t n = r->count_add;
    int open = 0;
    if (r->count_imm >= 0 && (unsigned)r->count_imm >= nimms)
        open = 1; /* its count is not known: every register from the start */
    else if (r->count_imm >= 0 && imms[r->count_imm] == 0 && r->open_if_zero)
        open = 1;
    else if (r->count_imm >= 0) {
        int64_t v = imms[r->count_imm];
        n = v > UINT32_MAX ? UINT32_MAX : v < -(int64_t)UINT32_MAX ? -(int64_t)UINT32_MAX : v;
        n += r->count_add;
    }
    *first = base + r->offset;
    if (!open && *first < 0)
        n += *first;
    if (*first < 0)
        *first = 0;
    if ((!open && n <= 0) || *first > UINT32_MAX)
        return 0;
    *count = open ? AN_OPEN : n >= AN_OPEN ? AN_OPEN - 1 : (uint32_t)n;
    return 1;
}

/* Give out the registers numbered number[0 .. n), of op's kinds, as ids of
 * b's function, and record op's windows for it; opaque when they cannot
 * be named.  0, or -2 when out of memory. */
static int set_registers(const an_isa *isa, const an_isa_op *op, an_fbuild *b,
                         const int64_t *number, unsigned n, const int64_t *imms, unsigned nimms,
                         an_insn *out)
{
    int known = n == 0 || (op->kinds_known && n <= AN_MAX_REGS);
    for (unsigned i = 0; known && i < n; i++) {
        int id = number[i] >= 0 && number[i] <= UINT32_MAX
                     ? an_regmap_id(&b->regs, b->f, op->kind[i], (uint32_t)number[i])
                     : -1;
        if (id == -2)
            return -2;
        known = id >= 0;
        out->reg[i] = (uint8_t)(known ? id : 0);
    }
    if (!known) {
        out->opaque = 1;
        memset(out->reg, 0, sizeof out->reg);
        return 0;
    }
    out->nregs = (uint8_t)n;
    out->uses = op->uses;
    out->defs = op->defs;
    an_func *f = b->f;
    for (uint32_t k = 0; k < op->nranges; k++) {
        const an_range *r = &isa->ranges[op->first_range + k];
        int64_t first;
        uint32_t count;
        if (!window(r, number[r->base], imms, nimms, &first, &count))
            continue;
        size_t cap = b->implicit_cap;
        if (BASE_GROW(f->implicit, cap, f->nimplicit + 1, 8) != 0)
            return -2;
        b->implicit_cap = (uint32_t)cap;
        f->implicit[f->nimplicit++] =
            (an_implicit){f->ninsns, (uint32_t)first, count, op->kind[r->base], r->access};
        out->implicit = 1;
    }
    return 0;
}

int an_decode(const an_isa *isa, an_fbuild *b, const uint8_t *code, size_t size, size_t off,
              an_insn *out, an_edge_fn edge, void *ctx)
{
    ot_insn in;
    if (ot_decode(&isa->rows, code, size, off, &in, NULL, 0) != 0)
        return -1;
    const an_isa_op *op = &isa->ops[in.op - isa->rows.ops];
    memset(out, 0, sizeof *out);
    out->off = (uint32_t)off;
    out->len = in.length;
    out->op = op->gop;
    out->mop = op->mgop;
    out->flags = op->flags;
    int64_t number[OT_MAX_REGS];
    for (unsigned i = 0; i < in.op->nregs; i++)
        number[i] = in.reg[i];
    if (set_registers(isa, op, b, number, in.op->nregs, in.imms, in.op->nimms, out) != 0)
        return -2;
    out->nimms = in.op->nimms;
    for (unsigned i = 0; i < in.op->nimms; i++) {
        an_imm kind = imm_class((ot_imm)in.op->imm[i]);
        note_imm(out, kind, in.imms[i]);
        if (!edge || !(out->flags & AN_BRANCH))
            continue;
        if (kind == AN_IMM_TABLE) {
            for (uint32_t e = 0; e < (uint64_t)in.imms[i]; e++) {
                int64_t target = (int64_t)off + ot_jump_entry(&in, e);
                if (target >= 0)
                    edge(ctx, (uint32_t)target);
            }
        } else if (kind == AN_IMM_REL && (int64_t)off + in.imms[i] >= 0) {
            edge(ctx, (uint32_t)((int64_t)off + in.imms[i]));
        }
    }
    return 0;
}

int an_insn_from_row(const an_isa *isa, an_fbuild *b, uint32_t off, int64_t len, int64_t opcode,
                     const char *regs, const char *imms, const char *targets, an_insn *out,
                     an_edge_fn edge, void *ctx, const char **why)
{
    const ot_opcode *row = opcode >= 0 && opcode <= UINT32_MAX
                               ? ot_table_find(&isa->rows, (uint32_t)opcode)
                               : NULL;
    int64_t reg[AN_MAX_REGS], imm[OT_MAX_IMMS];
    int nregs = fmt_parse_ints(regs, reg, AN_MAX_REGS), nimms = fmt_parse_ints(imms, imm, OT_MAX_IMMS);
    *why = !row                             ? "an opcode of no row of the run's table"
           : len <= 0 || len > UINT32_MAX   ? "a length that is none"
           : nregs != row->nregs            ? "register operands that are not its row's"
           : nimms < 0                      ? "immediates that are not a list of numbers"
           : row->nimms && nimms != row->nimms ? "immediates that are not its row's"
                                            : NULL;
    if (*why)
        return -1;
    const an_isa_op *op = &isa->ops[row - isa->rows.ops];
    memset(out, 0, sizeof *out);
    out->off = off;
    out->len = (uint32_t)len;
    out->op = op->gop;
    out->mop = op->mgop;
    out->flags = op->flags;
    for (int i = 0; i < nimms; i++) {
        note_imm(out, row->nimms ? imm_class((ot_imm)row->imm[i]) : AN_IMM_OTHER, imm[i]);
    }
    for (const char *p = targets ? targets : ""; *p;) {
        char *end;
        errno = 0;
        unsigned long long t = strtoull(p, &end, 10);
        if (end == p || errno || t > UINT32_MAX) {
            *why = "branch targets that are not a list of offsets";
            return -1;
        }
        if (edge)
            edge(ctx, (uint32_t)t);
        for (p = end; *p == ' '; p++)
            ;
    }
    out->nimms = (uint8_t)nimms;
    return set_registers(isa, op, b, reg, (unsigned)nregs, imm, (unsigned)nimms, out);
}
