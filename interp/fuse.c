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

/* ---- the build's opcodes and macro ops, as the pass reads them ----------- */

/* What the pass reads of an opcode, in one row. */
typedef struct op_facts {
    uint16_t wide;      /* the form a macro op's part names (pvm_op_wide) */
    uint16_t fregs;     /* bit r: register operand r is an f register */
    uint8_t length;     /* encoded bytes, a jump table's entries excluded; 0: no opcode */
    uint8_t hdr;        /* opcode bytes */
    uint8_t nregs;
    uint8_t offsets;    /* names code offsets (pvm_format_names_code_offsets) */
    uint8_t rel_at;     /* the byte of its branch offset when that is all it names, else 0 */
    uint8_t ends_block; /* a branch or a terminator: the next instruction leads a block */
    uint8_t ends_pattern; /* some macro op's last part is its wide form */
    uint32_t fadd;      /* added to its first four register bytes as little-endian
                           word: 32 in each byte of an f register (see read_slot) */
} op_facts;

_Static_assert(PVM_MAX_REGS <= 16, "op_facts.fregs has a bit per register operand");

/* How to encode a macro op from its parts' bytes: bytes[j] as it is where
 * part[j] is NO_PART (the opcode), else byte from[j] of part part[j]; a
 * branch offset (rel_at, as in op_facts) is then moved with its target.
 * Only for a macro op without a jump table whose parts' immediates have
 * the macro's sizes; used where each part is the opcode the macro op
 * names (a narrow form goes through pvm_encode). */
#define RECIPE_MAX 48
#define NO_PART 0xff
typedef struct recipe {
    uint8_t usable, length, rel_at;
    uint8_t bytes[RECIPE_MAX], part[RECIPE_MAX], from[RECIPE_MAX];
} recipe;

static op_facts facts[PVM_OP_END];
static fu_pattern patterns[PVM_OP_END];
static uint16_t pattern_op[PVM_OP_END]; /* the macro opcode of patterns[i] */
static recipe *recipes;                 /* per pattern; NULL (out of memory): none */
static size_t npatterns;
static unsigned max_parts; /* of any pattern */
static fu_index pattern_index; /* by last part; none (start NULL: out of memory): try all */
static pthread_once_t patterns_once = PTHREAD_ONCE_INIT;

static const pvm_format_info *op_format(unsigned op)
{
    return &pvm_formats[pvm_ops[op].format];
}

/* The byte of an instruction's branch offset when that is the only code
 * offset its format names, else 0. */
static uint8_t rel_offset(unsigned op)
{
    const pvm_format_info *fmt = op_format(op);
    unsigned at = 0, rels = 0;
    for (unsigned k = 0; k < fmt->nimms; k++) {
        if (fmt->imm[k] == PVM_IMM_TABLE)
            return 0;
        if (fmt->imm[k] == PVM_IMM_REL32) {
            rels++;
            at = (PVM_OP_IS_EXT(op) ? 3 : 1) + fmt->pack_bytes + fmt->imm_at[k];
        }
    }
    return rels == 1 ? (uint8_t)at : 0;
}

static void make_facts(void)
{
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = &pvm_ops[op];
        if (!info->name)
            continue;
        const pvm_format_info *fmt = op_format(op);
        op_facts *f = &facts[op];
        *f = (op_facts){.wide = (uint16_t)pvm_op_wide(op), .length = info->length,
                        .hdr = PVM_OP_IS_EXT(op) ? 3 : 1, .nregs = fmt->nregs,
                        .offsets = pvm_format_names_code_offsets(fmt),
                        .rel_at = rel_offset(op),
                        .ends_block = (info->flags & (PVM_FLAG_BRANCH | PVM_FLAG_TERM)) != 0};
        for (unsigned r = 0; r < fmt->nregs; r++) {
            f->fregs |= (uint16_t)((fmt->reg[r] == PVM_REG_F) << r);
            if (r < 4 && fmt->reg[r] == PVM_REG_F)
                f->fadd |= 32u << (8 * r);
        }
    }
}

/* The pattern of macro op `op`, from its parts as its row numbers them. */
static int pattern_of_row(unsigned op, fu_pattern *out)
{
    const pvm_macro_info *info = pvm_ops[op].macro;
    fu_insn parts[FU_MAX_PARTS];
    if (info->nparts > FU_MAX_PARTS)
        return -1;
    for (unsigned k = 0; k < info->nparts; k++) {
        const pvm_format_info *pf = op_format(info->part[k].op);
        if (pf->nregs > FU_MAX_REGS)
            return -1;
        parts[k].op = info->part[k].op;
        parts[k].nregs = pf->nregs;
        memcpy(parts[k].reg, info->part[k].reg, pf->nregs);
    }
    return fu_pattern_of_parts(parts, info->nparts, out);
}

/* Copy n bytes of part k from byte src to the recipe's byte dst. */
static int recipe_take(recipe *r, unsigned dst, unsigned k, unsigned src, unsigned n)
{
    if (dst + n > r->length)
        return -1;
    for (unsigned b = 0; b < n; b++) {
        r->part[dst + b] = (uint8_t)k;
        r->from[dst + b] = (uint8_t)(src + b);
    }
    return 0;
}

/* The recipe of macro op `op` (usable stays 0 where there is none). */
static void make_recipe(unsigned op, recipe *r)
{
    const pvm_macro_info *info = pvm_ops[op].macro;
    const pvm_format_info *fmt = op_format(op);
    unsigned hdr = facts[op].hdr;
    if ((facts[op].offsets && !facts[op].rel_at) || pvm_ops[op].length > RECIPE_MAX)
        return;
    r->length = pvm_ops[op].length;
    r->rel_at = facts[op].rel_at;
    memset(r->part, NO_PART, sizeof r->part);
    if (hdr == 3) {
        r->bytes[0] = PVM_ESCAPE_BYTE;
        pvm_wr16(r->bytes + 1, (uint16_t)(op - PVM_OP_EXT_FIRST));
    } else {
        r->bytes[0] = (uint8_t)op;
    }
    for (unsigned k = 0; k < info->nparts; k++) {
        const pvm_macro_part *part = &info->part[k];
        const pvm_format_info *pf = op_format(part->op);
        unsigned phdr = facts[part->op].hdr;
        for (unsigned i = 0; i < pf->nregs; i++)
            if (recipe_take(r, hdr + part->reg[i], k, phdr + i, 1) != 0)
                return;
        for (unsigned i = 0; i < pf->nimms; i++) {
            unsigned mi = part->imm[i], size = pvm_imm_size(pf->imm[i]);
            if (mi >= fmt->nimms || size != pvm_imm_size(fmt->imm[mi]) ||
                recipe_take(r, hdr + fmt->pack_bytes + fmt->imm_at[mi], k,
                            phdr + pf->pack_bytes + pf->imm_at[i], size) != 0)
                return;
        }
    }
    for (unsigned j = hdr; j < r->length; j++)
        if (r->part[j] == NO_PART)
            return; /* a byte no part gives */
    r->usable = 1;
}

static void make_patterns(void)
{
    make_facts();
    for (unsigned op = 0; op < PVM_OP_END; op++)
        if (pvm_ops[op].name && pvm_ops[op].macro && pattern_of_row(op, &patterns[npatterns]) == 0)
            pattern_op[npatterns++] = (uint16_t)op;
    (void)fu_index_build(&pattern_index, patterns, npatterns); /* all zero if it fails */
    for (size_t i = 0; i < npatterns; i++)
        max_parts = patterns[i].n > max_parts ? patterns[i].n : max_parts;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        unsigned wide = facts[op].wide;
        facts[op].ends_pattern = !pattern_index.start ||
            (wide < pattern_index.nops && pattern_index.start[wide + 1] > pattern_index.start[wide]);
    }
    recipes = npatterns ? calloc(npatterns, sizeof *recipes) : NULL;
    for (size_t i = 0; recipes && i < npatterns; i++)
        make_recipe(pattern_op[i], &recipes[i]);
}

int pvm_fuse_has_macros(void)
{
    pthread_once(&patterns_once, make_patterns);
    return npatterns > 0;
}

/* ---- one function ------------------------------------------------------ */

/* An instruction, its cover, and where it goes.  Only its opcode, length
 * and registers are read at first: an instruction is decoded whole where
 * it is needed (one naming code offsets; a macro op's part without a
 * recipe). */
typedef struct slot {
    uint32_t at;     /* old offset */
    uint32_t length; /* encoded bytes, jump table included */
    uint32_t new_at; /* new offset of the item it starts (if it starts one) */
    int32_t macro;   /* pattern index of the macro op that ends here, or -1 */
    uint16_t op;
    uint8_t leader;
    uint8_t may_end; /* a match may end here (the cover index's test, ahead) */
    uint8_t nparts;  /* the item it starts: its instructions (1 for a single); 0: none */
} slot;

/* The arrays a function is fused with (pvm_fuse_scratch in fuse.h). */
typedef struct pvm_fuse_scratch {
    slot *s;
    uint32_t n, cap;
    fu_insn *keys;
    uint32_t *scratch;
    int32_t *choice;
    uint32_t *targets;   /* the code offsets its instructions name */
    size_t ntargets, targets_cap;
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

/* Decode slot i's instruction whole (it decoded once already). */
static void decode_slot(const work *w, uint32_t i, pvm_insn *out)
{
    pvm_decode(w->code, w->size, w->s[i].at, out);
}

/* Note code offset at + rel as a branch target: 0, -1 (out of memory) or
 * PVM_FUSE_BAD_CODE (outside the function). */
static int add_target(work *w, uint32_t at, int64_t rel)
{
    int64_t to = (int64_t)at + rel;
    if (to < 0 || to >= w->size)
        return PVM_FUSE_BAD_CODE;
    if (BASE_GROW(w->targets, w->targets_cap, w->ntargets + 1, 64) != 0)
        return -1;
    w->targets[w->ntargets++] = (uint32_t)to;
    return 0;
}

_Static_assert(PVM_MAX_REGS <= FU_MAX_REGS, "a key holds every register operand");

/* Read instruction `at` of the code into slot s and its key k: 0, -1 (out
 * of memory) or PVM_FUSE_BAD_CODE.  An instruction naming code offsets is
 * decoded whole (its length may include a jump table) and its targets
 * noted; for the others the opcode gives the length, and the register
 * bytes the key (the verifier checks them in the new code). */
static int read_slot(work *w, uint32_t at, slot *s, fu_insn *k)
{
    const uint8_t *p = w->code + at;
    uint32_t avail = w->size - at;
    if (p[0] == PVM_ESCAPE_BYTE && avail < 3)
        return PVM_FUSE_BAD_CODE;
    unsigned op = pvm_opcode_at(p);
    const op_facts *f = op < PVM_OP_END ? &facts[op] : NULL;
    if (!f || f->length == 0 || avail < f->length)
        return PVM_FUSE_BAD_CODE;
    *s = (slot){.at = at, .length = f->length, .macro = -1, .op = (uint16_t)op, .nparts = 1};
    if (f->rel_at) {
        int rc = add_target(w, at, (int32_t)pvm_rd32(p + f->rel_at));
        if (rc != 0)
            return rc;
    } else if (f->offsets) {
        pvm_insn in;
        if (pvm_decode(w->code, w->size, at, &in) != NULL)
            return PVM_FUSE_BAD_CODE;
        s->length = in.length;
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
    }
    k->op = f->wide; /* a macro op's part names the wide form */
    k->nregs = f->nregs;
    unsigned r = 0;
    if (f->nregs <= 4 && f->hdr + 4u <= avail) {
        /* the four bytes after the opcode at once (what follows the
         * registers is never matched; a valid register is below 32, so no
         * byte carries into the next, and an invalid one fails the
         * verifier whatever it matched) */
        uint32_t regs = pvm_rd32(p + f->hdr) + f->fadd;
        memcpy(k->reg, &regs, 4);
        r = f->nregs;
    }
    for (; r < f->nregs; r++)
        k->reg[r] = (uint8_t)(p[f->hdr + r] + (((f->fregs >> r) & 1u) << 5));
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
    w->ntargets = 0;
    if (grow_index(w, f->size) != 0)
        return -1;
    bool leads = true; /* the next instruction leads a block */
    for (uint32_t at = 0; at < f->size;) {
        if (grow_work(w, w->n + 1) != 0)
            return -1;
        slot *s = &w->s[w->n];
        int rc = read_slot(w, at, s, &w->keys[w->n]);
        if (rc != 0)
            return rc;
        s->leader = leads;
        leads = facts[s->op].ends_block;
        /* as fu_cover_indexed tries: the patterns ending in this op, of
         * which one may have the op before it (in a block or not: the
         * test only ever says yes too often) */
        s->may_end = facts[s->op].ends_pattern &&
                     (w->n == 0 || !pattern_index.start ||
                      (pattern_index.before[w->keys[w->n].op] >> (w->keys[w->n - 1].op % 64) & 1));
        w->index[at] = w->n++;
        at += s->length;
    }
    for (size_t t = 0; t < w->ntargets; t++) {
        long i = index_at(w, w->targets[t]);
        if (i < 0)
            return PVM_FUSE_BAD_CODE;
        w->s[i].leader = 1;
    }
    return 0;
}

/* Cover every block; mark the items of the new code. */
static void cover_blocks(work *w)
{
    for (uint32_t b = 0; b < w->n;) {
        uint32_t e = b, first = UINT32_MAX, last = 0;
        do {
            if (w->s[e].may_end) {
                first = first < e ? first : e;
                last = e;
            }
            e++;
        } while (e < w->n && !w->s[e].leader);
        if (first == UINT32_MAX) { /* no match ends in the block */
            b = e;
            continue;
        }
        /* Every match lies in [lo, last]: the cover of that window is the
         * block's (the instructions around it stay single, and the costs
         * in it only move by a constant). */
        uint32_t lo = first - b + 1 >= max_parts ? first + 1 - max_parts : b;
        fu_cover_indexed(w->keys + lo, last + 1 - lo, patterns, npatterns,
                         pattern_index.start ? &pattern_index : NULL, w->scratch, w->choice);
        for (uint32_t i = last + 1; i-- > lo;) {
            int32_t p = w->choice[i - lo];
            if (p < 0)
                continue;
            uint32_t n = patterns[p].n;
            w->s[i].macro = p;
            w->s[i + 1 - n].nparts = (uint8_t)n;
            for (uint32_t k = 1; k < n; k++)
                w->s[i + 1 - n + k].nparts = 0;
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

/* The recipe that encodes macro item i, or NULL (no recipe, or a part in
 * a narrow form). */
static const recipe *item_recipe(const work *w, uint32_t i)
{
    const slot *s = &w->s[i];
    int32_t p = w->s[i + s->nparts - 1].macro;
    if (!recipes || !recipes[p].usable)
        return NULL;
    for (unsigned k = 0; k < s->nparts; k++)
        if (s[k].op != patterns[p].op[k])
            return NULL;
    return &recipes[p];
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

/* Move the branch offset at dst + rel_at of item i (its old value, from
 * the item's last instruction, is there) with its target. */
static void move_branch(const work *w, uint32_t i, uint8_t *dst, unsigned rel_at)
{
    const slot *branch = &w->s[i + w->s[i].nparts - 1]; /* only the last part branches */
    int64_t target = (int64_t)branch->at + (int32_t)pvm_rd32(dst + rel_at);
    pvm_wr32(dst + rel_at, (uint32_t)((int64_t)new_offset(w, target) - (int64_t)w->s[i].new_at));
}

/* Encode macro item i with its recipe r at dst. */
static void encode_by_recipe(const work *w, uint32_t i, const recipe *r, uint8_t *dst)
{
    const uint8_t *part[FU_MAX_PARTS];
    for (unsigned k = 0; k < w->s[i].nparts; k++)
        part[k] = w->code + w->s[i + k].at;
    for (unsigned j = 0; j < r->length; j++)
        dst[j] = r->part[j] == NO_PART ? r->bytes[j] : part[r->part[j]][r->from[j]];
    if (r->rel_at)
        move_branch(w, i, dst, r->rel_at);
}

/* Encode item i, `size` bytes, at its new offset dst; branch offsets
 * move with their targets (they are relative to the branching
 * instruction, which in a macro op is the macro instruction).  0, or -1
 * (out of memory, or an encoding that is not `size` bytes: a bug). */
static int encode_item(work *w, uint32_t i, uint8_t *dst, uint32_t size)
{
    const slot *s = &w->s[i];
    const recipe *r = s->nparts > 1 ? item_recipe(w, i) : NULL;
    if (r) {
        encode_by_recipe(w, i, r, dst);
        return r->length == size ? 0 : -1;
    }
    if (s->nparts == 1 && facts[s->op].rel_at) { /* a branch: its bytes, the offset moved */
        memcpy(dst, w->code + s->at, s->length);
        move_branch(w, i, dst, facts[s->op].rel_at);
        return s->length == size ? 0 : -1;
    }
    pvm_insn in;
    item_insn(w, i, &in);
    const slot *branch = &w->s[i + s->nparts - 1]; /* only the last part branches */
    const pvm_format_info *fmt = pvm_insn_format(&in);
    uint8_t table[4 * 1024];
    uint8_t *entries = NULL;
    for (unsigned k = 0; k < fmt->nimms; k++) {
        if (fmt->imm[k] == PVM_IMM_REL32)
            in.imms[k] = (int64_t)new_offset(w, (int64_t)branch->at + in.imms[k]) -
                         (int64_t)s->new_at;
        if (fmt->imm[k] != PVM_IMM_TABLE)
            continue;
        uint32_t count = (uint32_t)in.imms[k];
        entries = (size_t)count * 4 <= sizeof table ? table : malloc((size_t)count * 4);
        if (!entries)
            return -1;
        for (uint32_t e = 0; e < count; e++) {
            int64_t target = (int64_t)branch->at + pvm_insn_table_entry(&in, e);
            pvm_wr32(entries + 4 * e,
                     (uint32_t)((int64_t)new_offset(w, target) - (int64_t)s->new_at));
        }
        in.table = entries;
    }
    w->encoded.len = 0;
    size_t n = pvm_encode(&w->encoded, &in);
    if (entries && entries != table)
        free(entries);
    if (n != size)
        return -1;
    memcpy(dst, w->encoded.data, n);
    return 0;
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
    uint32_t at = 0, items = 0, macros = 0;
    for (uint32_t i = 0; i < w->n; i += w->s[i].nparts) {
        w->s[i].new_at = at;
        at += item_size(w, i);
        items++;
        macros += w->s[i].nparts > 1;
    }
    st->insns_before += w->n;
    st->insns_after += items;
    st->macros += macros;
    uint8_t *out = pvm_buf_reserve(code, at);
    if (!out)
        return -1;
    /* Runs of single instructions that name no code offset are copied as
     * they were; the other items are encoded anew. */
    const uint8_t *old = m->code + f->offset;
    uint32_t run_from = 0, run_to = 0, run_at = 0;
    for (uint32_t i = 0; i < w->n; i += w->s[i].nparts) {
        const slot *s = &w->s[i];
        if (s->nparts == 1 && !facts[s->op].offsets) {
            if (run_to != s->at) { /* not where the run ends: a new run */
                memcpy(out + run_at, old + run_from, run_to - run_from);
                run_from = s->at;
                run_at = s->new_at;
            }
            run_to = s->at + s->length;
            continue;
        }
        memcpy(out + run_at, old + run_from, run_to - run_from);
        run_from = run_to = run_at = 0;
        uint32_t next = i + s->nparts < w->n ? w->s[i + s->nparts].new_at : at;
        if (encode_item(w, i, out + s->new_at, next - s->new_at) != 0)
            return -1;
    }
    memcpy(out + run_at, old + run_from, run_to - run_from);
    return 0;
}

static void free_work(work *w)
{
    pvm_buf_free(&w->encoded);
    free(w->targets);
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
