/*
 * fuse.c - the fusion pass (fuse.h): decode a function, split it into
 * basic blocks, cover each with the build's macro ops (fusion/cover.h),
 * lay the new code out, encode it with branch offsets and jump tables
 * moved to the new offsets.
 */
#include "fuse.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "cover.h"
#include "insn.h"
#include "verify.h"

/* ---- the build's macro ops as patterns (made once) --------------------- */

static fu_pattern patterns[PVM_OP_END];
static uint16_t pattern_op[PVM_OP_END]; /* the macro opcode of patterns[i] */
static size_t npatterns;
static fu_index pattern_index; /* by last part; none (start NULL: out of memory): try all */
static pthread_once_t patterns_once = PTHREAD_ONCE_INIT;

/* The pattern of macro op `op`, from its parts as its row numbers them. */
static int pattern_of_row(unsigned op, fu_pattern *out)
{
    const pvm_macro_info *info = pvm_ops[op].macro;
    fu_insn parts[FU_MAX_PARTS];
    if (info->nparts > FU_MAX_PARTS)
        return -1;
    for (unsigned k = 0; k < info->nparts; k++) {
        const pvm_format_info *pf = &pvm_formats[pvm_ops[info->part[k].op].format];
        if (pf->nregs > FU_MAX_REGS)
            return -1;
        parts[k].op = info->part[k].op;
        parts[k].nregs = pf->nregs;
        memcpy(parts[k].reg, info->part[k].reg, pf->nregs);
    }
    return fu_pattern_of_parts(parts, info->nparts, out);
}

static void make_patterns(void)
{
    for (unsigned op = 0; op < PVM_OP_END; op++)
        if (pvm_ops[op].name && pvm_ops[op].macro && pattern_of_row(op, &patterns[npatterns]) == 0)
            pattern_op[npatterns++] = (uint16_t)op;
    (void)fu_index_build(&pattern_index, patterns, npatterns); /* all zero if it fails */
}

int pvm_fuse_has_macros(void)
{
    pthread_once(&patterns_once, make_patterns);
    return npatterns > 0;
}

/* ---- one function ------------------------------------------------------ */

/* An instruction, its cover, and where it goes.  Only its opcode and
 * length are read at first: an instruction is decoded whole where it is
 * needed (a branch, a macro op's part). */
typedef struct slot {
    uint32_t at;     /* old offset */
    uint32_t length; /* encoded bytes, jump table included */
    uint32_t new_at; /* new offset of the item it starts (if it starts one) */
    int32_t macro;   /* pattern index of the macro op that ends here, or -1 */
    uint16_t op;
    uint8_t leader;
    uint8_t starts;  /* starts an item of the new code (a single or a macro op) */
    uint8_t nparts;  /* the item's instructions (1 for a single) */
} slot;

/* The arrays a function is fused with (pvm_fuse_scratch in fuse.h). */
typedef struct pvm_fuse_scratch {
    slot *s;
    uint32_t n, cap;
    fu_insn *keys;
    uint32_t *scratch;
    int32_t *choice;
    uint32_t *index;     /* per code byte: the slot starting there, or NO_SLOT */
    size_t index_cap;
    const uint8_t *code; /* the function's code, size bytes */
    uint32_t size;
} work;

#define NO_SLOT UINT32_MAX

static int grow_work(work *w, uint32_t n)
{
    if (n <= w->cap)
        return 0;
    /* Each array grows from a copy of w->cap (scratch: one item more), all
     * to the same capacity; w->cap follows once all four did. */
    size_t cap = w->cap, kcap = w->cap, ccap = w->cap, scap = w->cap ? w->cap + (size_t)1 : 0;
    if (BASE_GROW(w->s, cap, n, 64) != 0 || BASE_GROW(w->keys, kcap, n, 64) != 0 ||
        BASE_GROW(w->scratch, scap, (size_t)n + 1, 65) != 0 ||
        BASE_GROW(w->choice, ccap, n, 64) != 0 || cap > UINT32_MAX)
        return -1;
    w->cap = (uint32_t)cap;
    return 0;
}

/* The slot of the instruction starting at offset off, or -1. */
static long index_at(const work *w, int64_t off)
{
    if (off < 0 || off >= w->size || w->index[off] == NO_SLOT)
        return -1;
    return (long)w->index[off];
}

/* Decode slot i's instruction whole (it decoded once already). */
static void decode_slot(const work *w, uint32_t i, pvm_insn *out)
{
    pvm_decode(w->code, w->size, w->s[i].at, out);
}

static const pvm_format_info *op_format(unsigned op)
{
    return &pvm_formats[pvm_ops[op].format];
}

/* Mark the instruction at off a leader: 0, or PVM_FUSE_BAD_CODE if no
 * instruction starts there. */
static int mark_leader(work *w, int64_t off)
{
    long i = index_at(w, off);
    if (i < 0)
        return PVM_FUSE_BAD_CODE;
    w->s[i].leader = 1;
    return 0;
}

_Static_assert(PVM_MAX_REGS <= FU_MAX_REGS, "a key holds every register operand");

/* Read instruction `at` of the code into slot s and its key k: 0, or
 * PVM_FUSE_BAD_CODE.  An instruction naming code offsets is decoded
 * whole (its length may include a jump table); for the others the opcode
 * gives the length, and the register bytes the key (the verifier checks
 * them in the new code). */
static int read_slot(const work *w, uint32_t at, slot *s, fu_insn *k)
{
    const uint8_t *p = w->code + at;
    uint32_t avail = w->size - at;
    if (p[0] == PVM_ESCAPE_BYTE && avail < 3)
        return PVM_FUSE_BAD_CODE;
    unsigned op = pvm_opcode_at(p), hdr = p[0] == PVM_ESCAPE_BYTE ? 3 : 1;
    const pvm_op_info *info = pvm_op_lookup(op);
    if (!info || avail < info->length)
        return PVM_FUSE_BAD_CODE;
    const pvm_format_info *fmt = &pvm_formats[info->format];
    *s = (slot){.at = at, .length = info->length, .macro = -1, .op = (uint16_t)op};
    if (pvm_format_names_code_offsets(fmt)) {
        pvm_insn insn;
        if (pvm_decode(w->code, w->size, at, &insn) != NULL)
            return PVM_FUSE_BAD_CODE;
        s->length = insn.length;
    }
    k->op = (uint16_t)pvm_op_wide(op); /* a macro op's part names the wide form */
    k->nregs = fmt->nregs;
    for (unsigned r = 0; r < fmt->nregs && r < FU_MAX_REGS; r++)
        k->reg[r] = (uint8_t)(p[hdr + r] + (fmt->reg[r] == PVM_REG_F ? 32 : 0));
    return 0;
}

/* Read f's instructions and mark its block leaders: 0, -1 (out of
 * memory), or PVM_FUSE_BAD_CODE (an instruction that does not decode, a
 * branch that lands on no instruction). */
static int decode_function(const pvm_module *m, const pvm_function *f, work *w)
{
    w->code = m->code + f->offset;
    w->size = f->size;
    w->n = 0;
    if (BASE_GROW(w->index, w->index_cap, (size_t)f->size + 1, 256) != 0)
        return -1;
    memset(w->index, 0xff, (size_t)f->size * sizeof *w->index);
    for (uint32_t at = 0; at < f->size;) {
        if (grow_work(w, w->n + 1) != 0)
            return -1;
        slot *s = &w->s[w->n];
        if (read_slot(w, at, s, &w->keys[w->n]) != 0)
            return PVM_FUSE_BAD_CODE;
        w->index[at] = w->n++;
        at += s->length;
    }
    for (uint32_t i = 0; i < w->n; i++) {
        unsigned flags = pvm_ops[w->s[i].op].flags;
        if (i == 0 || (pvm_ops[w->s[i - 1].op].flags & (PVM_FLAG_BRANCH | PVM_FLAG_TERM)))
            w->s[i].leader = 1;
        if (!(flags & PVM_FLAG_BRANCH))
            continue;
        pvm_insn in;
        decode_slot(w, i, &in);
        const pvm_format_info *fmt = pvm_insn_format(&in);
        for (unsigned k = 0; k < fmt->nimms; k++) {
            if (fmt->imm[k] == PVM_IMM_REL32 &&
                mark_leader(w, (int64_t)w->s[i].at + in.imms[k]) != 0)
                return PVM_FUSE_BAD_CODE;
            for (uint32_t e = 0; fmt->imm[k] == PVM_IMM_TABLE && e < (uint32_t)in.imms[k]; e++)
                if (mark_leader(w, (int64_t)w->s[i].at + pvm_insn_table_entry(&in, e)) != 0)
                    return PVM_FUSE_BAD_CODE;
        }
    }
    return 0;
}

/* Cover every block; mark the items of the new code. */
static void cover_blocks(work *w)
{
    for (uint32_t b = 0; b < w->n;) {
        uint32_t e = b + 1;
        while (e < w->n && !w->s[e].leader)
            e++;
        fu_cover_indexed(w->keys + b, e - b, patterns, npatterns,
                         pattern_index.start ? &pattern_index : NULL, w->scratch, w->choice);
        for (uint32_t i = e; i-- > b;) {
            int32_t p = w->choice[i - b];
            uint32_t n = p >= 0 ? patterns[p].n : 1;
            w->s[i].macro = p;
            w->s[i + 1 - n].starts = 1;
            w->s[i + 1 - n].nparts = (uint8_t)n;
            i -= n - 1;
        }
        b = e;
    }
}

/* The instruction an item of the new code is: its single instruction, or
 * its macro op with the parts' operands (a narrow form's immediate, a
 * value, goes into the wide form's field as it is). */
static void item_insn(const work *w, uint32_t i, pvm_insn *out)
{
    const slot *s = &w->s[i];
    if (s->nparts == 1) {
        decode_slot(w, i, out);
        return;
    }
    const slot *last = &w->s[i + s->nparts - 1];
    unsigned op = pattern_op[last->macro];
    const pvm_macro_info *info = pvm_ops[op].macro;
    memset(out, 0, sizeof *out);
    out->op = (uint16_t)op;
    for (unsigned k = 0; k < info->nparts; k++) {
        pvm_insn part;
        decode_slot(w, i + k, &part);
        const pvm_format_info *pf = pvm_insn_format(&part);
        for (unsigned r = 0; r < pf->nregs; r++)
            out->reg[info->part[k].reg[r]] = part.reg[r];
        for (unsigned m = 0; m < pf->nimms; m++)
            out->imms[info->part[k].imm[m]] = part.imms[m];
        if (part.table)
            out->table = part.table;
    }
}

/* The encoded size of item i: its op's length and its jump table (a
 * single instruction's: what it was). */
static uint32_t item_size(const work *w, uint32_t i)
{
    const slot *s = &w->s[i];
    if (s->nparts == 1)
        return s->length;
    unsigned op = pattern_op[w->s[i + s->nparts - 1].macro];
    const pvm_format_info *fmt = op_format(op);
    uint32_t size = pvm_ops[op].length;
    for (unsigned k = 0; k < fmt->nimms; k++)
        if (fmt->imm[k] == PVM_IMM_TABLE) {
            pvm_insn in;
            item_insn(w, i, &in);
            size += 4 * (uint32_t)in.imms[k];
        }
    return size;
}

/* The new offset of old offset `off` (a leader: always an item's start). */
static uint32_t new_offset(const work *w, int64_t off)
{
    long i = index_at(w, off);
    return i >= 0 ? w->s[i].new_at : 0;
}

/* Encode item i at its new offset into out; branch offsets move with
 * their targets (they are relative to the branching instruction, which in
 * a macro op is the macro instruction). */
static int encode_item(const work *w, uint32_t i, pvm_buf *out)
{
    pvm_insn in;
    item_insn(w, i, &in);
    const slot *branch = &w->s[i + w->s[i].nparts - 1]; /* only the last part branches */
    const pvm_format_info *fmt = pvm_insn_format(&in);
    uint8_t table[4 * 1024];
    uint8_t *entries = NULL;
    for (unsigned k = 0; k < fmt->nimms; k++) {
        if (fmt->imm[k] == PVM_IMM_REL32)
            in.imms[k] = (int64_t)new_offset(w, (int64_t)branch->at + in.imms[k]) -
                         (int64_t)w->s[i].new_at;
        if (fmt->imm[k] != PVM_IMM_TABLE)
            continue;
        uint32_t count = (uint32_t)in.imms[k];
        entries = (size_t)count * 4 <= sizeof table ? table : malloc((size_t)count * 4);
        if (!entries)
            return -1;
        for (uint32_t e = 0; e < count; e++) {
            int64_t target = (int64_t)branch->at + pvm_insn_table_entry(&in, e);
            pvm_wr32(entries + 4 * e,
                     (uint32_t)((int64_t)new_offset(w, target) - (int64_t)w->s[i].new_at));
        }
        in.table = entries;
    }
    size_t n = pvm_encode(out, &in);
    if (entries && entries != table)
        free(entries);
    return n > 0 ? 0 : -1;
}

/* Fuse function f of m (f may be a view of code not yet one of m's
 * functions) onto the end of code, with w's arrays; the counts into st.
 * Returns 0, -1 (out of memory) or PVM_FUSE_BAD_CODE. */
static int fuse_one(const pvm_module *m, const pvm_function *f, work *w, pvm_buf *code,
                    pvm_fuse_stats *st)
{
    int bad = decode_function(m, f, w);
    if (bad != 0)
        return bad;
    cover_blocks(w);
    uint32_t at = 0;
    for (uint32_t i = 0; i < w->n; i += w->s[i].nparts) {
        w->s[i].new_at = at;
        at += item_size(w, i);
        st->macros += w->s[i].nparts > 1;
        st->insns_after++;
    }
    st->insns_before += w->n;
    size_t start = code->len;
    /* Runs of single instructions that name no code offset are copied as
     * they were; the other items are encoded anew. */
    const uint8_t *old = m->code + f->offset;
    uint32_t run_from = 0, run_to = 0;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < w->n; i += w->s[i].nparts) {
        const slot *s = &w->s[i];
        if (s->nparts == 1 && !pvm_format_names_code_offsets(op_format(s->op))) {
            if (run_to != s->at) { /* not where the run ends: a new run */
                pvm_buf_append(code, old + run_from, run_to - run_from);
                run_from = s->at;
            }
            run_to = s->at + s->length;
            continue;
        }
        pvm_buf_append(code, old + run_from, run_to - run_from);
        run_from = run_to = 0;
        rc = encode_item(w, i, code);
    }
    pvm_buf_append(code, old + run_from, run_to - run_from);
    return rc == 0 && !code->failed && code->len - start == at ? 0 : -1;
}

static void free_work(work *w)
{
    free(w->index);
    free(w->s);
    free(w->keys);
    free(w->scratch);
    free(w->choice);
}

pvm_fuse_scratch *pvm_fuse_scratch_new(void)
{
    return calloc(1, sizeof(work));
}

void pvm_fuse_scratch_free(pvm_fuse_scratch *w)
{
    if (w)
        free_work(w);
    free(w);
}

int pvm_fuse_function(const pvm_module *m, const pvm_function *f, pvm_fuse_scratch *w,
                      pvm_buf *out, pvm_fuse_stats *stats)
{
    pvm_fuse_stats st = {0};
    size_t start = out->len;
    int rc = pvm_fuse_has_macros() ? fuse_one(m, f, w, out, &st)
                                   : (pvm_buf_append(out, m->code + f->offset, f->size),
                                      out->failed ? -1 : 0);
    st.bytes_before = f->size;
    st.bytes_after = out->len - start;
    if (stats)
        *stats = st;
    return rc;
}

/* ---- the module -------------------------------------------------------- */

/* Fuse every function of m into code: where each now starts in it and
 * its size into offsets[] and sizes[], the counts into st.  Returns 0, or
 * -1 (out of memory). */
static int fuse_functions(const pvm_module *m, pvm_buf *code, uint32_t *offsets,
                          uint32_t *sizes, pvm_fuse_stats *st)
{
    work w = {0};
    int rc = 0;
    for (uint32_t fi = 0; rc == 0 && fi < m->nfuncs; fi++) {
        offsets[fi] = (uint32_t)code->len;
        rc = fuse_one(m, &m->funcs[fi], &w, code, st);
        sizes[fi] = (uint32_t)code->len - offsets[fi];
    }
    free_work(&w);
    return rc;
}

/* Swap the fused code in (blob: len bytes and the padding, which m takes;
 * the functions at offsets[] with sizes[]) and verify it; if - a bug - it
 * does not verify, put the old code back.  Returns 0, or -1 with err (m
 * unchanged then). */
static int install_code(pvm_module *m, uint8_t *blob, size_t len, const uint32_t *offsets,
                        const uint32_t *sizes, pvm_error *err)
{
    uint8_t *old_code = m->code;
    size_t old_size = m->code_size, old_cap = m->code_cap;
    uint32_t *old_off = malloc((m->nfuncs + 1) * sizeof *old_off);
    uint32_t *old_sz = malloc((m->nfuncs + 1) * sizeof *old_sz);
    if (!old_off || !old_sz) {
        free(old_off), free(old_sz), free(blob);
        return pvm_errorf(err, "fusing the module: out of memory");
    }
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        old_off[fi] = m->funcs[fi].offset, old_sz[fi] = m->funcs[fi].size;
        m->funcs[fi].offset = offsets[fi], m->funcs[fi].size = sizes[fi];
    }
    m->code = blob;
    m->code_size = len;
    m->code_cap = len + PVM_CODE_PADDING;
    pvm_error verr;
    if (pvm_verify_module(m, &verr) != 0) {
        free(m->code);
        m->code = old_code, m->code_size = old_size, m->code_cap = old_cap;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++)
            m->funcs[fi].offset = old_off[fi], m->funcs[fi].size = old_sz[fi];
        free(old_off), free(old_sz);
        pvm_verify_module(m, NULL);
        return pvm_errorf(err, "fused code does not verify (a bug of the fusion pass): %s",
                          verr.msg);
    }
    free(old_code);
    free(old_off), free(old_sz);
    return 0;
}

int pvm_fuse_module(pvm_module *m, pvm_fuse_stats *stats, pvm_error *err)
{
    pvm_fuse_stats st = {0};
    if (stats)
        *stats = st;
    if (!pvm_fuse_has_macros())
        return 0;
    pvm_buf code = {0};
    uint32_t *offsets = malloc((m->nfuncs + 1) * sizeof *offsets);
    uint32_t *sizes = malloc((m->nfuncs + 1) * sizeof *sizes);
    int rc = offsets && sizes ? fuse_functions(m, &code, offsets, sizes, &st) : -1;
    uint8_t *blob = NULL;
    if (rc == 0 && !code.failed && (blob = malloc(code.len + PVM_CODE_PADDING))) {
        if (code.len)
            memcpy(blob, code.data, code.len);
        memset(blob + code.len, 0, PVM_CODE_PADDING);
    } else {
        rc = -1;
    }
    st.bytes_before = m->code_size;
    st.bytes_after = code.len;
    size_t len = code.len;
    pvm_buf_free(&code);
    if (rc == 0)
        rc = install_code(m, blob, len, offsets, sizes, err);
    else
        rc = pvm_errorf(err, "fusing the module: out of memory");
    free(offsets);
    free(sizes);
    if (rc == 0 && stats)
        *stats = st;
    return rc;
}
