/*
 * regvm_fuse.c - regvm's fusion pass: decode a function, cut it into basic
 * blocks (a leader is the entry, a branch target, or the instruction
 * after a branch or a terminator), ask the library's cover which
 * sequences of each block the build's macro ops replace, and lay the code
 * out again with macro instructions and branch offsets moved.
 */
#include <pulley/fusion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regvm_fuse.h"
#include "regvm_isa.h"

/* A function being fused: its instructions, then the items of the new
 * code (an instruction, or a macro instruction standing for several). */
typedef struct fusing {
    regvm_insn *in;
    uint32_t *at;     /* old offset of each instruction */
    uint8_t *leader;
    int32_t *choice;  /* the cover's: the macro op ending at each, or -1 */
    uint32_t *item;   /* the item each instruction starts (or is in) */
    uint32_t *new_at; /* per item: its new offset */
    regvm_insn *out;  /* per item: what is encoded */
    uint32_t *first;  /* per item: its first instruction */
    size_t n, nitems, size; /* instructions, items, bytes of the new code */
} fusing;

static void fusing_free(fusing *f)
{
    free(f->in);
    free(f->at);
    free(f->leader);
    free(f->choice);
    free(f->item);
    free(f->new_at);
    free(f->out);
    free(f->first);
}

/* Decode every instruction and mark the leaders. */
static int decode_all(const uint8_t *code, size_t size, fusing *f)
{
    size_t cap = size + 1; /* an instruction takes a byte at least */
    f->in = malloc(cap * sizeof *f->in);
    f->at = malloc(cap * sizeof *f->at);
    f->leader = calloc(cap, 1);
    f->choice = malloc(cap * sizeof *f->choice);
    f->item = malloc(cap * sizeof *f->item);
    f->new_at = malloc(cap * sizeof *f->new_at);
    f->out = malloc(cap * sizeof *f->out);
    f->first = malloc(cap * sizeof *f->first);
    if (!f->in || !f->at || !f->leader || !f->choice || !f->item || !f->new_at || !f->out ||
        !f->first)
        return -1;
    uint8_t *target = calloc(size + 1, 1);
    if (!target)
        return -1;
    for (size_t off = 0; off < size; f->n++) {
        if (regvm_decode(code, size, off, &f->in[f->n]) != 0) {
            free(target);
            return -1;
        }
        const regvm_op *op = &regvm_ops[f->in[f->n].op];
        int64_t to = op->rel >= 0 ? (int64_t)off + f->in[f->n].imm[op->rel] : -1;
        if (to >= 0 && (size_t)to <= size)
            target[to] = 1;
        f->at[f->n] = (uint32_t)off;
        f->leader[f->n] = f->n == 0 || (regvm_ops[f->in[f->n - 1].op].flags &
                                        (PULLEYPROF_BRANCH | PULLEYPROF_TERMINATOR));
        off += f->in[f->n].len;
    }
    for (size_t i = 0; i < f->n; i++)
        f->leader[i] |= target[f->at[i]];
    free(target);
    return 0;
}

/* The cover of every block into f->choice. */
static int cover_blocks(fusing *f)
{
    pulleyfuse_insn *keys = malloc((f->n + 1) * sizeof *keys);
    if (!keys)
        return -1;
    for (size_t i = 0; i < f->n; i++) {
        keys[i] = (pulleyfuse_insn){.opcode = f->in[i].op, .nregs = regvm_ops[f->in[i].op].nregs};
        for (unsigned j = 0; j < keys[i].nregs; j++)
            keys[i].regs[j] = f->in[i].reg[j];
    }
    char err[256];
    int rc = 0;
    for (size_t start = 0; start < f->n && rc == 0;) {
        size_t end = start + 1;
        while (end < f->n && !f->leader[end])
            end++;
        if (pulleyfuse_cover(regvm_macro_set, keys + start, end - start, f->choice + start, err,
                             sizeof err) < 0) {
            fprintf(stderr, "regvm: fusing: %s\n", err);
            rc = -1;
        }
        start = end;
    }
    free(keys);
    return rc;
}

/* The macro instruction of macro op m made of instructions in[0 ..). */
static void macro_insn(unsigned op, const pulleyfuse_macro *m, const regvm_insn *in,
                       regvm_insn *out)
{
    memset(out, 0, sizeof *out);
    out->op = op;
    for (unsigned k = 0; k < m->nparts; k++) {
        for (unsigned j = 0; j < m->parts[k].nregs; j++)
            out->reg[m->parts[k].regs[j]] = in[k].reg[j];
        for (unsigned j = 0; j < m->parts[k].nimms; j++)
            out->imm[m->parts[k].imms[j]] = in[k].imm[j];
    }
}

/* Items from the cover, and their new offsets (branch offsets take 5
 * bytes whatever they become, so lengths are known before offsets). */
static void lay_out(fusing *f)
{
    for (size_t i = f->n; i-- > 0;) {
        int32_t c = f->choice[i];
        pulleyfuse_macro m;
        size_t parts = 1;
        if (c >= 0 && pulleyfuse_macro_at(regvm_macro_set, (size_t)c, &m) == 0)
            parts = m.nparts;
        size_t first = i + 1 - parts;
        if (parts > 1)
            macro_insn(REGVM_NBASE + (unsigned)c, &m, &f->in[first], &f->out[f->nitems]);
        else
            f->out[f->nitems] = f->in[i];
        f->first[f->nitems] = (uint32_t)first;
        for (size_t k = first; k <= i; k++)
            f->item[k] = (uint32_t)f->nitems; /* numbered from the end; turned below */
        f->nitems++;
        i = first;
    }
    for (size_t i = 0; i < f->n; i++)
        f->item[i] = (uint32_t)(f->nitems - 1 - f->item[i]);
    for (size_t a = 0, b = f->nitems - 1; a < b; a++, b--) {
        regvm_insn t = f->out[a];
        f->out[a] = f->out[b], f->out[b] = t;
        uint32_t u = f->first[a];
        f->first[a] = f->first[b], f->first[b] = u;
    }
    uint8_t scratch[REGVM_MAX_INSN];
    uint32_t at = 0;
    for (size_t k = 0; k < f->nitems; k++) {
        f->new_at[k] = at;
        at += regvm_encode(&f->out[k], scratch);
    }
    f->size = at;
}

/* The instruction whose old offset is `off`, or -1. */
static long insn_at(const fusing *f, int64_t off)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->at[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->n && f->at[lo] == off ? (long)lo : -1;
}

/* Encode the items with their branch offsets moved. */
static int encode(fusing *f, uint8_t **out, size_t *outsize)
{
    uint8_t *code = malloc(f->size + 1);
    if (!code)
        return -1;
    size_t len = 0;
    for (size_t k = 0; k < f->nitems; k++) {
        regvm_insn *o = &f->out[k];
        const regvm_op *op = &regvm_ops[o->op];
        if (op->rel >= 0) { /* the last part's branch, from its old place */
            size_t last = k + 1 < f->nitems ? f->first[k + 1] - 1 : f->n - 1;
            const regvm_insn *b = &f->in[last];
            int rel = regvm_ops[b->op].rel;
            long t = rel >= 0 ? insn_at(f, (int64_t)f->at[last] + b->imm[rel]) : -1;
            if (t < 0) { /* no instruction there: the code is not fused */
                free(code);
                return -1;
            }
            o->imm[op->rel] = (int64_t)f->new_at[f->item[t]] - (int64_t)f->new_at[k];
        }
        len += regvm_encode(o, code + len);
    }
    *out = code;
    *outsize = len;
    return 0;
}

int regvm_fuse(const uint8_t *code, size_t size, int fuse, uint8_t **out, size_t *outsize)
{
    if (!fuse || !regvm_macro_set || pulleyfuse_count(regvm_macro_set) == 0 || size == 0) {
        if (!(*out = malloc(size ? size : 1)))
            return -1;
        memcpy(*out, code, size);
        *outsize = size;
        return 0;
    }
    fusing f = {0};
    int rc = decode_all(code, size, &f) == 0 && cover_blocks(&f) == 0 ? 0 : -1;
    if (rc == 0) {
        lay_out(&f);
        rc = encode(&f, out, outsize);
    }
    fusing_free(&f);
    return rc;
}
