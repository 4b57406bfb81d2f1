/*
 * fuse.c - the fusion pass (fuse.h): read a function's instructions,
 * cover its basic blocks with the build's macro ops (fusion/cover.h)
 * where a match may end, then write the new code: runs of instructions
 * that stay as they were are copied, macro ops encoded from their parts'
 * bytes, branch offsets and jump tables moved to the new offsets.  The
 * work past reading is in proportion to the macro ops and branches, not
 * to the code.
 */
#include "fuse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "fuse_rows.h"
#include "insn.h"

/* An instruction as read (it ends where the next one starts). */
typedef struct slot {
    uint32_t at;     /* old offset */
    uint16_t op;
    uint8_t leader;
    uint8_t may_end; /* a match may end here (the cover index's test, ahead) */
} slot;

/* A macro op of the new code: its first instruction, its parts, its
 * pattern, and the bytes that it and those before it save (a macro op
 * may be longer than its parts: then less than none). */
typedef struct macro_item {
    uint32_t first;
    uint32_t nparts;
    int32_t pattern;
    int64_t saved_through;
} macro_item;

/* The arrays a function is fused with (pvm_fuse_scratch in fuse.h). */
typedef struct pvm_fuse_scratch {
    const fuse_rows *rows;
    slot *s;
    fu_insn *keys;
    uint32_t n, cap;
    uint32_t *scratch;   /* the cover's: n + 1 */
    int32_t *choice;     /* the cover's: n */
    uint32_t *targets;   /* the code offsets its instructions name */
    size_t ntargets, targets_cap;
    uint32_t *ends;      /* the slots where a match may end, in order */
    size_t nends, ends_cap;
    uint32_t *branches;  /* the slots that name code offsets, in order */
    size_t nbranches, branches_cap;
    macro_item *macros;  /* in order */
    size_t nmacros, macros_cap;
    uint32_t *index;     /* per code byte: the slot starting there, if that slot's at
                            says so (entries of earlier functions are left in place) */
    size_t index_cap;
    pvm_buf encoded;     /* an item encoded by pvm_encode */
    const uint8_t *code; /* the function's code, size bytes */
    uint32_t size;
} work;

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

/* Append v to an array that read_function made room in: 0, or
 * PVM_FUSE_BAD_CODE if there is none (code that names more offsets than
 * it has bytes for). */
static int push_u32(uint32_t *a, size_t *n, size_t cap, uint32_t v)
{
    if (*n >= cap)
        return PVM_FUSE_BAD_CODE;
    a[(*n)++] = v;
    return 0;
}

/* The slot of the instruction starting at offset off, or -1. */
static long index_at(const work *w, int64_t off)
{
    if (off < 0 || off >= w->size)
        return -1;
    uint32_t i = w->index[off];
    return i < w->n && w->s[i].at == off ? (long)i : -1;
}

/* Room in the index for size bytes of code: 0, or -1 (out of memory). */
static int grow_index(work *w, size_t size)
{
    size_t old = w->index_cap;
    if (BASE_GROW(w->index, w->index_cap, size, 256) != 0)
        return -1;
    if (w->index_cap > old) /* initialised once; index_at checks what it finds */
        memset(w->index + old, 0, (w->index_cap - old) * sizeof *w->index);
    return 0;
}

/* ---- reading ----------------------------------------------------------- */

/* Note code offset at + rel as a branch target: 0, -1 (out of memory) or
 * PVM_FUSE_BAD_CODE (outside the function). */
static int add_target(work *w, uint32_t at, int64_t rel)
{
    int64_t to = (int64_t)at + rel;
    if (to < 0 || to >= w->size)
        return PVM_FUSE_BAD_CODE;
    return push_u32(w->targets, &w->ntargets, w->targets_cap, (uint32_t)to);
}

/* Note the targets of the instruction at `at` that names code offsets
 * besides one branch offset (a jump table): 0, -1 or PVM_FUSE_BAD_CODE;
 * its length, jump table included, into *length. */
static int add_decoded_targets(work *w, uint32_t at, uint32_t *length)
{
    pvm_insn in;
    if (pvm_decode(w->code, w->size, at, &in) != NULL)
        return PVM_FUSE_BAD_CODE;
    *length = in.length;
    const pvm_format_info *fmt = pvm_insn_format(&in);
    for (unsigned m = 0; m < fmt->nimms; m++) {
        int rc = 0;
        if (fmt->imm[m] == PVM_IMM_REL32)
            rc = add_target(w, at, in.imms[m]);
        for (uint32_t e = 0; rc == 0 && fmt->imm[m] == PVM_IMM_TABLE && e < (uint32_t)in.imms[m]; e++)
            rc = add_target(w, at, pvm_insn_table_entry(&in, e));
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The branch targets of slot i, at `at`, which names code offsets: a
 * branch's read from its offset, others' (a jump table's) decoded, with
 * the length into *length.  0, -1 (out of memory) or PVM_FUSE_BAD_CODE. */
static int read_targets(work *w, const op_facts *f, uint32_t i, uint32_t at, uint32_t *length)
{
    int rc = f->rel_at ? add_target(w, at, (int32_t)pvm_rd32(w->code + at + f->rel_at))
                       : add_decoded_targets(w, at, length);
    return rc == 0 ? push_u32(w->branches, &w->nbranches, w->branches_cap, i) : rc;
}

_Static_assert(PVM_MAX_REGS <= FU_MAX_REGS, "a key holds every register operand");

/* Read f's instructions into slots and keys, mark its block leaders and
 * note where a match may end: 0, -1 (out of memory), or PVM_FUSE_BAD_CODE
 * (an instruction that does not decode, a branch that lands on no
 * instruction).  The opcode gives an instruction's length and the
 * register bytes its key (the verifier checks them in the new code). */
static int read_function(const pvm_module *m, const pvm_function *f, work *w)
{
    const fuse_rows *rows = w->rows;
    const op_facts *facts = rows->facts;
    const uint64_t *before = rows->index.start ? rows->index.before : NULL;
    const uint8_t *code = w->code = m->code + f->offset;
    uint32_t size = w->size = f->size, n = 0;
    w->ntargets = w->nends = w->nbranches = 0;
    w->n = 0;
    /* Room for every instruction's end of a match and branch, and for a
     * target per four bytes (a branch offset or a jump table entry). */
    if (grow_index(w, size) != 0 || BASE_GROW(w->ends, w->ends_cap, size, 64) != 0 ||
        BASE_GROW(w->branches, w->branches_cap, size, 64) != 0 ||
        BASE_GROW(w->targets, w->targets_cap, size / 4 + 1, 64) != 0)
        return -1;
    uint8_t leads = 1;  /* the next instruction leads a block */
    uint16_t prev = 0;  /* the key op of the instruction before */
    /* The arrays in locals: the stores below cannot change them. */
    slot *slots = w->s;
    fu_insn *keys = w->keys;
    uint32_t *index = w->index, cap = w->cap;
    for (uint32_t at = 0; at < size;) {
        if (n == cap) {
            if (grow_work(w, n + 1) != 0)
                return -1;
            slots = w->s, keys = w->keys, cap = w->cap;
        }
        const uint8_t *p = code + at;
        uint32_t avail = size - at;
        if (p[0] == PVM_ESCAPE_BYTE && avail < 3)
            return PVM_FUSE_BAD_CODE;
        unsigned op = pvm_opcode_at(p);
        if (op >= PVM_OP_END || facts[op].length - 1u >= avail) /* length 0: no opcode */
            return PVM_FUSE_BAD_CODE;
        const op_facts *fa = &facts[op];
        fu_insn *k = &keys[n];
        uint16_t key_op = fa->wide; /* a macro op's part names the wide form */
        k->op = key_op;
        k->nregs = fa->nregs;
        unsigned r = 0;
        if (fa->nregs <= 4 && fa->hdr + 4u <= avail) {
            /* the four bytes after the opcode at once (what follows the
             * registers is never matched; a valid register is below 32,
             * so no byte carries into the next, and an invalid one fails
             * the verifier whatever it matched) */
            pvm_wr32(k->reg, pvm_rd32(p + fa->hdr) + fa->fadd);
            r = fa->nregs;
        }
        for (; r < fa->nregs; r++)
            k->reg[r] = (uint8_t)(p[fa->hdr + r] + (((fa->fregs >> r) & 1u) << 5));
        /* A match may end here as fu_cover_indexed tries: a pattern ends
         * in this op and may have the op before it (in a block or not:
         * the test only ever says yes too often). */
        uint8_t may_end = fa->ends_pattern &&
                          (n == 0 || !before || (before[key_op] >> (prev % 64) & 1));
        uint32_t length = fa->length;
        if (fa->offsets) {
            int rc = read_targets(w, fa, n, at, &length);
            if (rc != 0)
                return rc;
        }
        slots[n] = (slot){.at = at, .op = (uint16_t)op, .leader = leads, .may_end = may_end};
        if (may_end)
            w->ends[w->nends++] = n;
        leads = fa->ends_block;
        prev = key_op;
        index[at] = n++;
        at += length;
    }
    w->n = n;
    for (size_t t = 0; t < w->ntargets; t++) {
        long i = index_at(w, w->targets[t]);
        if (i < 0)
            return PVM_FUSE_BAD_CODE;
        w->s[i].leader = 1;
    }
    return 0;
}

/* ---- the cover ------------------------------------------------------------ */

/* The old offset just past slot i. */
static uint32_t end_of(const work *w, uint32_t i)
{
    return i + 1 < w->n ? w->s[i + 1].at : w->size;
}

/* Is there a leader in slots (from, to]? */
static bool leader_in(const work *w, uint32_t from, uint32_t to)
{
    for (uint32_t i = from + 1; i <= to; i++)
        if (w->s[i].leader)
            return true;
    return false;
}

/* The encoded size of the macro op of pattern `pattern` whose first part
 * is slot `first`. */
static uint32_t macro_size(const work *w, uint32_t first, int32_t pattern);

/* Cover the window [lo, hi] (no leader after lo) and append its macro
 * ops: 0, or -1 (out of memory). */
static int cover_window(work *w, uint32_t lo, uint32_t hi)
{
    const fuse_rows *rows = w->rows;
    fu_cover_indexed(w->keys + lo, hi + 1 - lo, rows->patterns, rows->npatterns,
                     rows->index.start ? &rows->index : NULL, w->scratch, w->choice);
    size_t from = w->nmacros;
    for (uint32_t i = hi + 1; i-- > lo;) { /* the cover's choices, last first */
        int32_t p = w->choice[i - lo];
        if (p < 0)
            continue;
        uint32_t n = rows->patterns[p].n;
        if (BASE_GROW(w->macros, w->macros_cap, w->nmacros + 1, 16) != 0)
            return -1;
        w->macros[w->nmacros++] = (macro_item){i + 1 - n, n, p, 0};
        i -= n - 1;
    }
    for (size_t a = from, b = w->nmacros; a + 1 < b; a++, b--) { /* in order */
        macro_item t = w->macros[a];
        w->macros[a] = w->macros[b - 1];
        w->macros[b - 1] = t;
    }
    return 0;
}

/* Cover the function: the cover of each block, computed only where a
 * match may end.  The ends are taken in clusters, consecutive ones less
 * than the longest pattern apart within a block; a cluster's window runs
 * from that many instructions before its first end (or its block's
 * leader) to its last.  Every match lies in one window, the instructions
 * outside stay single, and the costs inside differ from the block's by a
 * constant: the windows' covers are the block's.  0, or -1. */
static int cover_function(work *w)
{
    unsigned span = w->rows->max_parts;
    w->nmacros = 0;
    for (size_t c = 0; c < w->nends;) {
        uint32_t first = w->ends[c], last = first, lo = first;
        while (lo > 0 && first - lo + 1 < span && !w->s[lo].leader)
            lo--;
        for (c++; c < w->nends && w->ends[c] - last < span && !leader_in(w, last, w->ends[c]); c++)
            last = w->ends[c];
        if (cover_window(w, lo, last) != 0)
            return -1;
    }
    int64_t saved = 0;
    for (size_t i = 0; i < w->nmacros; i++) {
        macro_item *mi = &w->macros[i];
        saved += (int64_t)end_of(w, mi->first + mi->nparts - 1) - w->s[mi->first].at -
                 macro_size(w, mi->first, mi->pattern);
        mi->saved_through = saved;
    }
    return 0;
}

/* ---- writing ---------------------------------------------------------- */

/* The macro instruction of item (first, pattern) with its parts' operands
 * (a narrow form's immediate, a value, goes into the wide form's field as
 * it is). */
static void macro_insn(const work *w, uint32_t first, int32_t pattern, pvm_insn *out)
{
    unsigned op = w->rows->pattern_op[pattern];
    const pvm_macro_info *info = pvm_ops[op].macro;
    memset(out, 0, sizeof *out);
    out->op = (uint16_t)op;
    for (unsigned k = 0; k < info->nparts; k++) {
        pvm_insn part;
        pvm_decode(w->code, w->size, w->s[first + k].at, &part);
        const pvm_format_info *pf = pvm_insn_format(&part);
        for (unsigned r = 0; r < pf->nregs; r++)
            out->reg[info->part[k].reg[r]] = part.reg[r];
        for (unsigned m = 0; m < pf->nimms; m++)
            out->imms[info->part[k].imm[m]] = part.imms[m];
        if (part.table)
            out->table = part.table;
    }
}

/* The recipe that encodes macro item (first, pattern), or NULL (no
 * recipe, or a part in a narrow form). */
static const recipe *macro_recipe(const work *w, uint32_t first, int32_t pattern)
{
    const fuse_rows *rows = w->rows;
    if (!rows->recipes || !rows->recipes[pattern].usable)
        return NULL;
    const fu_pattern *p = &rows->patterns[pattern];
    for (unsigned k = 0; k < p->n; k++)
        if (w->s[first + k].op != p->op[k])
            return NULL;
    return &rows->recipes[pattern];
}

static uint32_t macro_size(const work *w, uint32_t first, int32_t pattern)
{
    const recipe *r = macro_recipe(w, first, pattern);
    if (r)
        return r->length;
    unsigned op = w->rows->pattern_op[pattern];
    const pvm_format_info *fmt = &pvm_formats[pvm_ops[op].format];
    uint32_t size = pvm_ops[op].length;
    for (unsigned k = 0; k < fmt->nimms; k++)
        if (fmt->imm[k] == PVM_IMM_TABLE) {
            pvm_insn in;
            macro_insn(w, first, pattern, &in);
            size += 4 * (uint32_t)in.imms[k];
        }
    return size;
}

/* The new offset of old offset `off`, a leader (so the start of an item
 * of the new code): less what the macro ops before it save. */
static uint32_t new_offset(const work *w, int64_t off)
{
    long i = index_at(w, off);
    if (i < 0)
        return 0; /* not a leader: read_function refused the code */
    size_t lo = 0, hi = w->nmacros; /* lo: the macro ops starting before slot i */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->macros[mid].first < (uint32_t)i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)(off - (lo ? w->macros[lo - 1].saved_through : 0));
}

/* Move the branch offset at dst + rel_at of the item whose last
 * instruction is slot `last` and which starts at new offset new_at (its
 * old value is there). */
static void move_branch(const work *w, uint32_t last, uint32_t new_at, uint8_t *dst,
                        unsigned rel_at)
{
    int64_t target = (int64_t)w->s[last].at + (int32_t)pvm_rd32(dst + rel_at);
    pvm_wr32(dst + rel_at, (uint32_t)((int64_t)new_offset(w, target) - (int64_t)new_at));
}

/* Encode insn, the item of the new code at new offset new_at whose last
 * instruction is slot `last`, at dst: `size` bytes with its branch
 * offsets and jump table moved.  0, or -1 (out of memory, or an encoding
 * of another size: a bug). */
static int encode_moved(work *w, pvm_insn *in, uint32_t last, uint32_t new_at, uint8_t *dst,
                        uint32_t size)
{
    const pvm_format_info *fmt = pvm_insn_format(in);
    int64_t from = w->s[last].at; /* only the last part branches */
    uint8_t table[4 * 1024];
    uint8_t *entries = NULL;
    for (unsigned k = 0; k < fmt->nimms; k++) {
        if (fmt->imm[k] == PVM_IMM_REL32)
            in->imms[k] = (int64_t)new_offset(w, from + in->imms[k]) - (int64_t)new_at;
        if (fmt->imm[k] != PVM_IMM_TABLE)
            continue;
        uint32_t count = (uint32_t)in->imms[k];
        entries = (size_t)count * 4 <= sizeof table ? table : malloc((size_t)count * 4);
        if (!entries)
            return -1;
        for (uint32_t e = 0; e < count; e++)
            pvm_wr32(entries + 4 * e,
                     (uint32_t)((int64_t)new_offset(w, from + pvm_insn_table_entry(in, e)) -
                                (int64_t)new_at));
        in->table = entries;
    }
    w->encoded.len = 0;
    size_t n = pvm_encode(&w->encoded, in);
    if (entries && entries != table)
        free(entries);
    if (n != size)
        return -1;
    memcpy(dst, w->encoded.data, n);
    return 0;
}

/* Write macro item mi at dst, new offset new_at: 0, or -1. */
static int write_macro(work *w, const macro_item *mi, uint32_t new_at, uint8_t *dst,
                       uint32_t size)
{
    uint32_t last = mi->first + mi->nparts - 1;
    const recipe *r = macro_recipe(w, mi->first, mi->pattern);
    if (!r) {
        pvm_insn in;
        macro_insn(w, mi->first, mi->pattern, &in);
        return encode_moved(w, &in, last, new_at, dst, size);
    }
    const uint8_t *part[FU_MAX_PARTS];
    for (unsigned k = 0; k < mi->nparts; k++)
        part[k] = w->code + w->s[mi->first + k].at;
    for (unsigned j = 0; j < r->length; j++)
        dst[j] = r->part[j] == NO_PART ? r->bytes[j] : part[r->part[j]][r->from[j]];
    if (r->rel_at)
        move_branch(w, last, new_at, dst, r->rel_at);
    return r->length == size ? 0 : -1;
}

/* Write single instruction i, which names code offsets, at dst (new
 * offset new_at): its bytes with the offsets moved.  0, or -1. */
static int write_branch(work *w, uint32_t i, uint32_t new_at, uint8_t *dst)
{
    const slot *s = &w->s[i];
    unsigned rel_at = w->rows->facts[s->op].rel_at;
    if (rel_at) {
        memcpy(dst, w->code + s->at, end_of(w, i) - s->at);
        move_branch(w, i, new_at, dst, rel_at);
        return 0;
    }
    pvm_insn in;
    pvm_decode(w->code, w->size, s->at, &in);
    return encode_moved(w, &in, i, new_at, dst, end_of(w, i) - s->at);
}

/* Fuse function f of m (f may be a view of code not yet one of m's
 * functions) onto the end of code, with w's arrays; the counts into st.
 * Returns 0, -1 (out of memory) or PVM_FUSE_BAD_CODE. */
static int fuse_one(const pvm_module *m, const pvm_function *f, work *w, pvm_buf *code,
                    pvm_fuse_stats *st)
{
    w->rows = pvm_fuse_rows();
    int bad = read_function(m, f, w);
    if (bad != 0)
        return bad;
    if (cover_function(w) != 0)
        return -1;
    int64_t saved = w->nmacros ? w->macros[w->nmacros - 1].saved_through : 0;
    uint32_t parts = 0;
    for (size_t i = 0; i < w->nmacros; i++)
        parts += w->macros[i].nparts;
    st->insns_before += w->n;
    st->insns_after += w->n - parts + w->nmacros;
    st->macros += w->nmacros;
    if ((int64_t)f->size - saved > UINT32_MAX)
        return -1;
    uint8_t *out = pvm_buf_reserve(code, (size_t)((int64_t)f->size - saved));
    if (!out)
        return -1;
    /* The items encoded anew - macro ops, and branches not in one - in
     * order; the code between them is copied as it was. */
    uint32_t copied = 0; /* old offset up to which the code is written */
    int64_t gone = 0;    /* bytes the macro ops written so far saved */
    size_t mi = 0, bi = 0;
    for (;;) {
        const macro_item *mac = mi < w->nmacros ? &w->macros[mi] : NULL;
        uint32_t b = bi < w->nbranches ? w->branches[bi] : UINT32_MAX;
        if (mac && b >= mac->first && b < mac->first + mac->nparts) {
            bi++; /* a branch that is a macro op's last part: the macro op's */
            continue;
        }
        if (!mac && b == UINT32_MAX)
            break;
        if (mac && b < mac->first)
            mac = NULL; /* the branch comes first */
        const slot *s = &w->s[mac ? mac->first : b];
        memcpy(out + (copied - gone), w->code + copied, s->at - copied);
        uint32_t new_at = (uint32_t)(s->at - gone);
        int rc;
        if (mac) {
            uint32_t end = end_of(w, mac->first + mac->nparts - 1);
            rc = write_macro(w, mac, new_at, out + new_at,
                             (uint32_t)(end - s->at - (mac->saved_through - gone)));
            copied = end;
            gone = mac->saved_through;
            mi++;
        } else {
            rc = write_branch(w, b, new_at, out + new_at);
            copied = end_of(w, b);
            bi++;
        }
        if (rc != 0)
            return -1;
    }
    memcpy(out + (copied - gone), w->code + copied, f->size - copied);
    return 0;
}

static void free_work(work *w)
{
    pvm_buf_free(&w->encoded);
    free(w->targets);
    free(w->ends);
    free(w->branches);
    free(w->macros);
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

int pvm_fuse_has_macros(void)
{
    return pvm_fuse_rows()->npatterns > 0;
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
