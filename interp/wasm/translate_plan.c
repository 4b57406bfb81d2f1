/*
 * translate_plan.c - the register plan of a function, from a first pass
 * over its body (which leaves the body decoded in mod->body for the
 * translation): does it call (a leaf keeps its parameters where they
 * arrive), how hot is each constant (uses weighted by 8 per enclosing
 * loop), where are the loops and the calls; then the locals split into
 * webs (translate_webs.c: each a value of one local, with the span of
 * positions where it may be live and its weight) and homes for them.
 *
 * Locals and constants get registers hottest first.  All the webs of a
 * local take one register where they fit (the local's old range, with
 * holes where none of its values is live); the webs of the locals that
 * did not fit then take registers one by one, hottest first.  Webs whose
 * spans do not meet share a register, and so may two webs of one local
 * (never live together).  A web or local whose spans hold no call may
 * take a caller-saved register above the operand stack (nothing clobbers
 * it there), and so may one across few calls in a function without
 * loops, or across any in a light one (few calls on any path, none in a
 * loop: LIGHT_MOST_CALLS), saved around those calls; the others take
 * callee-saved ones; the webs left over live in frame slots, shared where
 * their spans do not meet.  A constant left without a register may still
 * have one through an outermost loop that uses it: a caller-saved
 * register free there if the loop makes no call, or a callee-saved one
 * saved anyway (loaded where the loop is entered).  The constants left
 * over after that are materialised where they are used.
 */
#include <stdlib.h>
#include <string.h>

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
     * lives across.  A local takes the second if it lives across one call
     * that always runs (weight 2) or two that may not (in an if's arms, 1
     * each), outside loops.  (Once only in functions without loops: with
     * it in the others too, QuickJS, Lua, SQLite, bzip2 and CoreMark ran
     * 0.03 to 0.27% fewer machine instructions, Wren 0.09% more.) */
    SAVED_AROUND_CALLS = 2,
    /* A web that would live in a frame slot takes a caller-saved register
     * saved around its calls if this many times the weight of its
     * references is more than that of its calls (a call weighs 2 where it
     * always runs, a reference 1: a push and a pop against a frame-slot
     * access).  On Lua, QuickJS, SQLite, Wren, bzip2 and CoreMark, 2 gave
     * fewer machine instructions than 1 (which the costs would say) on
     * every one, and 8 more on all but SQLite (bench/RESULTS.md,
     * 2026-12-07). */
    FRAME_OVER_SAVES = 2,
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

_Static_assert(CONST_SLOTS >= 2 * MAX_CONSTS && MAX_CONSTS < UINT16_MAX,
              "the constants' hash table has room for every entry, as uint16_t");

/* A call: its position, and the loops around it. */
typedef struct call_site {
    uint32_t pos, loops;
    bool in_arm; /* in an if's arm inside the innermost loop around it */
} call_site;

typedef struct loop_info {
    uint32_t start, end;
} loop_info;

/* What the plan knows of the webs (translate_webs.c), per web, and of the
 * calls. */
typedef struct local_facts {
    uint64_t *weight;         /* uses, weighted by loop depth */
    uint32_t *lo, *hi;        /* live span, instruction positions */
    uint32_t *local;          /* the local whose values it holds */
    /* per local l: its webs that want a home, group[group_start[l] ..
     * group_start[l + 1]] */
    uint32_t *group, *group_start;
    call_site *calls;         /* in increasing positions */
    uint64_t *call_sum;       /* running sums of their weights (call_weight) */
    uint32_t ncalls, end;     /* end: positions in the body */
    loop_info *loops;         /* the body's, in order of their starts */
    uint32_t nloops;
} local_facts;

/* A region of straight nesting: a block's, loop's or function's body, an
 * if's then-arm or else-arm.  A loop's region is its body. */
typedef struct region {
    uint32_t start, end;
    uint32_t loop;   /* the innermost loop holding it (its own, for a loop) */
    bool arm;        /* an if's arm */
} region;

#define NO_LOOP UINT32_MAX

/* The first pass's bookkeeping, freed at its end. */
typedef struct scan {
    region *regions;
    loop_info *loops;
    uint32_t nregions, nloops, cap_regions, cap_loops, cap_calls;
    uint32_t *open;       /* regions open, innermost last */
    uint32_t nopen;
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
        sc->loops[sc->nloops++] = (loop_info){pos, pos};
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

/* Where the first pass is. */
typedef struct cursor {
    uint32_t pos;       /* the instruction's position (the first is 1) */
    uint32_t loops;     /* the loops around it */
    uint32_t outermost; /* the outermost of them (index) */
    /* the previous instruction's constant: its entries for the body and
     * for the outermost loop around it */
    tr_creg *last_const[2];
} cursor;

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
        break;
    default:
        if (is_immediate(cur->last_const, in->op))
            for (unsigned k = 0; k < 2; k++) /* never in a register */
                if (cur->last_const[k])
                    cur->last_const[k]->weight -= w;
        if (!tr_is_call(in->op))
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
    sc.failed = !sc.open;
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
        tr_paths_step(&paths, in, tr_is_call(in->op));
    }
    t->ninsns = cur.pos;
    lf->end = cur.pos + 1;
    if (!sc.failed) {
        sc.regions[0].end = lf->end;
        const_ranges(t, lf, &sc);
        lf->loops = sc.loops;
        lf->nloops = sc.nloops;
        sc.loops = NULL;
        t->light = !t->leaf && (paths.out.most <= 1 ||
                                (paths.out.most <= LIGHT_MOST_CALLS && paths.out.fewest == 0));
        for (uint32_t k = 0; k < lf->ncalls; k++)
            t->light = t->light && lf->calls[k].loops == 0;
    }
    tr_paths_free(&paths);
    free(sc.open);
    free(sc.regions);
    free(sc.loops);
    if (unreadable)
        return tr_fail(t, "%s", err.msg);
    return sc.failed ? tr_fail(t, "out of memory") : 0;
}

/* The first call at or after position pos (ncalls: none). */
static uint32_t call_at_or_after(const local_facts *lf, uint32_t pos)
{
    uint32_t a = 0, b = lf->ncalls;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (lf->calls[m].pos < pos)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* The calls in [lo, hi], weighted by 8 per loop around them, and half as
 * much in an if's arm (0: none): a difference of the running sums. */
static uint64_t call_weight(const local_facts *lf, uint32_t lo, uint32_t hi)
{
    if (hi < lo || lf->ncalls == 0)
        return 0;
    return lf->call_sum[call_at_or_after(lf, hi + 1)] - lf->call_sum[call_at_or_after(lf, lo)];
}

/* lf->call_sum[k]: the weight of calls[0..k).  0, or -1 when out of
 * memory. */
static int sum_calls(local_facts *lf)
{
    lf->call_sum = malloc(((size_t)lf->ncalls + 1) * sizeof *lf->call_sum);
    if (!lf->call_sum)
        return -1;
    lf->call_sum[0] = 0;
    for (uint32_t k = 0; k < lf->ncalls; k++) {
        const call_site *c = &lf->calls[k];
        lf->call_sum[k + 1] =
            lf->call_sum[k] + (UINT64_C(1) << ((c->loops < 10 ? 3 * c->loops : 30) + !c->in_arm));
    }
    return 0;
}

/* A local or a constant wanting a register. */
typedef struct candidate {
    uint64_t weight;
    uint32_t index;
    bool is_const;
} candidate;

static int most_read_first(const void *a, const void *b)
{
    const tr_loop_slot *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

static int hottest_first(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->is_const != y->is_const)
        return x->is_const ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* A live range given to a register or a frame slot: positions lo..hi,
 * of the webs of local owner - 1 (0: a constant's). */
typedef struct taken {
    uint32_t lo, hi, owner;
} taken;

/* The live ranges given to one register or frame slot. */
typedef struct reg_ranges {
    taken *span;
    uint32_t n, cap;
} reg_ranges;

typedef struct plan {
    tr_func *t;
    const local_facts *lf;
    reg_ranges ranges[2][32];
    reg_ranges *slots; /* the frame slots' (of either class), nslots of them */
    uint32_t nslots, cap_slots;
    bool failed;
} plan;

/* Is the register or slot free in [lo, hi] for a web of local owner - 1
 * (0: a constant)?  Two webs of one local are never live at one position
 * (translate_webs.c): their spans may meet. */
static bool fits(const reg_ranges *rr, uint32_t lo, uint32_t hi, uint32_t owner)
{
    for (uint32_t k = 0; k < rr->n; k++)
        if (lo <= rr->span[k].hi && rr->span[k].lo <= hi &&
            (owner == 0 || rr->span[k].owner != owner))
            return false;
    return true;
}

static void take(plan *pl, reg_ranges *rr, uint32_t lo, uint32_t hi, uint32_t owner)
{
    size_t cap = rr->cap;
    if (BASE_GROW(rr->span, cap, (size_t)rr->n + 1, 4) != 0 || cap > UINT32_MAX) {
        pl->failed = true;
        return;
    }
    rr->cap = (uint32_t)cap;
    rr->span[rr->n++] = (taken){lo, hi, owner};
}

/* A frame slot for a web of local owner - 1 living in [lo, hi]: the first
 * free there, else a new one. */
static uint32_t frame_slot(plan *pl, uint32_t lo, uint32_t hi, uint32_t owner)
{
    uint32_t k = 0;
    while (k < pl->nslots && !fits(&pl->slots[k], lo, hi, owner))
        k++;
    if (k == pl->nslots) {
        size_t cap = pl->cap_slots;
        if (BASE_GROW(pl->slots, cap, (size_t)k + 1, 8) != 0 || cap > UINT32_MAX) {
            pl->failed = true;
            return 0;
        }
        pl->cap_slots = (uint32_t)cap;
        pl->slots[pl->nslots++] = (reg_ranges){0};
    }
    take(pl, &pl->slots[k], lo, hi, owner);
    return k;
}

/* Registers of class cls for homes, in the order they are tried: the
 * caller-saved ones above the operand stack and the parameters' registers
 * (so that moving parameters home is never a cycle), then the callee-saved
 * ones.  A leaf, whose parameters stay where they arrive, may also home
 * webs in the parameters' registers where the parameters are not live
 * (assign_once takes their spans first).  *ncaller: how many of them are
 * caller-saved. */
static uint32_t home_pool(const tr_func *t, bool frame, uint8_t *regs, uint32_t *ncaller)
{
    uint32_t n = 0;
    uint64_t first = (uint64_t)t->sbase + t->func->max_stack;
    if (first < t->type->nparams)
        first = t->type->nparams;
    for (uint64_t r = first; r < TR_NSLOTREGS; r++)
        regs[n++] = (uint8_t)r;
    for (uint32_t r = 0; t->leaf && r < t->sbase; r++)
        regs[n++] = (uint8_t)r;
    *ncaller = n;
    for (unsigned r = TR_SAVED_FIRST; r <= TR_SAVED_LAST; r++)
        if (!(frame && r == TR_FRAME_BASE))
            regs[n++] = (uint8_t)r;
    return n;
}

/* The webs to place together: those of one local (a candidate's index
 * for a local) or one web alone. */
typedef struct web_set {
    const uint32_t *webs;
    uint32_t n, owner; /* owner: the local + 1 */
    uint32_t lo, hi;   /* from the first span's start to the last's end */
} web_set;

static web_set web_set_of(const local_facts *lf, const uint32_t *webs, uint32_t n, uint32_t owner)
{
    web_set ws = {webs, n, owner, UINT32_MAX, 0};
    for (uint32_t k = 0; k < n; k++) {
        ws.lo = lf->lo[webs[k]] < ws.lo ? lf->lo[webs[k]] : ws.lo;
        ws.hi = lf->hi[webs[k]] > ws.hi ? lf->hi[webs[k]] : ws.hi;
    }
    return ws;
}

/* fits() for every web of ws. */
static bool fits_all(const plan *pl, const reg_ranges *rr, web_set ws)
{
    for (uint32_t k = 0; k < rr->n; k++) {
        const taken *s = &rr->span[k];
        if (s->owner == ws.owner || s->hi < ws.lo || ws.hi < s->lo)
            continue;
        for (uint32_t i = 0; i < ws.n; i++)
            if (pl->lf->lo[ws.webs[i]] <= s->hi && s->lo <= pl->lf->hi[ws.webs[i]])
                return false;
    }
    return true;
}

/* A register of class cls for ws (or for constant cr, ws empty), hottest
 * first: caller-saved registers keep what no call lies across, and a
 * local across calls of weight at most SAVED_AROUND_CALLS, saved around
 * them, unless a callee-saved register saved anyway is free; the others
 * take callee-saved registers, and when none is free (last_resort: the
 * web would go to a frame slot), a caller-saved one saved around its
 * calls if it is hot enough (FRAME_OVER_SAVES).
 * TR_NOREG if none is free. */
static unsigned choose(plan *pl, const tr_creg *cr, web_set ws, unsigned cls, const uint8_t *pool,
                       uint32_t npool, uint32_t ncaller, bool last_resort)
{
    tr_func *t = pl->t;
    const local_facts *lf = pl->lf;
    uint64_t calls = cr && !t->leaf ? call_weight(lf, cr->lo, cr->hi) : 0;
    for (uint32_t k = 0; !t->leaf && k < ws.n; k++)
        calls += call_weight(lf, lf->lo[ws.webs[k]], lf->hi[ws.webs[k]]);
    const reg_ranges *rr = pl->ranges[cls];
    uint32_t from = calls == 0 ? 0 : ncaller;
    if (cr && calls > 0 && t->light)
        return TR_NOREG; /* loaded where used: saving it would cost a frame */
    if (!cr && calls > 0 && (t->light || calls <= SAVED_AROUND_CALLS)) {
        for (uint32_t j = ncaller; j < npool; j++)
            if ((t->saved[cls] >> pool[j] & 1) && fits_all(pl, &rr[pool[j]], ws))
                return pool[j];
        from = 0;
    }
    for (uint32_t j = from; j < npool; j++) {
        bool free_here = cr ? fits(&rr[pool[j]], cr->lo, cr->hi, 0) : fits_all(pl, &rr[pool[j]], ws);
        if (free_here)
            return pool[j];
    }
    /* Left for a frame slot, a web whose references weigh enough against
     * the calls it lives across (FRAME_OVER_SAVES) takes a caller-saved
     * register, saved around them. */
    if (!last_resort || cr || calls == 0)
        return TR_NOREG;
    uint64_t refs = 0;
    for (uint32_t k = 0; k < ws.n; k++)
        refs += lf->weight[ws.webs[k]];
    for (uint32_t j = 0; FRAME_OVER_SAVES * refs > calls && j < ncaller; j++)
        if (fits_all(pl, &rr[pool[j]], ws))
            return pool[j];
    return TR_NOREG;
}

static void take_all(plan *pl, reg_ranges *rr, web_set ws)
{
    for (uint32_t k = 0; k < ws.n; k++)
        take(pl, rr, pl->lf->lo[ws.webs[k]], pl->lf->hi[ws.webs[k]], ws.owner);
}

/* Registers to candidates, hottest first: the webs of a local all in one
 * register where they fit (as one local was, in a range that has holes
 * now); then the webs of the locals that did not fit, hottest first, one
 * by one; those left over go to frame slots, shared where their spans do
 * not meet.  cands: constants and locals, room for every web after them.
 * Returns the number of frame slots. */
static uint32_t assign_once(plan *pl, candidate *cands, uint32_t n, bool frame)
{
    tr_func *t = pl->t;
    const local_facts *lf = pl->lf;
    uint8_t pool[2][32];
    uint32_t ncaller[2], npool[2] = {home_pool(t, frame, pool[TR_X], &ncaller[TR_X]),
                                     home_pool(t, false, pool[TR_F], &ncaller[TR_F])};
    for (unsigned cls = 0; cls < 2; cls++)
        for (unsigned r = 0; r < 32; r++)
            pl->ranges[cls][r].n = 0;
    for (uint32_t k = 0; k < pl->nslots; k++)
        free(pl->slots[k].span);
    pl->nslots = 0;
    t->saved[TR_X] = t->saved[TR_F] = 0;
    for (uint32_t i = 0; t->leaf && i < t->sbase; i++) /* the parameters, where they arrive */
        take(pl, &pl->ranges[tr_class(t->ltype[i])][i], lf->lo[i], lf->hi[i], lf->local[i] + 1);
    candidate *left = cands + n; /* the webs of locals that did not fit */
    uint32_t nleft = 0;
    for (uint32_t round = 0; round < 2; round++) {
        const candidate *list = round == 0 ? cands : left;
        uint32_t count = round == 0 ? n : nleft;
        for (uint32_t k = 0; k < count; k++) {
            const candidate *c = &list[k];
            tr_creg *cr = c->is_const ? &t->consts[c->index] : NULL;
            web_set ws = {0};
            if (!cr && round == 0)
                ws = web_set_of(lf, lf->group + lf->group_start[c->index],
                                lf->group_start[c->index + 1] - lf->group_start[c->index],
                                c->index + 1);
            else if (!cr)
                ws = web_set_of(lf, &c->index, 1, lf->local[c->index] + 1);
            if (!cr && ws.n == 0)
                continue;
            unsigned cls = cr ? cr->cls : tr_class(t->ltype[ws.webs[0]]);
            unsigned r = choose(pl, cr, ws, cls, pool[cls], npool[cls], ncaller[cls], round == 1);
            /* A hoisted constant is worth a push and a pop only if hot. */
            if (cr && r != TR_NOREG && r >= TR_SAVED_FIRST && cr->weight < MIN_SAVED_CONST_WEIGHT)
                r = TR_NOREG;
            if (r != TR_NOREG) {
                if (cr)
                    take(pl, &pl->ranges[cls][r], cr->lo, cr->hi, 0);
                take_all(pl, &pl->ranges[cls][r], ws);
                if (r >= TR_SAVED_FIRST)
                    t->saved[cls] |= UINT32_C(1) << r;
            }
            if (cr)
                cr->reg = (uint8_t)r;
            else if (r != TR_NOREG)
                for (uint32_t w = 0; w < ws.n; w++)
                    t->home[ws.webs[w]] = (tr_loc)r;
            else if (round == 0)
                for (uint32_t w = 0; w < ws.n; w++)
                    left[nleft++] = (candidate){lf->weight[ws.webs[w]], ws.webs[w], false};
            else
                t->home[c->index] = TR_FRAME(frame_slot(pl, lf->lo[c->index], lf->hi[c->index],
                                                        ws.owner));
        }
        if (round == 0)
            qsort(left, nleft, sizeof *left, hottest_first);
    }
    return t->nframe = pl->nslots;
}

/* A register of class cls for a value held through a loop at positions
 * [lo, hi] (pool: home_pool's): a caller-saved one if the loop makes no
 * call, else a callee-saved one saved anyway, free over the loop; taken
 * there.  TR_NOREG if none is. */
static unsigned take_loop_register(plan *pl, const uint8_t *pool, uint32_t npool,
                                   uint32_t ncaller, unsigned cls, bool calls, uint32_t lo,
                                   uint32_t hi)
{
    const tr_func *t = pl->t;
    for (uint32_t j = calls ? ncaller : 0; j < npool; j++) {
        unsigned r = pool[j];
        if ((j >= ncaller && !(t->saved[cls] >> r & 1)) || !fits(&pl->ranges[cls][r], lo, hi, 0))
            continue;
        take(pl, &pl->ranges[cls][r], lo, hi, 0);
        return r;
    }
    return TR_NOREG;
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
        bool calls = !t->leaf && call_weight(pl->lf, cr->lo, cr->hi) > 0;
        cr->reg = (uint8_t)take_loop_register(pl, pool[cls], npool[cls], ncaller[cls], cls, calls,
                                              cr->lo, cr->hi);
    }
}

/* Registers for the frame slots that loops without calls read
 * (tr_find_loop_slots), most read first: a caller-saved one above the
 * operand stack or a callee-saved one saved anyway, free through the
 * loop.  The loops: those without calls that no other such loop holds,
 * the outermost place where a register can stay put. */
static void assign_loop_slots(plan *pl, bool frame)
{
    tr_func *t = pl->t;
    const local_facts *lf = pl->lf;
    if (t->nframe == 0 || lf->nloops == 0)
        return;
    uint32_t *spans = malloc((size_t)lf->nloops * 2 * sizeof *spans), nspans = 0;
    if (!spans) {
        pl->failed = true;
        return;
    }
    for (uint32_t k = 0, covered = 0; k < lf->nloops; k++) {
        const loop_info *l = &lf->loops[k];
        if (l->start > covered && call_weight(lf, l->start, l->end) == 0) {
            spans[2 * nspans] = l->start;
            spans[2 * nspans++ + 1] = covered = l->end;
        }
    }
    int rc = tr_find_loop_slots(t, spans, nspans, &t->loop_slots, &t->nloop_slots);
    free(spans);
    if (rc != 0)
        pl->failed = true;
    if (rc != 0 || t->nloop_slots == 0)
        return;
    qsort(t->loop_slots, t->nloop_slots, sizeof *t->loop_slots, most_read_first);
    uint8_t pool[2][32];
    uint32_t ncaller[2], npool[2] = {home_pool(t, frame, pool[TR_X], &ncaller[TR_X]),
                                     home_pool(t, false, pool[TR_F], &ncaller[TR_F])};
    uint32_t held = 0;
    for (uint32_t k = 0; k < t->nloop_slots; k++) {
        tr_loop_slot s = t->loop_slots[k];
        s.reg = (uint8_t)take_loop_register(pl, pool[s.cls], npool[s.cls], ncaller[s.cls], s.cls,
                                            false, s.lo, s.hi);
        if (s.reg != TR_NOREG)
            t->loop_slots[held++] = s;
    }
    t->nloop_slots = held;
}

/* cands: n constants and locals, room for every web after them. */
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
    assign_loop_slots(&pl, frame);
    assign_loop_consts(&pl, cands, frame);
    for (unsigned cls = 0; cls < 2; cls++)
        for (unsigned r = 0; r < 32; r++)
            free(pl.ranges[cls][r].span);
    for (uint32_t k = 0; k < pl.nslots; k++)
        free(pl.slots[k].span);
    free(pl.slots);
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

static int by_register_then_start(const void *a, const void *b)
{
    const tr_saved_local *x = a, *y = b;
    if (x->cls != y->cls || x->reg != y->reg)
        return x->cls != y->cls ? x->cls - y->cls : x->reg - y->reg;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The caller-saved registers homing locals with calls in their live
 * ranges (tr_func.around), one entry per register and stretch of
 * positions where such ranges meet (webs of one local may share a
 * register and meet): the translation saves each around the calls in its
 * stretch, once. */
static int list_saved_around(tr_func *t, const local_facts *lf)
{
    for (uint32_t i = 0; i < t->nlocals; i++)
        if (!t->leaf && tr_caller_saved_home(t, i) && call_weight(lf, lf->lo[i], lf->hi[i]) > 0) {
            tr_saved_local *g = realloc(t->around, (t->naround + 1) * sizeof *g);
            if (!g)
                return tr_fail(t, "out of memory");
            t->around = g;
            t->around[t->naround++] = (tr_saved_local){lf->lo[i], lf->hi[i],
                                                       (uint8_t)tr_class(t->ltype[i]),
                                                       (uint8_t)t->home[i]};
        }
    if (t->naround == 0)
        return 0;
    qsort(t->around, t->naround, sizeof *t->around, by_register_then_start);
    uint32_t n = 1;
    for (uint32_t k = 1; k < t->naround; k++) {
        tr_saved_local *last = &t->around[n - 1], *s = &t->around[k];
        if (s->cls == last->cls && s->reg == last->reg && s->lo <= last->hi) {
            if (s->hi > last->hi)
                last->hi = s->hi;
        } else
            t->around[n++] = *s;
    }
    t->naround = n;
    return 0;
}

/* Does web i want a home?  The parameters' values below sbase stay where
 * they arrive, and a parameter never read is never moved. */
static bool wants_home(const tr_func *t, const local_facts *lf, uint32_t i)
{
    return i >= t->sbase && (t->live_in[i] || lf->weight[i] != 0);
}

/* The webs that want a home, grouped by local (lf->group,
 * lf->group_start), and a candidate per local that has any, weighing as
 * its webs together; the others' homes set.  Returns the candidates. */
static uint32_t group_webs(tr_func *t, local_facts *lf, uint32_t nvars, candidate *cands)
{
    for (uint32_t i = 0; i < t->nlocals; i++) {
        if (wants_home(t, lf, i))
            lf->group_start[lf->local[i] + 2]++;
        else
            t->home[i] = i < t->sbase ? (tr_loc)i : TR_SCRATCH1;
    }
    for (uint32_t l = 0; l < nvars; l++)
        lf->group_start[l + 2] += lf->group_start[l + 1];
    for (uint32_t i = 0; i < t->nlocals; i++)
        if (wants_home(t, lf, i))
            lf->group[lf->group_start[lf->local[i] + 1]++] = i;
    uint32_t n = 0;
    for (uint32_t l = 0; l < nvars; l++) {
        uint64_t weight = 0;
        for (uint32_t k = lf->group_start[l]; k < lf->group_start[l + 1]; k++)
            weight += lf->weight[lf->group[k]];
        if (lf->group_start[l + 1] > lf->group_start[l])
            cands[n++] = (candidate){weight, l, false};
    }
    return n;
}

/* The webs in place of the locals: t's arrays hold one entry per web. */
static int adopt_webs(tr_func *t, const tr_webs *webs)
{
    size_t n1 = (size_t)webs->n + 1;
    uint8_t *ltype = realloc(t->ltype, n1);
    if (ltype)
        t->ltype = ltype;
    tr_loc *home = realloc(t->home, n1 * sizeof *home);
    if (home)
        t->home = home;
    bool *live_in = realloc(t->live_in, n1 * sizeof *live_in);
    if (live_in)
        t->live_in = live_in;
    if (!ltype || !home || !live_in)
        return tr_fail(t, "out of memory");
    memcpy(t->ltype, webs->type, webs->n);
    memcpy(t->live_in, webs->live_in, webs->n * sizeof *live_in);
    t->nlocals = webs->n;
    return 0;
}

int tr_plan(tr_func *t)
{
    local_facts lf = {0};
    tr_webs webs = {0};
    candidate *cands = NULL;
    t->consts = malloc(MAX_CONSTS * sizeof *t->consts);
    int rc = t->consts ? first_pass(t, &lf) : tr_fail(t, "out of memory");
    if (rc == 0 && sum_calls(&lf) != 0)
        rc = tr_fail(t, "out of memory");
    if (rc == 0)
        rc = tr_webs_find(t, &webs);
    if (rc == 0)
        rc = adopt_webs(t, &webs);
    uint32_t nvars = t->type->nparams + t->func->nlocals; /* the locals */
    if (rc == 0) {
        cands = malloc(((size_t)nvars + t->nlocals + MAX_CONSTS + 1) * sizeof *cands);
        lf.group = malloc(((size_t)t->nlocals + 1) * sizeof *lf.group);
        lf.group_start = calloc((size_t)nvars + 2, sizeof *lf.group_start);
        if (!cands || !lf.group || !lf.group_start)
            rc = tr_fail(t, "out of memory");
    }
    if (rc == 0) {
        lf.weight = webs.weight;
        lf.lo = webs.lo;
        lf.hi = webs.hi;
        lf.local = webs.local;
        uint32_t np = t->type->nparams;
        t->sbase = (t->leaf || t->light) && np <= 8 ? np : 0;
        uint32_t n = group_webs(t, &lf, nvars, cands);
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
    tr_webs_free(&webs);
    free(lf.group);
    free(lf.group_start);
    free(lf.calls);
    free(lf.call_sum);
    free(lf.loops);
    free(cands);
    return rc;
}
