/*
 * translate_internal.h - what the parts of the Wasm-to-bytecode translator
 * share: the state of one function being translated, its register plan,
 * the compile-time model of the operand stack, and the emitters.
 *
 * Register plan of a function (see TRANSLATION.md):
 *   x0..x14, f0..f14   operand-stack slots (slot d is register sbase + d of
 *                      its class while that is below TR_NSLOTREGS, a frame
 *                      slot beyond), arguments and results by position
 *   x15, x30 / f15, f30  scratch (never live across a Wasm instruction)
 *   x16..x29, f16..f29 callee-saved: homes of locals (x29: frame base when
 *                      the function has frame slots)
 *   x31                heap base, set by the embedder, never written
 * A leaf function (no calls) keeps its parameters where they arrive
 * (sbase = number of parameters) and homes further locals in the free
 * caller-saved registers above its operand stack first; so does a light
 * one (few calls on any path, none in a loop: translate_plan.c), which
 * saves them around its calls and, saving no callee-saved register,
 * pushes a frame only around each call.
 */
#ifndef PULLEY_WASM_TRANSLATE_INTERNAL_H
#define PULLEY_WASM_TRANSLATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "insn.h"
#include "module.h"
#include "translate.h"
#include "wasm_insn.h"
#include "wasm_module.h"

enum {
    TR_NSLOTREGS = 15, /* x0..x14 / f0..f14 hold operand-stack slots */
    TR_NARGREGS = 16,  /* argument and result positions 0..15 travel in registers */
    TR_SCRATCH1 = 30,  /* x30 / f30 */
    TR_SCRATCH2 = 15,  /* x15 / f15 */
    TR_SAVED_FIRST = 16,
    TR_SAVED_LAST = 29,
    TR_FRAME_BASE = 29, /* x29 when the function has frame slots */
    TR_HEAP_BASE = 31,  /* x31 */
};

/* Register classes. */
enum { TR_X = 0, TR_F = 1 };

/* A location: a register (>= 0) of the value's class, or frame slot i
 * (TR_FRAME(i) < 0), at x29 + 8 * i. */
typedef int32_t tr_loc;
#define TR_FRAME(i) (-1 - (int32_t)(i))
#define TR_IS_FRAME(loc) ((loc) < 0)
#define TR_FRAME_INDEX(loc) ((uint32_t)(-1 - (loc)))

/* A constant hoisted into a register (reg TR_NOREG: not) for the
 * instruction positions [lo, hi]: the whole body (lo 0), loaded by the
 * prologue, or an outermost loop (lo: the loop's position), loaded where
 * the loop is entered. */
typedef struct tr_creg {
    uint64_t bits, weight;
    uint32_t lo, hi;
    uint8_t cls, reg;
} tr_creg;
#define TR_NOREG 0xFF

/* A caller-saved register homing locals (webs) although calls lie in
 * their live ranges, which meet in [lo, hi] (positions): saved around
 * each of those calls. */
typedef struct tr_saved_local {
    uint32_t lo, hi;
    uint8_t cls, reg;
} tr_saved_local;

/* A frame slot that a loop without calls reads, held in register reg of
 * class cls from the loop's entry (position lo, where it is loaded)
 * through its end (position hi); a write in the loop writes both. */
typedef struct tr_loop_slot {
    uint64_t weight; /* the loop's reads of it, weighted by 8 per inner loop */
    uint32_t slot, lo, hi;
    uint8_t cls, reg;
} tr_loop_slot;

/* An operand-stack entry. */
typedef enum tr_kind {
    TV_REG,   /* in its slot's location */
    TV_CONST, /* the constant `bits`, not materialised */
    TV_LOCAL, /* the current value of local `local` (read from its home) */
} tr_kind;

typedef struct tr_val {
    uint8_t kind; /* tr_kind */
    uint8_t type; /* pvm_wasm_valtype */
    uint32_t local;
    uint64_t bits;
} tr_val;

/* A forward branch waiting for its block's end: the branch (or jump-table
 * entry) at code offset `patch`, relative to the instruction at `from`. */
typedef struct tr_fixup {
    uint32_t from, patch;
    uint32_t next; /* next fixup of the same block, or TR_NONE */
} tr_fixup;

#define TR_NONE UINT32_MAX

typedef struct tr_block {
    const pvm_wasm_block *wb; /* NULL for the function body */
    uint32_t height;          /* operand stack height at entry, params excluded */
    uint32_t head;            /* loop: code offset of the loop head */
    uint32_t fixups;          /* forward branches to the end (list) */
    uint32_t else_fixup;      /* if: the branch to the else arm, or TR_NONE */
    bool end_reached;         /* some branch goes to the end */
} tr_block;

/* The translation of a whole module (translate.c). */
typedef struct tr_module {
    const pvm_wasm_module *wm;
    pvm_module *m;
    const uint64_t *func_refs; /* what ref.func produces, or NULL: func_ref */
    uint32_t *host_of;         /* host import of each function import */
    uint32_t nhosts;           /* host imports of function imports (bulk ones follow) */
    pvm_error *err;
    /* The body of the function being translated, decoded once by the
     * plan's pass and read again by the translation: room for cap. */
    pvm_wasm_insn *body;
    size_t body_cap;
    bool lazy; /* functions translated on first call: imports fixed up front */
} tr_module;

/* The bulk operations, each a host import PVM_WASM_BULK_PREFIX "NAME". */
#define TR_BULK_OPS(X)                                                         \
    X(MEMORY_COPY, "memory.copy") X(MEMORY_FILL, "memory.fill")                \
    X(MEMORY_INIT, "memory.init") X(DATA_DROP, "data.drop")                    \
    X(TABLE_COPY, "table.copy") X(TABLE_FILL, "table.fill")                    \
    X(TABLE_INIT, "table.init") X(ELEM_DROP, "elem.drop")
typedef enum tr_bulk_op {
#define TR_BULK_ENUM(op, name) TR_BULK_##op,
    TR_BULK_OPS(TR_BULK_ENUM)
#undef TR_BULK_ENUM
    TR_BULK_COUNT
} tr_bulk_op;
/* The host import of bulk operation op (declared if it is not yet);
 * -1 with mod->err. */
int tr_bulk_import(tr_module *mod, tr_bulk_op op);

/* The translation of one function. */
typedef struct tr_func {
    tr_module *mod;
    const pvm_wasm_module *wm;
    const pvm_wasm_func *func;
    const pvm_wasm_functype *type;
    uint32_t index;
    pvm_buf code;
    bool failed; /* an error is in mod->err */

    /* Locals (parameters first), then after the plan their webs
     * (translate_webs.c): type, home, whether live at entry (a parameter
     * moved to its home, a declared local zeroed there). */
    uint32_t nlocals;
    uint8_t *ltype;
    tr_loc *home;
    bool *live_in;

    /* The register plan. */
    bool leaf;
    bool light;           /* calls, few on any path, none in a loop */
    uint32_t sbase;       /* register of operand-stack slot 0 */
    uint32_t slot_frame0; /* frame slot of the first spilled operand-stack slot */
    uint32_t nframe;      /* frame slots */
    uint32_t saved[2];    /* bit r: callee-saved register r of the class is used */
    bool has_frame;       /* push_frame on entry (else, if it calls: around
                             each call) */
    tr_saved_local *around; /* registers saved around calls */
    uint32_t naround;
    tr_creg *consts;      /* constants of the body, some hoisted */
    uint32_t nconsts;
    tr_loop_slot *loop_slots; /* those with a register (reg != TR_NOREG) */
    uint32_t nloop_slots;
    uint32_t pos;         /* position of the instruction being translated (from 1) */
    uint32_t ninsns;      /* instructions of the body, decoded in mod->body */

    /* The operand stack model. */
    tr_val *stack;
    uint32_t height, stack_cap;

    /* Blocks, innermost last; blocks[0] is the function body. */
    tr_block *blocks;
    uint32_t depth, blocks_cap;
    uint32_t next_block; /* next entry of func->blocks */
    tr_fixup *fixups;
    uint32_t nfixups, fixups_cap;
    bool dead;           /* the current code is unreachable */
    uint32_t dead_depth; /* blocks opened in unreachable code */

    /* The last instruction, when it only writes its first register and
     * nothing may branch to the position after it: it can be re-encoded
     * with another destination. */
    bool last_def;
    size_t last_start;
    pvm_insn last;

    /* Constants are materialised into the constant pool: the slot
     * registers above the operand stack's current height that no home or
     * hoisted constant uses (cfree, bit r per class, masked by the height
     * at each use).  A register keeps its constant (cknown, ckbits) until
     * it is written, a call, or a label, and the next use of that constant
     * reads it there.  The registers one Wasm instruction reads from the
     * pool are pinned until the next one (an operand is never evicted by
     * another). */
    uint32_t cfree[2], cknown[2], cpinned[2];
    uint64_t ckbits[2][32];
    uint8_t cnext[2]; /* where the next victim search starts */
} tr_func;

/* ---- translate_stack.c: the operand stack and emission ------------------ */

int tr_fail(tr_func *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
unsigned tr_class(unsigned valtype);
/* Emit an instruction; tr_emit_def for one whose first register is its only
 * effect (a candidate for retargeting). */
void tr_emit(tr_func *t, unsigned op, unsigned r0, unsigned r1, unsigned r2, int64_t imm);
void tr_emit4(tr_func *t, unsigned op, unsigned r0, unsigned r1, unsigned r2, unsigned r3);
void tr_emit_def(tr_func *t, unsigned op, unsigned r0, unsigned r1, unsigned r2, int64_t imm);
/* Re-encode the last instruction to write `to` instead of `from` (class
 * cls), if it is a retargetable definition of `from`.  True if done. */
bool tr_retarget(tr_func *t, unsigned cls, unsigned from, unsigned to);
/* Forget the last definition and the constants in the pool (a label is
 * bound here: control may come from elsewhere). */
static inline void tr_label_here(tr_func *t)
{
    t->last_def = false;
    t->cknown[0] = t->cknown[1] = 0;
}
/* The constant pool of the planned function (tr_func.cfree). */
void tr_const_pool_init(tr_func *t);
/* Is local i's home a caller-saved register? */
static inline bool tr_caller_saved_home(const tr_func *t, uint32_t i)
{
    return !TR_IS_FRAME(t->home[i]) && t->home[i] < TR_SAVED_FIRST;
}
/* Does hoisted constant c hold its register at the current position? */
static inline bool tr_const_held(const tr_func *t, const tr_creg *c)
{
    return c->reg != TR_NOREG && c->lo <= t->pos && t->pos <= c->hi;
}
/* The register holding constant `bits` of class cls at the current
 * position, or TR_NOREG. */
unsigned tr_hoisted_const(const tr_func *t, unsigned cls, uint64_t bits);
/* Load the constants hoisted for [from, ...] (0: the whole body). */
void tr_load_hoisted_consts(tr_func *t, uint32_t from);
/* A new Wasm instruction: the pool registers the last one read may go. */
static inline void tr_const_pool_unpin(tr_func *t)
{
    t->cpinned[0] = t->cpinned[1] = 0;
}
/* Load the frame slots held in registers through the loop at position
 * from. */
void tr_load_loop_slots(tr_func *t, uint32_t from);
/* The register holding frame slot `slot` through the current loop, or
 * TR_NOREG. */
unsigned tr_loop_slot_reg(const tr_func *t, uint32_t slot);
/* Where local (web) i's value is read at the current position: its home,
 * or the register holding its frame slot through the current loop. */
static inline tr_loc tr_local_loc(const tr_func *t, uint32_t i)
{
    tr_loc home = t->home[i];
    unsigned r;
    if (!TR_IS_FRAME(home) || t->nloop_slots == 0 ||
        (r = tr_loop_slot_reg(t, TR_FRAME_INDEX(home))) == TR_NOREG)
        return home;
    return (tr_loc)r;
}
/* Materialise a constant into register r of class cls. */
void tr_const(tr_func *t, unsigned cls, unsigned r, uint64_t bits);
/* Load / store a frame slot from / to register r of class cls. */
void tr_frame_load(tr_func *t, unsigned cls, unsigned r, uint32_t slot);
void tr_frame_store(tr_func *t, unsigned cls, uint32_t slot, unsigned r);
void tr_mov(tr_func *t, unsigned cls, unsigned dst, unsigned src);

/* Location of operand-stack slot d (of class cls). */
tr_loc tr_slot_loc(const tr_func *t, uint32_t d);
void tr_push(tr_func *t, tr_val v);
static inline void tr_push_reg(tr_func *t, unsigned type)
{
    tr_push(t, (tr_val){.kind = TV_REG, .type = (uint8_t)type});
}
static inline tr_val *tr_top(tr_func *t, uint32_t k) { return &t->stack[t->height - 1 - k]; }
/* A register holding entry d's value, loading or materialising it (into
 * its slot register, else `scratch`) as needed. */
unsigned tr_operand(tr_func *t, uint32_t d, unsigned scratch);
/* The register an operation writing slot d writes (its slot register, or
 * scratch 1), and the store that completes it for a spilled slot. */
unsigned tr_dest(const tr_func *t, uint32_t d);
void tr_dest_done(tr_func *t, uint32_t d, unsigned cls);
/* Put entry d into its slot's location (kind TV_REG). */
void tr_materialize(tr_func *t, uint32_t d);
/* Entries below `below` that read local i's home (i TR_NONE: any local)
 * into their slots. */
void tr_materialize_local(tr_func *t, uint32_t i, uint32_t below);

/* A move of a value into a location; sources are stack entries. */
typedef struct tr_move {
    uint8_t cls;
    tr_loc dst;
    tr_val src;  /* TV_CONST, TV_LOCAL, or TV_REG at location src_loc */
    tr_loc src_loc;
} tr_move;
/* The move of entry d to dst. */
tr_move tr_move_of(tr_func *t, uint32_t d, tr_loc dst);
/* Perform moves as if in parallel (sources are all read before any
 * destination is written); retargets the last definition when it can. */
void tr_parallel_move(tr_func *t, tr_move *moves, uint32_t n);

/* ---- translate_func.c: plan, prologue and epilogue ---------------------- */

/* The register plan (translate_plan.c): leaf, sbase, homes, hoisted
 * constants, frame slots, saved registers.  0 or -1. */
int tr_plan(tr_func *t);

/* Translate defined function `index` into *out (replaced).  0 or -1. */
int tr_function(tr_module *mod, uint32_t index, pvm_buf *out);

/* Emit the epilogue returning the top nresults entries. */
void tr_return(tr_func *t);

/* ---- translate_paths.c: the calls on the paths through a body ------------ */

/* Does Wasm op `op` call (a function, or a bulk memory or table operation,
 * which the VM runs as a call)? */
static inline bool tr_is_call(unsigned op)
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

enum { TR_PATH_BLOCK, TR_PATH_LOOP, TR_PATH_IF, TR_PATH_ELSE };

/* The fewest and the most calls on some paths (none: most is -1). */
typedef struct tr_calls {
    int32_t fewest, most;
} tr_calls;

typedef struct tr_path_label {
    tr_calls to_end;   /* the paths that branch to its end */
    tr_calls at_entry; /* those that reach the block or if */
    tr_calls then_end; /* an if with an else: at the end of its then-arm */
    uint8_t kind;      /* TR_PATH_* (an if's becomes ELSE at its else) */
} tr_path_label;

typedef struct tr_paths {
    tr_path_label *labels; /* open, innermost last; labels[0] is the body */
    uint32_t n;
    tr_calls here; /* the paths that reach this instruction */
    tr_calls out;  /* those that leave the function (after its end) */
} tr_paths;

/* Start the count of a body of at most max_depth nested blocks.  0, or
 * -1 when out of memory. */
int tr_paths_init(tr_paths *p, uint32_t max_depth);
/* Follow instruction `in` (is_call: it calls, as the plan counts calls). */
void tr_paths_step(tr_paths *p, const pvm_wasm_insn *in, bool is_call);
void tr_paths_free(tr_paths *p);

/* ---- translate_webs.c: locals split into webs ---------------------------- */

/* The webs of a function, each a value of one local from its writes to
 * its reads: its type, its span of positions (nothing of it is live
 * outside), its weight (references, 8 times as much per loop around them)
 * and whether it is live at entry (a parameter's value, or a declared
 * local's zero).  Webs 0..nparams-1 are the parameters' values at entry.
 * Two webs of one local are never live at one position, whether or not
 * their spans meet. */
typedef struct tr_webs {
    uint32_t n;
    uint8_t *type;
    uint32_t *local; /* the local whose values it holds */
    uint32_t *lo, *hi;
    uint64_t *weight;
    bool *live_in;
} tr_webs;

/* The webs of t's locals (t->nlocals of them, types t->ltype), with the
 * references in the body decoded by the plan's first pass renamed to
 * them.  0, or -1 (out of memory). */
int tr_webs_find(tr_func *t, tr_webs *webs);
void tr_webs_free(tr_webs *webs);

/* ---- translate_control.c ------------------------------------------------- */

int tr_control(tr_func *t, const pvm_wasm_insn *in);
/* Start or end unreachable code handling for an instruction in dead code;
 * returns true if the instruction was consumed. */
bool tr_dead_code(tr_func *t, const pvm_wasm_insn *in);

/* ---- translate_ops.c: numeric, parametric, variable ops ------------------ */

int tr_numeric(tr_func *t, const pvm_wasm_insn *in); /* 1: not numeric */
/* Can Wasm op wasm_op take the integer constant `bits` as its second
 * operand (first: as its first) in one VM op with an immediate (or one
 * that needs none: x & 0xffffffff is xzext32)?  If so, *op and *imm say
 * which and what (the plan asks too, to keep such a
 * constant out of registers). */
bool tr_imm_form(unsigned wasm_op, uint64_t bits, bool first, uint16_t *op, int32_t *imm);
int tr_variable(tr_func *t, const pvm_wasm_insn *in);

/* ---- translate_memory.c -------------------------------------------------- */

int tr_memory(tr_func *t, const pvm_wasm_insn *in);

/* ---- translate_call.c: calls, tables, references, bulk operations ------- */

int tr_call(tr_func *t, const pvm_wasm_insn *in);
int tr_table(tr_func *t, const pvm_wasm_insn *in);
/* Call bulk operation op's host import with the top nargs entries as
 * arguments (positions 0..) followed by the constants extra[]. */
void tr_call_bulk(tr_func *t, tr_bulk_op op, uint32_t nargs, const uint32_t *extra,
                  uint32_t nextra);
/* Save the live caller-saved slot registers below slot `base` before a
 * call, and restore them after. */
void tr_save_live(tr_func *t, uint32_t base);
void tr_restore_live(tr_func *t, uint32_t base);

/* ---- translate.c ---------------------------------------------------------- */

/* The host import index of `name`, added if new; -1 after an error. */
int tr_host_import(tr_module *mod, const char *name);

/* ---- translate_loop_slots.c: frame slots held through loops ------------- */

/* The frame slots that loops read (t's homes planned), one entry per loop
 * and slot, reg TR_NOREG: *out (malloc'ed, NULL when none) and *n.  The
 * loops: nspans of them, loop k at positions [spans[2k], spans[2k + 1]],
 * none inside another.  0, or -1 when out of memory. */
int tr_find_loop_slots(const tr_func *t, const uint32_t *spans, uint32_t nspans,
                       tr_loop_slot **out, uint32_t *n);

#endif
