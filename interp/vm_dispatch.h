/*
 * vm_dispatch.h - the vocabulary the op bodies of vm_ops.h are written in,
 * and how it maps onto each dispatch mode.  Included only by vm_exec.c,
 * after every other header (the accessor names are short).
 *
 * Exactly one of these is defined by the build (interp/CMakeLists.txt):
 *
 *   PULLEY_DISPATCH_SWITCH  a `switch` over the opcode number (extended
 *                           opcodes as 256 + their u16 code) in one function;
 *                           OPCODE(name) is a case, NEXT() jumps back to the
 *                           switch.
 *   PULLEY_DISPATCH_GOTO    computed-goto threading in one function;
 *                           OPCODE(name) is a label, NEXT() jumps straight
 *                           through the table to the next op's label.
 *   PULLEY_DISPATCH_TAIL    one function per op with a fixed signature;
 *                           NEXT() is a guaranteed tail call (clang's
 *                           musttail) through the table to the next handler.
 *
 * In every mode the interpreter state the ops touch most lives in locals or
 * arguments the compiler can keep in machine registers: pc, sp, heap and
 * heap_fast_end (the heap's bytes, and its size less 7 for DATA's fast
 * path: both reloaded by RELOAD_HEAP after anything that may grow or move
 * the heap, heap_grow and every host call, since a host function may grow
 * a shared memory; nothing else changes vm->memory), and in switch and
 * goto dispatch x (the integer register file; tail dispatch reads it
 * through vm, at a constant offset, so that sp takes the argument
 * register) and heap_base; vm holds the rest.  vm->sp is brought up to
 * date whenever control may leave the op bodies (a host call, a trap, the
 * return to the embedder) and read back after a host call; the tracer,
 * which shows sp after every instruction, reads vm->sp itself.
 *
 * Vocabulary of an op body (between OPCODE(name) and END_OPCODE):
 *   A B C D          register numbers of operands 0..3
 *   X(r)             integer register r (uint64_t lvalue)
 *   SP               the stack pointer (uint64_t lvalue, an offset)
 *   FBITS(r)         float register r's bits (uint64_t lvalue)
 *   F32(r) F64(r)    its value as f32 (low half) or f64
 *   SET_F32(r, v)    f[r] = f32 v, upper half zero;  SET_F64(r, v)
 *   IMM_S8 IMM_U8 IMM_S16 IMM_S32 IMM_U32 IMM_I64   the immediate
 *   ADDR(r)          x[r] + s32 offset immediate, wrapping mod 2^64
 *   ADDR_AT(r, off)  x[r] + s32 off (a macro op's part: its own offset)
 *   DATA(a, n, p, access)  access (a statement) with p the host address
 *                    of data-space bytes a .. a+n-1 (all in the heap or
 *                    all in the stack), or trap HEAP_OOB (past the heap)
 *                    or MEMORY_FAULT
 *   HEAP(p, a, off, n)  p = host address of heap bytes u32(a) + s32 off ..
 *                    + n-1 (a Wasm address and offset), or trap HEAP_OOB
 *   CALL_HOST(fn, ctx)  call a host function, then reload the heap
 *   CHECK_TRUNC(v, lo, hi)  Wasm's trapping float->int range check
 *   AFTER_SHIFT()    after a shift or rotation by a count that is not a
 *                    constant (no effect but on x86-64's tail build: below)
 *   NEXT()           go on with the next instruction (in a macro op's
 *                    part: with its next part)
 *   JUMP(p)          go on at code address p (a taken transfer: counted
 *                    as an edge in counting builds)
 *   TRAP(NAME)       stop with PVM_TRAP_NAME;  TRAP_WITH(kind)
 *   RETURN_TO_EMBEDDER()  stop: pvm_vm_call returns PVM_TRAP_NONE
 */
#ifndef PULLEY_VM_DISPATCH_H
#define PULLEY_VM_DISPATCH_H

#include "vm_hooks.h"

#define UNLIKELY(c) __builtin_expect(!!(c), 0)
#define LIKELY(c) __builtin_expect(!!(c), 1)

/* ---- operands: the same in every mode --------------------------------- */

/* The words of the table's flags column as constants (isa.c does the
 * same), and for each op whether it ends a straight-line run. */
enum {
#define FLAG_WORD_(word, bit) word = PVM_FLAG_##word,
    PVM_FLAG_WORDS(FLAG_WORD_)
#undef FLAG_WORD_
};
enum {
#define OP(name, format, flags, class, semantics)                              \
    PVM_ENDS_RUN_##name = ((flags) & PVM_FLAGS_END_RUN) != 0,
#define EXT OP
#include "opcodes.def"
};

/* The per-op constants every body may use: the instruction's length,
 * where its register pack and immediate are, and whether it ends a run. */
#define OP_CONSTANTS_(name)                                                    \
    enum {                                                                     \
        OP_LEN_ = PVM_LEN_##name,                                              \
        OP_REGS_ = PVM_REGS_##name,                                            \
        OP_IMM_ = PVM_IMM_##name,                                              \
        OP_ENDS_RUN_ = PVM_ENDS_RUN_##name                                     \
    };

/* The register operands, a byte each (below 32: the verifier checked). */
#define BASE_REG_A_ (pc[OP_REGS_])
#define BASE_REG_B_ (pc[OP_REGS_ + 1])
#define BASE_REG_C_ (pc[OP_REGS_ + 2])
#define BASE_REG_D_ (pc[OP_REGS_ + 3])
#define A BASE_REG_A_
#define B BASE_REG_B_
#define C BASE_REG_C_
#define D BASE_REG_D_
/* Register k of a macro op (interp/gen: its handler reads each into a
 * local once and writes those into its parts' bodies for A, B, C, D). */
#define MACRO_REG_(k) ((unsigned)pc[OP_REGS_ + (k)])

#if defined(PULLEY_DISPATCH_TAIL)
#define X_REG_(r) vm->x[r]
#else
#define X_REG_(r) x[r]
#endif
#define F_REG_(r) vm->f[r].bits
#define X(r) X_REG_(r)
#define FBITS(r) F_REG_(r)
#define F32(r) pvm_f32_from_bits((uint32_t)FBITS(r))
#define F64(r) pvm_f64_from_bits(FBITS(r))
#define SET_F32(r, v) (FBITS(r) = pvm_f32_bits(v))
#define SET_F64(r, v) (FBITS(r) = pvm_f64_bits(v))

#define BASE_IMM_S8_ ((int8_t)pc[OP_IMM_])
#define BASE_IMM_U8_ (pc[OP_IMM_])
#define BASE_IMM_S16_ ((int16_t)pvm_rd16(pc + OP_IMM_))
#define BASE_IMM_S32_ ((int32_t)pvm_rd32(pc + OP_IMM_))
#define BASE_IMM_U32_ pvm_rd32(pc + OP_IMM_)
#define BASE_IMM_I64_ pvm_rd64(pc + OP_IMM_)
#define IMM_S8 BASE_IMM_S8_
#define IMM_U8 BASE_IMM_U8_
#define IMM_S16 BASE_IMM_S16_
#define IMM_S32 BASE_IMM_S32_
#define IMM_U32 BASE_IMM_U32_
#define IMM_I64 BASE_IMM_I64_
/* A macro op's immediate at byte `off` of the instruction, read whole (the
 * generated bodies read every operand once, into a local, before the first
 * part that uses it: a store to a register could otherwise make the
 * compiler read the code again, since it may not know that registers and
 * code never overlap, and a value one part stored would then come back
 * from memory instead of a machine register). */
#define MACRO_IMM_(off) pvm_rd64(pc + (off))

/* ---- memory, code, traps ---------------------------------------------- */

#define ADDR(r) ADDR_AT(r, IMM_S32)
#define ADDR_AT(r, off) (X(r) + (uint64_t)(int64_t)(off))
/* DATA(addr, n, p, access): the n-byte data-space access at addr, with
 * p (declared here) pointing at it.  The stack first: translated Wasm
 * reaches the heap through the _g32 ops (HEAP), so its data-space accesses
 * are frame slots and stack arguments; one compare admits an access of up
 * to 8 bytes that starts at least 8 bytes before the stack's top
 * (stack_fast_end), and that path makes the access on its own, so that
 * the compiler can fold the stack's address into it.  Then the heap: one
 * compare admits an access that starts at least 8 bytes before the heap's
 * end (heap_fast_end is heap_size - 7, or 0 for a heap of less than 8
 * bytes: nothing passes); an address below heap_base (== stack_size)
 * makes h_ wrap to far above it.  The rest is the slow path: the stack's
 * last 8 bytes (the stack is at least 16 bytes, so stack_size - n cannot
 * wrap), the heap's (h_ below heap_size, at most PVM_MAX_HEAP, leaves
 * h_ + n far from wrapping), and the traps.  Past the heap (by less than
 * PVM_HEAP_REACH, as far as a Wasm address and offset reach) the access is
 * out of bounds, anything else a memory fault. */
#define PVM_HEAP_REACH (UINT64_C(1) << 33)
#if defined(PULLEY_DISPATCH_TAIL)
#define HEAP_BASE_ vm->heap_base
#else
#define HEAP_BASE_ heap_base_ /* a local: the compiler need not reload it */
#endif
#define HEAP_FAST_END(size) ((size) >= 8 ? (size) - 7 : 0)
#define DATA(addr, n, p, access)                                               \
    do {                                                                       \
        uint64_t a_ = (addr), h_ = a_ - HEAP_BASE_;                            \
        uint8_t *p;                                                            \
        if (LIKELY(a_ < vm->stack_fast_end)) {                                 \
            p = vm->stack + a_;                                                \
            access;                                                            \
            break;                                                             \
        }                                                                      \
        if (LIKELY(h_ < heap_fast_end))                                        \
            p = heap + h_;                                                     \
        else if (a_ <= vm->stack_size - (n))                                   \
            p = vm->stack + a_;                                                \
        else if (h_ < vm->memory->size && h_ + (n) <= vm->memory->size)        \
            p = heap + h_;                                                     \
        else                                                                   \
            TRAP_WITH(h_ < PVM_HEAP_REACH ? PVM_TRAP_HEAP_OOB : PVM_TRAP_MEMORY_FAULT); \
        access;                                                                \
        __asm__ volatile(""); /* no instruction: keeps the two accesses apart */ \
    } while (0)
/* A Wasm access: the heap only, the same fast compare, then the heap's last
 * bytes; the sum of a u32 address and a non-negative offset is below 2^33
 * (a negative offset, never translated, that takes it below 0 wraps it far
 * past the heap). */
#define HEAP(p, a, off, n)                                                     \
    do {                                                                       \
        uint64_t h_ = (uint64_t)(uint32_t)(a) + (uint64_t)(int64_t)(off);      \
        if (LIKELY(h_ < heap_fast_end))                                        \
            p = heap + h_;                                                     \
        else if (h_ < vm->memory->size && h_ + (n) <= vm->memory->size)        \
            p = heap + h_;                                                     \
        else                                                                   \
            TRAP_WITH(PVM_TRAP_HEAP_OOB);                                      \
    } while (0)
#define RELOAD_HEAP()                                                          \
    (heap = vm->heap_bytes = vm->memory->bytes,                                \
     heap_fast_end = HEAP_FAST_END(vm->memory->size))
#ifdef PULLEY_TRACE
#define SP vm->sp
#define SP_SAVE_() ((void)0)
#define SP_LOAD_() ((void)0)
#else
#define SP sp_
#define SP_SAVE_() (vm->sp = sp_)
#define SP_LOAD_() (sp_ = vm->sp)
#endif
/* Control leaves bytecode for host function fn; the instruction at pc then
 * traps with the kind it returns, or goes on.  A bad kind is a host error. */
#define CALL_HOST(fn, ctx)                                                     \
    do {                                                                       \
        LEAVE_BYTECODE();                                                      \
        SP_SAVE_();                                                            \
        pvm_trap_kind kind_ = (fn)(vm, (ctx));                                 \
        SP_LOAD_();                                                            \
        ENTER_BYTECODE(pc);                                                    \
        RELOAD_HEAP();                                                         \
        if (UNLIKELY(kind_ != PVM_TRAP_NONE))                                  \
            TRAP_WITH((unsigned)kind_ < PVM_TRAP_COUNT ? kind_ : PVM_TRAP_HOST_ERROR); \
    } while (0)

/* v (a double) truncates to an integer in range iff lo < v < hi. */
#define CHECK_TRUNC(v, lo, hi)                                                 \
    do {                                                                       \
        if (UNLIKELY((v) != (v)))                                              \
            TRAP(BAD_CONVERSION);                                              \
        if (UNLIKELY(!((v) > (lo) && (v) < (hi))))                             \
            TRAP(INT_OVERFLOW);                                                \
    } while (0)

#define CODE (vm->module->code)
#define FUNC_ENTRY(i) (CODE + vm->module->funcs[i].offset)
/* lr for a call made by this instruction: its successor's offset + 1. */
#define RETURN_ADDRESS() ((uint64_t)(pc + OP_LEN_ - CODE) + 1)

#define TRAP(name) TRAP_WITH(PVM_TRAP_##name)
#define TRAP_WITH(kind)                                                        \
    do {                                                                       \
        pvm_trap_kind trap_ = (kind);                                          \
        SP_SAVE_();                                                            \
        HOOK_EXIT(trap_);                                                      \
        return pvm_trap_at(vm, pc, trap_);                                     \
    } while (0)
#define RETURN_TO_EMBEDDER()                                                   \
    do {                                                                       \
        SP_SAVE_();                                                            \
        HOOK_EXIT(PVM_TRAP_NONE);                                              \
        return PVM_TRAP_NONE;                                                  \
    } while (0)

#define NEXT_INSN_()                                                           \
    do {                                                                       \
        pc += OP_LEN_;                                                         \
        if (OP_ENDS_RUN_) /* a constant: the plain handlers are unchanged */   \
            PROFILE_RUN_START(pc);                                             \
        DISPATCH();                                                            \
    } while (0)
#define NEXT() NEXT_INSN_() /* a macro op's part but the last: on to the next part */
#define JUMP(target)                                                           \
    do {                                                                       \
        const uint8_t *const to_ = (target);                                   \
        HOOK_TRANSFER(pc, to_);                                                \
        pc = to_;                                                              \
        PC_SETTLED_();                                                         \
        DISPATCH();                                                            \
    } while (0)

/* ---- the three modes -------------------------------------------------- */

/* Each mode reads the next opcode before running the hooks (HOOK_BEFORE):
 * the code bytes never change, so this is the same value, but the load
 * then does not come after the counting build's increment (a store
 * through a pointer the compiler must assume may alias the code). */

#if defined(PULLEY_DISPATCH_SWITCH)

#define OPCODE(name) case PVM_OP_##name: { OP_CONSTANTS_(name)
#define END_OPCODE }
#define DISPATCH() goto dispatch_

#elif defined(PULLEY_DISPATCH_GOTO)

#define OPCODE(name) op_##name: { OP_CONSTANTS_(name)
#define END_OPCODE }
#define DISPATCH()                                                             \
    do {                                                                       \
        const unsigned op_ = *pc;                                              \
        HOOK_BEFORE(pc);                                                       \
        goto *primary_[op_];                                                   \
    } while (0)

#elif defined(PULLEY_DISPATCH_TAIL)

/* Every handler takes the interpreter state as arguments and passes it on. */
#define HANDLER_PARAMS                                                         \
    pvm_vm *vm, const uint8_t *pc, uint64_t sp_ __attribute__((unused)),       \
        uint8_t *heap __attribute__((unused)),                                 \
        uint64_t heap_fast_end __attribute__((unused)) HOOK_PARAMS
#define HANDLER_ARGS vm, pc, sp_, heap, heap_fast_end HOOK_ARGS
/* A transfer's target is computed into pc's own register before the next
 * opcode is read from it: clang otherwise computes the address twice (once
 * for the load, once into another register) and moves it into place. */
#define PC_SETTLED_() __asm__("" : "+r"(pc))
#if defined(__x86_64__)
/* An x86-64 shift or rotation by a count that is not a constant takes it
 * in cl, and rcx carries heap (the fourth argument): a handler that shifts
 * reloads heap from vm after the shift (one load) rather than have the
 * compiler move it to another register and back (two moves). */
#define AFTER_SHIFT() (heap = vm->heap_bytes)
#endif
#define TAIL_CALL(handler)                                                     \
    __attribute__((musttail)) return (handler)(HANDLER_ARGS)

/* Where a handler's code goes: HANDLER_SECTION_ is empty for the
 * baseline's handlers (.text, in the order compiled) and names a section
 * of their own for macro ops' handlers (vm_ops.h), which the linker puts
 * after this file's .text: a macro build leaves every baseline handler
 * at the address a baseline build gives it, so that what its macro ops
 * gain is not mixed with a move of the baseline's code. */
#define HANDLER_SECTION_
#define OPCODE(name)                                                           \
    static HANDLER_SECTION_ pvm_trap_kind op_##name(HANDLER_PARAMS) {         \
        OP_CONSTANTS_(name)
#define END_OPCODE }
#define DISPATCH()                                                             \
    do {                                                                       \
        const unsigned op_ = *pc;                                              \
        HOOK_BEFORE(pc);                                                       \
        TAIL_CALL(primary_[op_]);                                              \
    } while (0)

#else
#error "define one of PULLEY_DISPATCH_SWITCH, _GOTO or _TAIL"
#endif
#ifndef PC_SETTLED_
#define PC_SETTLED_() ((void)0)
#endif
#ifndef AFTER_SHIFT
#define AFTER_SHIFT() ((void)0)
#endif

#endif
