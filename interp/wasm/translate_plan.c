/*
 * translate_plan.c - the register plan of a function, from a first pass
 * over its body (which leaves the body decoded in mod->body for the
 * translation): does it call (a leaf keeps its parameters where they
 * arrive), how hot is each local and each constant (uses weighted by 8
 * per enclosing loop), which locals are written before anything reads them
 * (no zeroing), and the live range of each local.
 *
 * A live range is the span of instruction positions from a local's first
 * reference (the entry, for a parameter or a local read before written)
 * to its last, widened to the whole of every outermost loop that refers to
 * it (a value may travel around the loop).  Structured control flow keeps
 * every path from a write to a read inside that span.  Locals and
 * constants then get registers hottest first: locals whose ranges do not
 * meet share a register, a local whose range holds no call may take a
 * caller-saved register above the operand stack (nothing clobbers it
 * there), and so may one across few calls in a function without loops,
 * or across any in a light one (few calls on any path, none in a loop:
 * LIGHT_MOST_CALLS), saved around those calls; the others take
 * callee-saved ones; the
 * locals left over live in frame slots.  A constant left without a
 * register may still have one through an outermost loop that uses it: a
 * caller-saved register free there if the loop makes no call, or a
 * callee-saved one saved anyway (loaded where the loop is entered).  The
 * constants left over after that are materialised where they are used.
 */
#include <stdlib.h>

#include "base/grow.h"
#include "translate_internal.h"
#include "wasm_reader.h"

enum {
    /* Distinct constants considered for a register through the whole
     * body, and in all (with those of single loops). */
    MAX_BODY_CONSTS = 64,
    MAX_CONSTS = 256,
    /* The entries' hash table: at most half full. */
    CONST_SLOT_BITS = 9,
    CONST_SLOTS = 1 << CONST_SLOT_BITS,
    /* A hoisted constant costs its load per call, and in a callee-saved
     * register a push and a pop too: it must be used in a loop, or that
     * much more. */
    MIN_CONST_WEIGHT = 8,
    MIN_SAVED_CONST_WEIGHT = 24,
    /* A local in a callee-saved register costs a push and a pop per call
     * of its function, in a caller-saved one a push and a pop per call it
     * lives across.  Where the function has no loop (its calls are cheap,
     * the push and pop weigh), a local takes the second if it lives across
     * one call that always runs (weight 2) or two that may not (in an if's
     * arms, 1 each). */
    SAVED_AROUND_CALLS = 2,
    /* A function is light (pays for calls only where they are made) if no
     * call is in a loop and every path makes at most one call, or, where
     * some path makes none (the calls are off a fast path), at most this
     * many: on Lua, QuickJS, SQLite and Wren, 2 and 3 each gave fewer
     * machine instructions than 1, and no limit more on QuickJS and
     * bzip2 than 3 (bench/RESULTS.md, 2026-12-07). */
    LIGHT_MOST_CALLS = 3,
};

/* Does Wasm op `op` take the constant pushed just before it (entries
 * last[0..1], either may be absent) as an immediate operand? */
static bool is_immediate(tr_creg *const last[2], unsigned op)
{
    const tr_creg *c = last[0] ? last[0] : last[1];
    uint16_t vm_op;
    int32_t imm;
    return c && tr_imm_form(op, c->bits, false, &vm_op, &imm);
}

static bool is_call(unsigned op)
{
    switch (op) {
    case PVM_WASM_OP_CALL:
    case PVM_WASM_OP_CALL_INDIRECT:
    case PVM_WASM_OP_MEMORY_INIT:
    case PVM_WASM_OP_DATA_DROP:
    case PVM_WASM_OP_MEMORY_COPY:
    case PVM_WASM_OP_MEMORY_FILL:
    case PVM_WASM_OP_TABLE_INIT:
    case PVM_WASM_OP_ELEM_DROP:
    case PVM_WASM_OP_TABLE_COPY:
    case PVM_WASM_OP_TABLE_FILL: return true;
    default: return false;
    }
}

_Static_assert(CONST_SLOTS >= 2 * MAX_CONSTS && MAX_CONSTS < UINT16_MAX,
              "the constants' hash table has room for every entry, as uint16_t");

/* A call: its position, and the loops around it. */
typedef struct call_site {
    uint32_t pos, loops;
    bool in_arm; /* in an if's arm inside the innermost loop around it */
} call_site;

/* What the first pass learns about the locals beyond t's own fields. */
typedef struct local_facts {
    uint64_t *weight;         /* uses, weighted by loop depth */
    uint32_t *lo, *hi;        /* live range, instruction positions */
    call_site *calls;         /* in increasing positions */
    uint32_t ncalls, end;     /* end: positions in the body */
    uint32_t nloops;          /* loops in the body */
} local_facts;

/* A region of straight nesting: a block's, loop's or function's body, an
 * if's then-arm or else-arm.  A loop's region is its body. */
typedef struct region {
    uint32_t start, end;
    uint32_t loop;   /* the innermost loop holding it (its own, for a loop) */
    bool arm;        /* an if's arm */
} region;

typedef struct loop_info {
    uint32_t start, end, parent; /* parent: the enclosing loop, or NO_LOOP */
} loop_info;

/* A reference to a local inside a loop (the innermost). */
typedef struct loop_ref {
    uint32_t local, loop;
} loop_ref;

#define NO_LOOP UINT32_MAX

/* The first pass's bookkeeping, freed at its end. */
typedef struct scan {
    region *regions;
    loop_info *loops;
    loop_ref *refs;
    uint32_t nregions, nloops, nrefs, cap_regions, cap_loops, cap_refs, cap_calls;
    uint32_t *open;       /* regions open, innermost last */
    uint32_t nopen;
    uint32_t *first_region; /* per local: the region of its first reference */
    bool *first_is_set;
    /* The constants' entries by (class, bits, loop): 1 + index into
     * t->consts, 0 for a free slot (open addressing); entries for the
     * whole body so far. */
    uint16_t const_slot[CONST_SLOTS];
    uint32_t body_consts;
    bool failed;
} scan;

/* The constant entry for (cls, bits) used in the outermost loop at
 * position loop (0: outside loops), added if new and there is room. */
static tr_creg *const_entry(tr_func *t, scan *sc, unsigned cls, uint64_t bits, uint32_t loop)
{
    uint64_t key = (bits ^ ((uint64_t)loop << 1 | cls)) * UINT64_C(0x9E3779B97F4A7C15);
    uint32_t h = (uint32_t)(key >> (64 - CONST_SLOT_BITS)); /* the best-mixed bits */
    for (; sc->const_slot[h] != 0; h = (h + 1) & (CONST_SLOTS - 1)) {
        tr_creg *c = &t->consts[sc->const_slot[h] - 1];
        if (c->cls == cls && c->bits == bits && c->lo == loop)
            return c;
    }
    if (t->nconsts == MAX_CONSTS || (loop == 0 && sc->body_consts == MAX_BODY_CONSTS))
        return NULL;
    sc->body_consts += loop == 0;
    sc->const_slot[h] = (uint16_t)(t->nconsts + 1);
    t->consts[t->nconsts] =
        (tr_creg){.bits = bits, .lo = loop, .cls = (uint8_t)cls, .reg = TR_NOREG};
    return &t->consts[t->nconsts++];
}

/* items (n of them, room for *cap) with room for one more: the same or a
 * larger copy; on failure items itself, with *failed set. */
static void *grow(void *items, uint32_t *cap, uint32_t n, size_t size, bool *failed)
{
    size_t ncap = *cap;
    if (base_grow(&items, &ncap, (size_t)n + 1, size, 16) != 0 || ncap > UINT32_MAX)
        *failed = true;
    else
        *cap = (uint32_t)ncap;
    return items;
}

static void open_region(scan *sc, uint32_t pos, bool is_loop, bool arm)
{
    uint32_t outer = sc->nopen ? sc->regions[sc->open[sc->nopen - 1]].loop : NO_LOOP;
    if (is_loop) {
        sc->loops = grow(sc->loops, &sc->cap_loops, sc->nloops, sizeof *sc->loops, &sc->failed);
        if (sc->failed)
            return;
        sc->loops[sc->nloops++] = (loop_info){pos, pos, outer};
    }
    sc->regions = grow(sc->regions, &sc->cap_regions, sc->nregions, sizeof *sc->regions,
                       &sc->failed);
    if (sc->failed)
        return;
    sc->regions[sc->nregions] = (region){pos, pos, is_loop ? sc->nloops - 1 : outer, arm};
    sc->open[sc->nopen++] = sc->nregions++;
}

/* Close the innermost region at pos; true if it was a loop's own body. */
static bool close_region(scan *sc, uint32_t pos)
{
    region *r = &sc->regions[sc->open[--sc->nopen]];
    r->end = pos;
    if (r->loop == NO_LOOP || sc->loops[r->loop].start != r->start)
        return false;
    sc->loops[r->loop].end = pos;
    return true;
}

static void widen(local_facts *lf, uint32_t i, uint32_t lo, uint32_t hi)
{
    if (lo < lf->lo[i])
        lf->lo[i] = lo;
    if (hi > lf->hi[i])
        lf->hi[i] = hi;
}

/* Live ranges from the references.  A local whose first reference writes
 * it, and whose every reference lies after that one in the same region,
 * is dead wherever that region is entered: it needs no zeroing and lives
 * from the write to its last reference, and through every loop inside
 * the region that refers to it.  Any other local (parameters too) may be
 * live from the entry: it lives from there, and through every outermost
 * loop that refers to it. */
static void live_ranges(tr_func *t, local_facts *lf, const scan *sc)
{
    for (uint32_t i = 0; i < t->nlocals; i++) {
        bool dominated = i >= t->type->nparams && lf->lo[i] != UINT32_MAX && sc->first_is_set[i] &&
                         lf->hi[i] < sc->regions[sc->first_region[i]].end;
        if (i >= t->type->nparams)
            t->zero_init[i] = !dominated;
        if (!dominated)
            lf->lo[i] = 0;
        if (lf->hi[i] < lf->lo[i])
            lf->hi[i] = lf->lo[i];
    }
    for (uint32_t k = 0; k < sc->nrefs; k++) {
        uint32_t i = sc->refs[k].local, l = sc->refs[k].loop;
        /* The outermost loop holding the reference that begins after the
         * local's range does (lo 0: the outermost one). */
        uint32_t lo = lf->lo[i];
        while (sc->loops[l].parent != NO_LOOP && (lo == 0 || sc->loops[sc->loops[l].parent].start > lo))
            l = sc->loops[l].parent;
        if (lo == 0 || sc->loops[l].start > lo)
            widen(lf, i, sc->loops[l].start, sc->loops[l].end);
    }
}

/* A constant's entry for an outermost loop lives through that loop; its
 * entry for the whole body through the whole body. */
static void const_ranges(tr_func *t, const local_facts *lf, const scan *sc)
{
    for (uint32_t i = 0; i < t->nconsts; i++) {
        tr_creg *c = &t->consts[i];
        c->hi = lf->end;
        for (uint32_t l = 0; c->lo != 0 && l < sc->nloops; l++)
            if (sc->loops[l].start == c->lo)
                c->hi = sc->loops[l].end;
    }
}

/* Is the instruction being scanned in an if's arm, inside the innermost
 * loop around it? */
static bool in_arm(const scan *sc)
{
    for (uint32_t k = sc->nopen; k-- > 0;) {
        const region *r = &sc->regions[sc->open[k]];
        if (r->arm)
            return true;
        if (r->loop != NO_LOOP && sc->loops[r->loop].start == r->start)
            return false;
    }
    return false;
}

/* Weights of locals and constants, calls, zeroing, live ranges. */
/* Where the first pass is. */
typedef struct cursor {
    uint32_t pos;       /* the instruction's position (the first is 1) */
    uint32_t loops;     /* the loops around it */
    uint32_t outermost; /* the outermost of them (index) */
    /* the previous instruction's constant: its entries for the body and
     * for the outermost loop around it */
    tr_creg *last_const[2];
} cursor;

/* A reference to local in->idx at pos, weighing w: its weight, its first
 * and last references, the innermost loop holding it. */
static void note_local(local_facts *lf, scan *sc, const pvm_wasm_insn *in, uint32_t pos,
                       uint64_t w)
{
    uint32_t i = in->idx, here = sc->open[sc->nopen - 1];
    lf->weight[i] += w;
    if (lf->lo[i] == UINT32_MAX) {
        lf->lo[i] = pos;
        sc->first_region[i] = here;
        sc->first_is_set[i] = in->op != PVM_WASM_OP_LOCAL_GET;
    }
    lf->hi[i] = pos;
    uint32_t loop = sc->regions[here].loop;
    if (loop != NO_LOOP && !(sc->nrefs > 0 && sc->refs[sc->nrefs - 1].local == i &&
                             sc->refs[sc->nrefs - 1].loop == loop)) {
        sc->refs = grow(sc->refs, &sc->cap_refs, sc->nrefs, sizeof *sc->refs, &sc->failed);
        if (!sc->failed)
            sc->refs[sc->nrefs++] = (loop_ref){i, loop};
    }
}

/* Instruction `in`, at cur->pos: the regions and loops it opens or closes,
 * the weights of the constants and locals it uses, the call it makes. */
static void scan_insn(tr_func *t, local_facts *lf, scan *sc, cursor *cur, const pvm_wasm_insn *in)
{
    uint64_t w = UINT64_C(1) << (cur->loops < 10 ? 3 * cur->loops : 30);
    tr_creg *c[2] = {NULL, NULL};
    switch (in->op) {
    case PVM_WASM_OP_LOOP:
        if (cur->loops++ == 0)
            cur->outermost = sc->nloops;
        /* fall through */
    case PVM_WASM_OP_BLOCK:
    case PVM_WASM_OP_IF:
        open_region(sc, cur->pos, in->op == PVM_WASM_OP_LOOP, in->op == PVM_WASM_OP_IF);
        break;
    case PVM_WASM_OP_ELSE: /* the then-arm ends, the else-arm begins */
        close_region(sc, cur->pos);
        open_region(sc, cur->pos, false, true);
        break;
    case PVM_WASM_OP_END: /* the function's own end closes nothing here */
        if (sc->nopen > 1)
            cur->loops -= close_region(sc, cur->pos);
        break;
    case PVM_WASM_OP_I32_CONST:
    case PVM_WASM_OP_I64_CONST:
    case PVM_WASM_OP_F32_CONST:
    case PVM_WASM_OP_F64_CONST:
        c[0] = const_entry(t, sc, tr_class(pvm_wasm_ops[in->op].push), in->value, 0);
        if (cur->loops)
            c[1] = const_entry(t, sc, tr_class(pvm_wasm_ops[in->op].push), in->value,
                               sc->loops[cur->outermost].start);
        for (unsigned k = 0; k < 2; k++)
            if (c[k])
                c[k]->weight += w;
        break;
    case PVM_WASM_OP_LOCAL_SET:
    case PVM_WASM_OP_LOCAL_TEE:
        for (unsigned k = 0; k < 2; k++) /* written straight into the local's home */
            if (cur->last_const[k])
                cur->last_const[k]->weight -= w;
        /* fall through */
    case PVM_WASM_OP_LOCAL_GET:
        note_local(lf, sc, in, cur->pos, w);
        break;
    default:
        if (is_immediate(cur->last_const, in->op))
            for (unsigned k = 0; k < 2; k++) /* never in a register */
                if (cur->last_const[k])
                    cur->last_const[k]->weight -= w;
        if (!is_call(in->op))
            break;
        t->leaf = false;
        lf->calls = grow(lf->calls, &sc->cap_calls, lf->ncalls, sizeof *lf->calls, &sc->failed);
        if (!sc->failed)
            lf->calls[lf->ncalls++] = (call_site){cur->pos, cur->loops, in_arm(sc)};
    }
    cur->last_const[0] = c[0];
    cur->last_const[1] = c[1];
}

static int first_pass(tr_func *t, local_facts *lf)
{
    const pvm_wasm_func *f = t->func;
    pvm_error err;
    pvm_wasm_reader r = pvm_wasm_reader_at(t->wm->bytes, t->wm->size, f->body_pos,
                                           f->body_end, &err);
    scan sc = {0};
    sc.open = malloc(((size_t)f->max_depth + 2) * sizeof *sc.open);
    sc.first_region = malloc(((size_t)t->nlocals + 1) * sizeof *sc.first_region);
    sc.first_is_set = malloc(((size_t)t->nlocals + 1) * sizeof *sc.first_is_set);
    sc.failed = !sc.open || !sc.first_region || !sc.first_is_set;
    for (uint32_t i = 0; !sc.failed && i < t->nlocals; i++) {
        lf->lo[i] = UINT32_MAX; /* no reference yet */
        lf->hi[i] = 0;
    }
    cursor cur = {.pos = 0, .loops = 0, .outermost = NO_LOOP, .last_const = {NULL, NULL}};
    tr_paths paths = {0};
    if (!sc.failed && tr_paths_init(&paths, f->max_depth + 1) != 0)
        sc.failed = true;
    if (!sc.failed)
        open_region(&sc, 0, false, false); /* the body */
    t->leaf = true;
    tr_module *mod = t->mod;
    bool unreadable = false; /* cannot happen: the body was validated */
    while (r.pos < r.end && !sc.failed && !unreadable) {
        if (BASE_GROW(mod->body, mod->body_cap, (size_t)cur.pos + 1, 256) != 0) {
            sc.failed = true;
            break;
        }
        pvm_wasm_insn *in = &mod->body[cur.pos];
        if (pvm_wasm_insn_read(&r, in) != 0) {
            unreadable = true;
            break;
        }
        cur.pos++;
        scan_insn(t, lf, &sc, &cur, in);
        tr_paths_step(&paths, in, is_call(in->op));
    }
    t->ninsns = cur.pos;
    lf->end = cur.pos + 1;
    if (!sc.failed) {
        sc.regions[0].end = lf->end;
        live_ranges(t, lf, &sc);
        const_ranges(t, lf, &sc);
        lf->nloops = sc.nloops;
        t->light = !t->leaf && (paths.out.most <= 1 ||
                                (paths.out.most <= LIGHT_MOST_CALLS && paths.out.fewest == 0));
        for (uint32_t k = 0; k < lf->ncalls; k++)
            t->light = t->light && lf->calls[k].loops == 0;
    }
    tr_paths_free(&paths);
    free(sc.open);
    free(sc.first_region);
    free(sc.first_is_set);
    free(sc.regions);
    free(sc.loops);
    free(sc.refs);
    if (unreadable)
        return tr_fail(t, "%s", err.msg);
    return sc.failed ? tr_fail(t, "out of memory") : 0;
}

/* The calls in [lo, hi], weighted by 8 per loop around them, and half as
 * much in an if's arm (0: none). */
static uint64_t call_weight(const local_facts *lf, uint32_t lo, uint32_t hi)
{
    uint32_t a = 0, b = lf->ncalls;
    while (a < b) { /* the first call at or after lo */
        uint32_t m = a + (b - a) / 2;
        if (lf->calls[m].pos < lo)
            a = m + 1;
        else
            b = m;
    }
    uint64_t w = 0;
    for (; a < lf->ncalls && lf->calls[a].pos <= hi && w < UINT32_MAX; a++) {
        const call_site *c = &lf->calls[a];
        w += UINT64_C(1) << ((c->loops < 10 ? 3 * c->loops : 30) + !c->in_arm);
    }
    return w;
}

/* A local or a constant wanting a register. */
typedef struct candidate {
    uint64_t weight;
    uint32_t index;
    bool is_const;
} candidate;

static int hottest_first(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->is_const != y->is_const)
        return x->is_const ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The live ranges given to one register. */
typedef struct reg_ranges {
    uint32_t (*span)[2];
    uint32_t n, cap;
} reg_ranges;

typedef struct plan {
    tr_func *t;
    const local_facts *lf;
    reg_ranges ranges[2][32];
    bool failed;
} plan;

static bool fits(const reg_ranges *rr, uint32_t lo, uint32_t hi)
{
    for (uint32_t k = 0; k < rr->n; k++)
        if (lo <= rr->span[k][1] && rr->span[k][0] <= hi)
            return false;
    return true;
}

static void take(plan *pl, reg_ranges *rr, uint32_t lo, uint32_t hi)
{
    size_t cap = rr->cap;
    if (BASE_GROW(rr->span, cap, (size_t)rr->n + 1, 4) != 0 || cap > UINT32_MAX) {
        pl->failed = true;
        return;
    }
    rr->cap = (uint32_t)cap;
    rr->span[rr->n][0] = lo;
    rr->span[rr->n++][1] = hi;
}

/* Registers of class cls for homes, in the order they are tried: the
 * caller-saved ones above the operand stack and the parameters' registers
 * (so that moving parameters home is never a cycle), then the callee-saved
 * ones.  *ncaller: how many of them are caller-saved. */
static uint32_t home_pool(const tr_func *t, bool frame, uint8_t *regs, uint32_t *ncaller)
{
    uint32_t n = 0;
    uint64_t first = (uint64_t)t->sbase + t->func->max_stack;
    if (first < t->type->nparams)
        first = t->type->nparams;
    for (uint64_t r = first; r < TR_NSLOTREGS; r++)
        regs[n++] = (uint8_t)r;
    *ncaller = n;
    for (unsigned r = TR_SAVED_FIRST; r <= TR_SAVED_LAST; r++)
        if (!(frame && r == TR_FRAME_BASE))
            regs[n++] = (uint8_t)r;
    return n;
}

/* Registers to candidates, hottest first; locals left over go to frame
 * slots.  Returns the number of locals in the frame. */
static uint32_t assign_once(plan *pl, const candidate *cands, uint32_t n, bool frame)
{
    tr_func *t = pl->t;
    const local_facts *lf = pl->lf;
    uint8_t pool[2][32];
    uint32_t ncaller[2], npool[2] = {home_pool(t, frame, pool[TR_X], &ncaller[TR_X]),
                                     home_pool(t, false, pool[TR_F], &ncaller[TR_F])};
    for (unsigned cls = 0; cls < 2; cls++)
        for (unsigned r = 0; r < 32; r++)
            pl->ranges[cls][r].n = 0;
    t->nframe = 0;
    t->saved[TR_X] = t->saved[TR_F] = 0;
    for (uint32_t k = 0; k < n; k++) {
        const candidate *c = &cands[k];
        tr_creg *cr = c->is_const ? &t->consts[c->index] : NULL;
        unsigned cls = cr ? cr->cls : tr_class(t->ltype[c->index]);
        uint32_t lo = cr ? cr->lo : lf->lo[c->index], hi = cr ? cr->hi : lf->hi[c->index];
        /* Caller-saved registers keep what no call lies across, and in a
         * function without loops a local across calls of weight at most
         * SAVED_AROUND_CALLS, saved around them, unless a callee-saved
         * register saved anyway is free. */
        uint64_t calls = t->leaf ? 0 : call_weight(lf, lo, hi);
        uint32_t from = calls == 0 ? 0 : ncaller[cls];
        unsigned r = TR_NOREG;
        if (cr && calls > 0 && t->light)
            from = npool[cls]; /* loaded where used: saving it would cost a frame */
        if (!cr && calls > 0 &&
            (t->light || (calls <= SAVED_AROUND_CALLS && lf->nloops == 0))) {
            for (uint32_t j = ncaller[cls]; j < npool[cls] && r == TR_NOREG; j++)
                if ((t->saved[cls] >> pool[cls][j] & 1) &&
                    fits(&pl->ranges[cls][pool[cls][j]], lo, hi))
                    r = pool[cls][j];
            from = 0;
        }
        for (uint32_t j = from; j < npool[cls] && r == TR_NOREG; j++)
            if (fits(&pl->ranges[cls][pool[cls][j]], lo, hi))
                r = pool[cls][j];
        /* A hoisted constant is worth a push and a pop only if hot. */
        if (cr && r != TR_NOREG && r >= TR_SAVED_FIRST && cr->weight < MIN_SAVED_CONST_WEIGHT)
            r = TR_NOREG;
        if (r != TR_NOREG) {
            take(pl, &pl->ranges[cls][r], lo, hi);
            if (r >= TR_SAVED_FIRST)
                t->saved[cls] |= UINT32_C(1) << r;
        }
        if (cr)
            cr->reg = (uint8_t)r;
        else
            t->home[c->index] = r != TR_NOREG ? (tr_loc)r : TR_FRAME(t->nframe++);
    }
    return t->nframe;
}

/* Constants left without a register for the whole body may still have
 * one through an outermost loop that uses them (loaded where the loop is
 * entered): a caller-saved register if the loop makes no call, or a
 * callee-saved one that is saved anyway.  cands: room for every entry. */
static void assign_loop_consts(plan *pl, candidate *cands, bool frame)
{
    tr_func *t = pl->t;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->nconsts; i++) {
        const tr_creg *c = &t->consts[i];
        if (c->lo == 0 || c->weight < MIN_CONST_WEIGHT)
            continue;
        bool whole_has_reg = false;
        for (uint32_t k = 0; k < t->nconsts; k++)
            if (t->consts[k].lo == 0 && t->consts[k].cls == c->cls &&
                t->consts[k].bits == c->bits)
                whole_has_reg = t->consts[k].reg != TR_NOREG;
        if (!whole_has_reg)
            cands[n++] = (candidate){c->weight, i, true};
    }
    qsort(cands, n, sizeof *cands, hottest_first);
    uint8_t pool[2][32];
    uint32_t ncaller[2], npool[2] = {home_pool(t, frame, pool[TR_X], &ncaller[TR_X]),
                                     home_pool(t, false, pool[TR_F], &ncaller[TR_F])};
    for (uint32_t k = 0; k < n; k++) {
        tr_creg *cr = &t->consts[cands[k].index];
        unsigned cls = cr->cls;
        uint32_t from = t->leaf || call_weight(pl->lf, cr->lo, cr->hi) == 0 ? 0 : ncaller[cls];
        for (uint32_t j = from; j < npool[cls] && cr->reg == TR_NOREG; j++) {
            unsigned r = pool[cls][j];
            if ((j >= ncaller[cls] && !(t->saved[cls] >> r & 1)) ||
                !fits(&pl->ranges[cls][r], cr->lo, cr->hi))
                continue;
            take(pl, &pl->ranges[cls][r], cr->lo, cr->hi);
            cr->reg = (uint8_t)r;
        }
    }
}

static int assign(tr_func *t, const local_facts *lf, candidate *cands, uint32_t n)
{
    qsort(cands, n, sizeof *cands, hottest_first);
    plan pl = {.t = t, .lf = lf};
    uint64_t stack_top = (uint64_t)t->sbase + t->func->max_stack;
    bool frame = stack_top > TR_NSLOTREGS;
    if (assign_once(&pl, cands, n, frame) > 0 && !frame) { /* x29 is needed as frame base */
        frame = true;
        assign_once(&pl, cands, n, true);
    }
    assign_loop_consts(&pl, cands, frame);
    for (unsigned cls = 0; cls < 2; cls++)
        for (unsigned r = 0; r < 32; r++)
            free(pl.ranges[cls][r].span);
    if (pl.failed)
        return tr_fail(t, "out of memory");
    t->slot_frame0 = t->nframe;
    if (stack_top > TR_NSLOTREGS)
        t->nframe += (uint32_t)(stack_top - TR_NSLOTREGS);
    if (t->nframe > 0)
        t->saved[TR_X] |= UINT32_C(1) << TR_FRAME_BASE;
    if ((uint64_t)t->nframe * 8 > UINT32_MAX / 2)
        return tr_fail(t, "frame of %u slots is too large", t->nframe);
    return 0;
}

/* The locals in caller-saved registers with calls in their live ranges
 * (tr_func.around): the translation saves them around those calls. */
static int list_saved_around(tr_func *t, const local_facts *lf)
{
    for (uint32_t i = 0; i < t->nlocals; i++)
        if (!t->leaf && tr_caller_saved_home(t, i) && call_weight(lf, lf->lo[i], lf->hi[i]) > 0) {
            tr_saved_local *g = realloc(t->around, (t->naround + 1) * sizeof *g);
            if (!g)
                return tr_fail(t, "out of memory");
            t->around = g;
            t->around[t->naround++] = (tr_saved_local){i, lf->lo[i], lf->hi[i]};
        }
    return 0;
}

int tr_plan(tr_func *t)
{
    size_t n1 = (size_t)t->nlocals + 1;
    local_facts lf = {.weight = calloc(n1, sizeof *lf.weight), .lo = malloc(n1 * sizeof *lf.lo),
                      .hi = malloc(n1 * sizeof *lf.hi)};
    uint64_t *weight = lf.weight;
    candidate *cands = malloc(((size_t)t->nlocals + MAX_CONSTS + 1) * sizeof *cands);
    t->consts = malloc(MAX_CONSTS * sizeof *t->consts);
    int rc = -1;
    if (!weight || !lf.lo || !lf.hi || !cands || !t->consts)
        tr_fail(t, "out of memory");
    else if (first_pass(t, &lf) == 0) {
        uint32_t np = t->type->nparams, n = 0;
        t->sbase = (t->leaf || t->light) && np <= 8 ? np : 0;
        for (uint32_t i = 0; i < t->nlocals; i++) {
            if (i < t->sbase)
                t->home[i] = (tr_loc)i; /* stays where it arrives */
            else
                cands[n++] = (candidate){weight[i], i, false};
        }
        for (uint32_t i = 0; i < t->nconsts; i++)
            if (t->consts[i].lo == 0 && t->consts[i].weight >= MIN_CONST_WEIGHT)
                cands[n++] = (candidate){t->consts[i].weight, i, true};
        rc = assign(t, &lf, cands, n);
        /* A light function that saves nothing pushes a frame only around
         * its calls; arguments and results past the registers' are
         * relative to the frame. */
        t->has_frame = !t->leaf && !(t->light && !t->saved[TR_X] && !t->saved[TR_F] &&
                                     np <= TR_NARGREGS && t->type->nresults <= TR_NARGREGS);
    }
    if (rc == 0)
        rc = list_saved_around(t, &lf);
    free(weight);
    free(lf.lo);
    free(lf.hi);
    free(lf.calls);
    free(cands);
    return rc;
}
