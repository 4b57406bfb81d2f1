/*
 * translate_webs.c - a function's locals split into webs, for the register
 * plan (translate_plan.c).  Every write of a local starts a value; the
 * values of a local that meet where control flow joins (a block's or an
 * if's end, a loop's head) while the local is live there are one web.
 * clang gives one Wasm local to many unrelated values (an interpreter's
 * loop reuses one for a temporary of every case), and a web lives only
 * where its value does: the plan homes webs, not locals, and the
 * references to locals in the decoded body are renamed to their webs, so
 * that the translation reads webs as it read locals.
 *
 * Two passes over the body that the plan's first pass decoded: liveness
 * backward (the locals live after each block and if and at each loop's
 * head, repeated until the loops' sets stop growing), then the webs
 * forward, a union-find: a branch or a fall-through unites, for each local
 * live at its target, the web it carries with the target's.  Each web's
 * span of positions runs from its first write (or the entry) to the last
 * reference, branch or join that carries it: a web is live nowhere outside
 * its span, so webs whose spans do not meet may share a home.  Code that
 * the translation leaves out as unreachable (translate_control.c: after a
 * br, br_table, return or unreachable, to the end of the block, unless a
 * branch reaches that end) is left out the same way.  A function whose
 * sets would be too large (MAX_CELLS) keeps one web per local, live from
 * the entry through the whole body.
 */
#include <stdlib.h>
#include <string.h>

#include "translate_internal.h"
#include "wasm_reader.h"

enum { MAX_CELLS = 1 << 22 }; /* words of live sets, or entries of the join tables */

#define NO_WEB UINT32_MAX

typedef uint64_t word;

/* An open block, loop or if during the forward pass. */
typedef struct frame {
    uint32_t c;        /* its construct */
    bool end_reached;  /* a branch goes to its end (not a loop's) */
    bool has_else;
} frame;

typedef struct work {
    tr_func *t;
    pvm_wasm_insn *body;
    uint32_t n, nl, words; /* instructions, locals, words of a set of locals */
    uint32_t *events, nevents; /* the instructions that the passes follow
                                  (control flow, locals), in order */
    uint32_t ncons;        /* constructs: the body (0), then each block, loop and if */
    uint32_t *cons;        /* per instruction that opens, elses or ends one: which */
    uint16_t *kind;        /* per construct: its opening op (the body: BLOCK) */
    word *label;           /* per construct: live after its end, a loop's at its head */
    word *live, *entry;    /* the set being followed; live at entry */
    word *else_live;       /* per open if (by depth): live where its else arm starts */
    uint32_t *stack, sp;   /* open constructs, innermost last */
    uint32_t *targets, cap_targets; /* a br_table's labels */
    /* the forward pass */
    uint32_t *cur;         /* per local: the web it holds */
    uint32_t *join, *snap; /* per open construct (by depth), per local: the
                              web arriving at its end or head; an if's cur */
    frame *frames;
    uint32_t *parent, *local, *lo, *hi, nwebs; /* per web */
    uint64_t *weight;
} work;

static bool op_opens(uint16_t op)
{
    return op == PVM_WASM_OP_BLOCK || op == PVM_WASM_OP_LOOP || op == PVM_WASM_OP_IF;
}

static bool op_is_local(uint16_t op)
{
    return op == PVM_WASM_OP_LOCAL_GET || op == PVM_WASM_OP_LOCAL_SET ||
           op == PVM_WASM_OP_LOCAL_TEE;
}

/* Does the instruction matter to liveness or webs? */
static bool op_is_event(uint16_t op)
{
    switch (op) {
    case PVM_WASM_OP_BLOCK:
    case PVM_WASM_OP_LOOP:
    case PVM_WASM_OP_IF:
    case PVM_WASM_OP_ELSE:
    case PVM_WASM_OP_END:
    case PVM_WASM_OP_BR:
    case PVM_WASM_OP_BR_IF:
    case PVM_WASM_OP_BR_TABLE:
    case PVM_WASM_OP_RETURN:
    case PVM_WASM_OP_UNREACHABLE:
    case PVM_WASM_OP_LOCAL_GET:
    case PVM_WASM_OP_LOCAL_SET:
    case PVM_WASM_OP_LOCAL_TEE: return true;
    default: return false;
    }
}

/* ---- sets of locals ---------------------------------------------------------- */

static word *set_at(word *sets, const work *w, uint32_t k)
{
    return sets + (size_t)k * w->words;
}

static void set_copy(const work *w, word *dst, const word *src)
{
    memcpy(dst, src, w->words * sizeof *dst);
}

static void set_or(const work *w, word *dst, const word *src)
{
    for (uint32_t k = 0; k < w->words; k++)
        dst[k] |= src[k];
}

static bool has(const word *set, uint32_t l)
{
    return set[l / 64] >> (l % 64) & 1;
}

/* ---- the structure ----------------------------------------------------------- */

/* List the events, number the constructs and count the writes.  Returns
 * the writes. */
static uint32_t number_constructs(work *w)
{
    uint32_t writes = 0, sp = 0;
    w->ncons = 1;
    w->kind[0] = PVM_WASM_OP_BLOCK;
    w->stack[sp++] = 0;
    w->nevents = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint16_t op = w->body[i].op;
        if (!op_is_event(op))
            continue;
        w->events[w->nevents++] = i;
        if (op_opens(op)) {
            w->kind[w->ncons] = op;
            w->cons[i] = w->stack[sp++] = w->ncons++;
        } else if (op == PVM_WASM_OP_ELSE || op == PVM_WASM_OP_END) {
            w->cons[i] = sp ? w->stack[sp - 1] : 0;
            if (op == PVM_WASM_OP_END && sp > 0)
                sp--;
        } else
            writes += op == PVM_WASM_OP_LOCAL_SET || op == PVM_WASM_OP_LOCAL_TEE;
    }
    return writes;
}

/* The labels of br_table `in` (its default last) into w->targets; their
 * number, or 0 when out of memory. */
static uint32_t table_targets(work *w, const pvm_wasm_insn *in)
{
    uint32_t count = in->count + 1;
    if (count > w->cap_targets) {
        uint32_t *g = realloc(w->targets, (size_t)count * sizeof *g);
        if (!g)
            return 0;
        w->targets = g;
        w->cap_targets = count;
    }
    pvm_error err;
    const pvm_wasm_module *wm = w->t->wm;
    pvm_wasm_reader r = pvm_wasm_reader_at(wm->bytes, wm->size, in->vec, in->end, &err);
    for (uint32_t k = 0; k < in->count; k++)
        if (pvm_wasm_read_u32(&r, &w->targets[k]) != 0)
            w->targets[k] = 0; /* cannot happen: the body was validated */
    w->targets[in->count] = in->idx;
    return count;
}

/* The construct `depth` labels out from the innermost open one. */
static uint32_t target(const work *w, uint32_t depth)
{
    return depth < w->sp ? w->stack[w->sp - 1 - depth] : 0;
}

/* ---- liveness, backward ------------------------------------------------------ */

/* One pass from the end to the entry; *grew if a loop's set grew.  0, or -1
 * when out of memory. */
static int liveness_pass(work *w, bool *grew)
{
    word *live = w->live;
    memset(live, 0, w->words * sizeof *live);
    w->sp = 0;
    for (uint32_t e = w->nevents; e-- > 0;) {
        uint32_t i = w->events[e];
        const pvm_wasm_insn *in = &w->body[i];
        uint32_t c = w->cons[i];
        switch (in->op) {
        case PVM_WASM_OP_END:
            w->stack[w->sp++] = c;
            if (w->kind[c] != PVM_WASM_OP_LOOP)
                set_copy(w, set_at(w->label, w, c), live);
            if (w->kind[c] == PVM_WASM_OP_IF) /* without an else: false goes to the end */
                set_copy(w, set_at(w->else_live, w, w->sp - 1), live);
            break;
        case PVM_WASM_OP_ELSE:
            set_copy(w, set_at(w->else_live, w, w->sp - 1), live);
            set_copy(w, live, set_at(w->label, w, c));
            break;
        case PVM_WASM_OP_IF:
            set_or(w, live, set_at(w->else_live, w, w->sp - 1));
            w->sp--;
            break;
        case PVM_WASM_OP_BLOCK: w->sp--; break;
        case PVM_WASM_OP_LOOP: {
            word *head = set_at(w->label, w, c);
            if (memcmp(head, live, w->words * sizeof *live) != 0) {
                set_or(w, head, live);
                *grew = true;
            }
            w->sp--;
            break;
        }
        case PVM_WASM_OP_BR: set_copy(w, live, set_at(w->label, w, target(w, in->idx))); break;
        case PVM_WASM_OP_BR_IF: set_or(w, live, set_at(w->label, w, target(w, in->idx))); break;
        case PVM_WASM_OP_BR_TABLE: {
            uint32_t n = table_targets(w, in);
            if (n == 0)
                return -1;
            memset(live, 0, w->words * sizeof *live);
            for (uint32_t k = 0; k < n; k++)
                set_or(w, live, set_at(w->label, w, target(w, w->targets[k])));
            break;
        }
        case PVM_WASM_OP_RETURN:
        case PVM_WASM_OP_UNREACHABLE: memset(live, 0, w->words * sizeof *live); break;
        case PVM_WASM_OP_LOCAL_GET: live[in->idx / 64] |= (word)1 << (in->idx % 64); break;
        case PVM_WASM_OP_LOCAL_SET:
        case PVM_WASM_OP_LOCAL_TEE: live[in->idx / 64] &= ~((word)1 << (in->idx % 64)); break;
        default: break;
        }
    }
    set_copy(w, w->entry, live);
    return 0;
}

/* ---- webs, forward ------------------------------------------------------------ */

static uint32_t find(work *w, uint32_t a)
{
    while (w->parent[a] != a) {
        w->parent[a] = w->parent[w->parent[a]];
        a = w->parent[a];
    }
    return a;
}

static void touch(work *w, uint32_t web, uint32_t pos)
{
    uint32_t r = find(w, web);
    if (pos < w->lo[r])
        w->lo[r] = pos;
    if (pos > w->hi[r])
        w->hi[r] = pos;
}

static void unite(work *w, uint32_t a, uint32_t b)
{
    a = find(w, a);
    b = find(w, b);
    if (a == b)
        return;
    if (b < a) {
        uint32_t x = a;
        a = b;
        b = x;
    }
    w->parent[b] = a;
    w->lo[a] = w->lo[a] < w->lo[b] ? w->lo[a] : w->lo[b];
    w->hi[a] = w->hi[a] > w->hi[b] ? w->hi[a] : w->hi[b];
    w->weight[a] += w->weight[b];
}

static uint32_t *join_at(work *w, uint32_t depth)
{
    return w->join + (size_t)depth * w->nl;
}

/* Control goes from pos to the label `depth` labels out, carrying the
 * webs of `webs` (cur, or an if's snapshot for its false edge): each local
 * live there unites its web with the label's.  A web carried back to a
 * loop's head stays live to pos; one carried forward is live where the
 * label is, before a later reference or back edge that its span reaches
 * anyway. */
static void arrive(work *w, uint32_t depth, const uint32_t *webs, uint32_t pos)
{
    if (depth >= w->sp - 1)
        return; /* the body's label: a return */
    uint32_t at = w->sp - 1 - depth;
    frame *f = &w->frames[at];
    const word *lv = set_at(w->label, w, f->c);
    uint32_t *j = join_at(w, at);
    bool loop = w->kind[f->c] == PVM_WASM_OP_LOOP;
    f->end_reached |= !loop;
    for (uint32_t k = 0; k < w->words; k++)
        for (word bits = lv[k]; bits; bits &= bits - 1) {
            uint32_t l = k * 64 + (uint32_t)__builtin_ctzll(bits);
            if (loop)
                touch(w, webs[l], pos);
            if (j[l] == NO_WEB)
                j[l] = webs[l];
            else if (j[l] != webs[l])
                unite(w, j[l], webs[l]);
        }
}

static void open_construct(work *w, uint32_t c)
{
    uint32_t at = w->sp++;
    w->frames[at] = (frame){.c = c};
    uint32_t *j = join_at(w, at);
    const word *lv = set_at(w->label, w, c);
    for (uint32_t k = 0; k < w->words; k++)
        for (word bits = lv[k]; bits; bits &= bits - 1) {
            uint32_t l = k * 64 + (uint32_t)__builtin_ctzll(bits);
            j[l] = w->kind[c] == PVM_WASM_OP_LOOP ? w->cur[l] : NO_WEB; /* what enters a head */
        }
    if (w->kind[c] == PVM_WASM_OP_IF)
        memcpy(w->snap + (size_t)at * w->nl, w->cur, w->nl * sizeof *w->cur);
}

/* The end of the innermost construct at pos; dead: the fall-through is
 * unreachable.  Returns whether the code after it is. */
static bool close_construct(work *w, uint32_t pos, bool dead)
{
    uint32_t at = w->sp - 1;
    frame *f = &w->frames[at];
    if (w->kind[f->c] == PVM_WASM_OP_LOOP) {
        w->sp--;
        return dead;
    }
    if (!dead)
        arrive(w, 0, w->cur, pos);
    bool no_else = w->kind[f->c] == PVM_WASM_OP_IF && !f->has_else;
    if (no_else)
        arrive(w, 0, w->snap + (size_t)at * w->nl, pos);
    bool reached = !dead || f->end_reached || no_else;
    const uint32_t *j = join_at(w, at);
    const word *lv = set_at(w->label, w, f->c);
    for (uint32_t k = 0; reached && k < w->words; k++)
        for (word bits = lv[k]; bits; bits &= bits - 1) {
            uint32_t l = k * 64 + (uint32_t)__builtin_ctzll(bits);
            w->cur[l] = j[l];
        }
    w->sp--;
    return !reached;
}

static void reference(work *w, pvm_wasm_insn *in, uint32_t pos, uint64_t weight)
{
    uint32_t l = in->idx, web = w->cur[l];
    if (in->op != PVM_WASM_OP_LOCAL_GET) { /* a new value */
        web = w->cur[l] = w->nwebs++;
        w->parent[web] = web;
        w->local[web] = l;
        w->lo[web] = w->hi[web] = pos;
        w->weight[web] = 0;
    }
    uint32_t r = find(w, web);
    if (pos > w->hi[r])
        w->hi[r] = pos;
    w->weight[r] += weight;
    in->idx = web;
}

static int webs_pass(work *w)
{
    for (uint32_t l = 0; l < w->nl; l++) { /* the values at entry */
        w->cur[l] = w->parent[l] = w->local[l] = l;
        w->lo[l] = w->hi[l] = 0;
        w->weight[l] = 0;
    }
    w->nwebs = w->nl;
    w->sp = 0;
    open_construct(w, 0);
    bool dead = false;
    uint32_t dead_depth = 0, loops = 0;
    for (uint32_t e = 0; e < w->nevents; e++) {
        uint32_t i = w->events[e], pos = i + 1;
        pvm_wasm_insn *in = &w->body[i];
        if (dead) { /* as tr_dead_code */
            if (op_opens(in->op)) {
                dead_depth++;
                continue;
            }
            if ((in->op == PVM_WASM_OP_ELSE || in->op == PVM_WASM_OP_END) && dead_depth == 0)
                ; /* handled below */
            else {
                dead_depth -= in->op == PVM_WASM_OP_END;
                if (op_is_local(in->op))
                    in->idx = w->cur[in->idx]; /* never translated */
                continue;
            }
        }
        uint64_t weight = UINT64_C(1) << (loops < 10 ? 3 * loops : 30);
        switch (in->op) {
        case PVM_WASM_OP_LOOP: loops++; /* fall through */
        case PVM_WASM_OP_BLOCK:
        case PVM_WASM_OP_IF: open_construct(w, w->cons[i]); break;
        case PVM_WASM_OP_ELSE: {
            frame *f = &w->frames[w->sp - 1];
            if (!dead)
                arrive(w, 0, w->cur, pos);
            f->has_else = true;
            memcpy(w->cur, w->snap + (size_t)(w->sp - 1) * w->nl, w->nl * sizeof *w->cur);
            dead = false;
            break;
        }
        case PVM_WASM_OP_END:
            if (w->sp == 1) { /* the function's own end */
                w->sp--;
                break;
            }
            loops -= w->kind[w->frames[w->sp - 1].c] == PVM_WASM_OP_LOOP;
            dead = close_construct(w, pos, dead);
            break;
        case PVM_WASM_OP_BR:
            arrive(w, in->idx, w->cur, pos);
            dead = true;
            break;
        case PVM_WASM_OP_BR_IF: arrive(w, in->idx, w->cur, pos); break;
        case PVM_WASM_OP_BR_TABLE: {
            uint32_t n = table_targets(w, in);
            if (n == 0)
                return -1;
            for (uint32_t k = 0; k < n; k++)
                arrive(w, w->targets[k], w->cur, pos);
            dead = true;
            break;
        }
        case PVM_WASM_OP_RETURN:
        case PVM_WASM_OP_UNREACHABLE: dead = true; break;
        case PVM_WASM_OP_LOCAL_GET:
        case PVM_WASM_OP_LOCAL_SET:
        case PVM_WASM_OP_LOCAL_TEE: reference(w, in, pos, weight); break;
        default: break;
        }
    }
    return 0;
}

/* ---- the result ----------------------------------------------------------------- */

static int alloc_result(tr_webs *out, uint32_t n)
{
    size_t n1 = (size_t)n + 1;
    *out = (tr_webs){.n = n, .type = malloc(n1), .local = malloc(n1 * sizeof *out->local),
                     .lo = malloc(n1 * sizeof *out->lo),
                     .hi = malloc(n1 * sizeof *out->hi),
                     .weight = calloc(n1, sizeof *out->weight),
                     .live_in = calloc(n1, sizeof *out->live_in)};
    return out->type && out->local && out->lo && out->hi && out->weight && out->live_in ? 0
                                                                                    : -1;
}

/* Is the web of local l's value at entry live there?  (A reference to it,
 * or a join that it reached, makes it so, whatever liveness said.) */
static bool live_at_entry(work *w, uint32_t l)
{
    return has(w->entry, l) || w->weight[l] > 0 || w->hi[l] > 0;
}

/* Renumber the webs' roots (the parameters' values at entry first, as
 * their locals; then the webs that are referenced or live at entry),
 * rename the references, and describe each web. */
static int collect(work *w, tr_webs *out)
{
    const tr_func *t = w->t;
    uint32_t np = t->type->nparams, n = 0;
    uint32_t *index = malloc(((size_t)w->nwebs + 1) * sizeof *index);
    if (!index)
        return -1;
    for (uint32_t k = 0; k < w->nwebs; k++)
        index[k] = k < np ? n++ : NO_WEB;
    for (uint32_t k = np; k < w->nwebs; k++)
        if (find(w, k) == k && (k >= w->nl || live_at_entry(w, k)))
            index[k] = n++;
    int rc = alloc_result(out, n);
    for (uint32_t k = 0; rc == 0 && k < w->nwebs; k++) {
        uint32_t r = find(w, k), x = index[r];
        if (r != k || x == NO_WEB)
            continue;
        out->type[x] = t->ltype[w->local[r]];
        out->local[x] = w->local[r];
        out->lo[x] = w->lo[r];
        out->hi[x] = w->hi[r];
        out->weight[x] = w->weight[r];
        out->live_in[x] = r < w->nl && live_at_entry(w, r);
    }
    for (uint32_t e = 0; rc == 0 && e < w->nevents; e++) {
        pvm_wasm_insn *in = &w->body[w->events[e]];
        if (op_is_local(in->op)) /* in unreachable code, maybe no web: never read */
            in->idx = index[find(w, in->idx)];
    }
    free(index);
    return rc;
}

/* One web per local, live from the entry through the whole body. */
static int one_web_per_local(work *w, tr_webs *out)
{
    const tr_func *t = w->t;
    if (alloc_result(out, w->nl) != 0)
        return -1;
    for (uint32_t l = 0; l < w->nl; l++) {
        out->type[l] = t->ltype[l];
        out->local[l] = l;
        out->lo[l] = 0;
        out->hi[l] = w->n + 1;
        out->live_in[l] = true;
    }
    uint32_t loops = 0;
    w->sp = 0;
    for (uint32_t e = 0; e < w->nevents; e++) {
        const pvm_wasm_insn *in = &w->body[w->events[e]];
        if (op_opens(in->op)) {
            w->stack[w->sp++] = in->op;
            loops += in->op == PVM_WASM_OP_LOOP;
        } else if (in->op == PVM_WASM_OP_END && w->sp > 0)
            loops -= w->stack[--w->sp] == PVM_WASM_OP_LOOP;
        else if (op_is_local(in->op))
            out->weight[in->idx] += UINT64_C(1) << (loops < 10 ? 3 * loops : 30);
    }
    return 0;
}

void tr_webs_free(tr_webs *webs)
{
    free(webs->type);
    free(webs->local);
    free(webs->lo);
    free(webs->hi);
    free(webs->weight);
    free(webs->live_in);
    *webs = (tr_webs){0};
}

static void *array(size_t n, size_t size, bool *failed)
{
    void *p = n <= SIZE_MAX / size ? malloc(n * size + 1) : NULL;
    *failed |= !p;
    return p;
}

int tr_webs_find(tr_func *t, tr_webs *out)
{
    uint32_t depth = t->func->max_depth + 1;
    work w = {.t = t, .body = t->mod->body, .n = t->ninsns, .nl = t->nlocals,
              .words = (t->nlocals + 63) / 64};
    bool failed = false;
    *out = (tr_webs){0};
    w.cons = array(w.n, sizeof *w.cons, &failed);
    w.events = array(w.n, sizeof *w.events, &failed);
    w.kind = array((size_t)w.n + 1, sizeof *w.kind, &failed);
    w.stack = array(depth, sizeof *w.stack, &failed);
    uint32_t writes = failed ? 0 : number_constructs(&w);
    size_t set_words = (size_t)w.ncons * w.words, joins = (size_t)depth * w.nl;
    bool small = set_words <= MAX_CELLS && joins <= MAX_CELLS && w.words > 0;
    if (!failed && small) {
        size_t nwebs = (size_t)w.nl + writes;
        w.label = calloc(set_words, sizeof *w.label);
        failed |= !w.label;
        w.live = array(w.words, sizeof *w.live, &failed);
        w.entry = array(w.words, sizeof *w.entry, &failed);
        w.else_live = array((size_t)depth * w.words, sizeof *w.else_live, &failed);
        w.cur = array(w.nl, sizeof *w.cur, &failed);
        w.join = array(joins, sizeof *w.join, &failed);
        w.snap = array(joins, sizeof *w.snap, &failed);
        w.frames = array(depth, sizeof *w.frames, &failed);
        w.parent = array(nwebs, sizeof *w.parent, &failed);
        w.local = array(nwebs, sizeof *w.local, &failed);
        w.lo = array(nwebs, sizeof *w.lo, &failed);
        w.hi = array(nwebs, sizeof *w.hi, &failed);
        w.weight = array(nwebs, sizeof *w.weight, &failed);
    }
    bool grew = true;
    while (!failed && small && grew) {
        grew = false;
        failed = liveness_pass(&w, &grew) != 0;
    }
    if (!failed && small)
        failed = webs_pass(&w) != 0 || collect(&w, out) != 0;
    else if (!failed)
        failed = one_web_per_local(&w, out) != 0;
    free(w.cons);
    free(w.events);
    free(w.kind);
    free(w.stack);
    free(w.targets);
    free(w.label);
    free(w.live);
    free(w.entry);
    free(w.else_live);
    free(w.cur);
    free(w.join);
    free(w.snap);
    free(w.frames);
    free(w.parent);
    free(w.local);
    free(w.lo);
    free(w.hi);
    free(w.weight);
    if (failed)
        tr_webs_free(out);
    return failed ? tr_fail(t, "out of memory") : 0;
}
