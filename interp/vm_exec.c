/*
 * vm_exec.c - the interpreter: the run function for the dispatch mode of
 * the build (switch, computed goto or tail calls; see vm_dispatch.h), the
 * numeric helpers the op bodies use, the trap path, and pvm_vm_call.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bytes.h"
#include "insn.h"
#include "lazy.h"
#include "vm.h"

/* ---- numeric helpers: exact, and free of undefined behaviour ---------- */

#define F32_SIGN UINT32_C(0x80000000)
#define F64_SIGN UINT64_C(0x8000000000000000)
/* The largest double below -2^63: v > it means v >= -2^63. */
#define S64_LOWER_BOUND -9223372036854777856.0

/* libm's rounding functions hand a signalling NaN back unchanged; Wasm
 * wants an arithmetic NaN (quiet bit set), as every other operation gives. */
static inline float pvm_quiet_f32(float v)
{
    return isnan(v) ? pvm_f32_from_bits((uint32_t)pvm_f32_bits(v) | 0x00400000u) : v;
}

static inline double pvm_quiet_f64(double v)
{
    return isnan(v) ? pvm_f64_from_bits(pvm_f64_bits(v) | UINT64_C(0x0008000000000000)) : v;
}

static inline uint32_t num_rotl32(uint32_t v, unsigned n)
{
    n &= 31;
    return (v << n) | (v >> ((32 - n) & 31));
}

static inline uint64_t num_rotl64(uint64_t v, unsigned n)
{
    n &= 63;
    return (v << n) | (v >> ((64 - n) & 63));
}

/* Wasm's min and max: NaN if either operand is NaN, and -0 < +0. */
static inline float num_fmin32(float a, float b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    if (a == b) /* equal, or zeros of either sign: prefer the negative */
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static inline float num_fmax32(float a, float b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline double num_fmin64(double a, double b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

static inline double num_fmax64(double a, double b)
{
    if (isnan(a) || isnan(b))
        return a + b;
    if (a == b)
        return signbit(a) ? b : a;
    return a > b ? a : b;
}

/* Saturating truncation (every f32 is exactly a double). */
static inline int32_t num_sat_s32(double v)
{
    if (isnan(v))
        return 0;
    if (v <= -2147483648.0)
        return INT32_MIN;
    if (v >= 2147483647.0)
        return INT32_MAX;
    return (int32_t)v;
}

static inline uint32_t num_sat_u32(double v)
{
    if (isnan(v) || v <= -1.0)
        return 0;
    if (v >= 4294967295.0)
        return UINT32_MAX;
    return (uint32_t)v;
}

static inline int64_t num_sat_s64(double v)
{
    if (isnan(v))
        return 0;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    if (v >= 9223372036854775808.0)
        return INT64_MAX;
    return (int64_t)v;
}

static inline uint64_t num_sat_u64(double v)
{
    if (isnan(v) || v <= -1.0)
        return 0;
    if (v >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)v;
}

/* ---- code addresses and traps ----------------------------------------- */

/* Does an instruction of m start at code offset off?  On a little-endian
 * host bit k of byte k / 8 is bit k % 64 of word k / 64: one load and one
 * bit test. */
static inline bool pvm_is_insn_start(const pvm_module *m, uint64_t off)
{
    if (off >= m->code_size)
        return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t word;
    memcpy(&word, m->insn_starts + (off >> 6) * 8, sizeof word);
    return (word >> (off & 63)) & 1;
#else
    return (m->insn_starts[off >> 3] >> (off & 7)) & 1;
#endif
}

/* Record a trap raised by the instruction at pc; returns its kind.  The
 * empty asm hides that the result is the argument: a compiler that knows
 * it keeps the kind in a callee-saved register across the call instead of
 * making `return pvm_trap_at(...)` a tail call, and with tail-call
 * dispatch a handler such as ret then saves and restores that register on
 * every execution. */
__attribute__((noinline, cold)) static pvm_trap_kind
pvm_trap_at(pvm_vm *vm, const uint8_t *pc, pvm_trap_kind kind)
{
    size_t off = (size_t)(pc - vm->module->code);
    uint32_t func = pvm_vm_func_at(vm, off);
    vm->trap = kind;
    vm->trap_func = func;
    vm->trap_offset = (uint32_t)(off - vm->module->funcs[func].offset);
    __asm__("" : "+r"(kind));
    return kind;
}

/* ---- the run function, per dispatch mode ------------------------------ */

#include "vm_dispatch.h" /* last: it defines the short accessor names */

#if defined(PULLEY_DISPATCH_SWITCH)

static pvm_trap_kind run(pvm_vm *vm, const uint8_t *pc)
{
    uint64_t *const x = vm->x;
    uint64_t sp_ __attribute__((unused)) = vm->sp;
    uint8_t *heap = vm->memory->bytes;
    uint64_t heap_fast_end = HEAP_FAST_END(vm->memory->size);
    const uint64_t heap_base_ = vm->heap_base;
    HOOK_LOCALS
    PROFILE_RUN_START(pc);

dispatch_:;
    const unsigned op_ = pvm_opcode_at(pc); /* before the hooks (vm_dispatch.h) */
    HOOK_BEFORE(pc);
    switch (op_) {
#include "vm_ops.h"
    default: /* verified code has no invalid opcodes */
        TRAP(UNREACHABLE);
    }
}

#elif defined(PULLEY_DISPATCH_GOTO)

static pvm_trap_kind run(pvm_vm *vm, const uint8_t *pc)
{
    static const void *const primary_[256] = {
#define OP(name, format, flags, class, semantics) [PVM_OP_##name] = &&op_##name,
#include "opcodes.def"
        [PVM_OP_PRIMARY_END ... PVM_ESCAPE_BYTE - 1] = &&invalid_opcode_,
        [PVM_ESCAPE_BYTE] = &&escape_,
    };
    static const void *const extended_[PVM_OP_EXT_COUNT] = {
#define EXT(name, format, flags, class, semantics)                             \
    [PVM_OP_##name - PVM_OP_EXT_FIRST] = &&op_##name,
#include "opcodes.def"
    };
    uint64_t *const x = vm->x;
    uint64_t sp_ __attribute__((unused)) = vm->sp;
    uint8_t *heap = vm->memory->bytes;
    uint64_t heap_fast_end = HEAP_FAST_END(vm->memory->size);
    const uint64_t heap_base_ = vm->heap_base;
    HOOK_LOCALS

    PROFILE_RUN_START(pc);
    DISPATCH();
escape_: {
    unsigned ext = pvm_rd16(pc + 1);
    if (ext >= PVM_OP_EXT_COUNT)
        goto invalid_opcode_;
    goto *extended_[ext];
}
#include "vm_ops.h"
invalid_opcode_: /* verified code has no invalid opcodes */
    TRAP(UNREACHABLE);
}

#elif defined(PULLEY_DISPATCH_TAIL)

typedef pvm_trap_kind pvm_handler(HANDLER_PARAMS);

/* A row of opcodes.def without a body in vm_ops.h is a compile error. */
#pragma clang diagnostic error "-Wundefined-internal"
#define OP(name, format, flags, class, semantics) static pvm_handler op_##name;
#define EXT(name, format, flags, class, semantics) static pvm_handler op_##name;
#include "opcodes.def"
static pvm_handler escape_, invalid_opcode_;

static pvm_handler *const primary_[256] = {
#define OP(name, format, flags, class, semantics) [PVM_OP_##name] = op_##name,
#include "opcodes.def"
    [PVM_OP_PRIMARY_END ... PVM_ESCAPE_BYTE - 1] = invalid_opcode_,
    [PVM_ESCAPE_BYTE] = escape_,
};
static pvm_handler *const extended_[PVM_OP_EXT_COUNT] = {
#define EXT(name, format, flags, class, semantics)                             \
    [PVM_OP_##name - PVM_OP_EXT_FIRST] = op_##name,
#include "opcodes.def"
};

#include "vm_ops.h"

static pvm_trap_kind escape_(HANDLER_PARAMS)
{
    unsigned ext = pvm_rd16(pc + 1);
    if (ext >= PVM_OP_EXT_COUNT)
        TAIL_CALL(invalid_opcode_);
    TAIL_CALL(extended_[ext]);
}

static pvm_trap_kind invalid_opcode_(HANDLER_PARAMS)
{
    TRAP(UNREACHABLE); /* verified code has no invalid opcodes */
}

static pvm_trap_kind run(pvm_vm *vm, const uint8_t *pc)
{
    uint64_t sp_ = vm->sp;
    uint8_t *heap = vm->heap_bytes = vm->memory->bytes;
    uint64_t heap_fast_end = HEAP_FAST_END(vm->memory->size);
    HOOK_LOCALS

    PROFILE_RUN_START(pc);
    HOOK_BEFORE(pc);
    return primary_[*pc](HANDLER_ARGS);
}

#endif

/* ---- entry from the embedder ------------------------------------------ */

/* The stub of a function not yet translated trapped where the function
 * was called (lazy.h): translate it and go on at its code, which is then
 * where the call went; the VM's state is the call's.  A function that
 * cannot be translated traps as a host error (pvm_lazy_error says why). */
__attribute__((noinline, cold)) static pvm_trap_kind translate_and_go_on(pvm_vm *vm)
{
    const pvm_module *m = vm->module;
    uint32_t func = vm->trap_func;
    if (pvm_lazy_materialize(m, func, NULL) != 0) {
        vm->trap = PVM_TRAP_HOST_ERROR;
        return PVM_TRAP_HOST_ERROR;
    }
    vm->trap = PVM_TRAP_NONE;
    return run(vm, m->code + m->funcs[func].offset);
}

pvm_trap_kind pvm_vm_call(pvm_vm *vm, uint32_t func)
{
    const pvm_module *m = vm->module;
    if (func >= m->nfuncs) {
        vm->trap = PVM_TRAP_BAD_CALL;
        vm->trap_func = func;
        vm->trap_offset = 0;
        return PVM_TRAP_BAD_CALL;
    }
    uint64_t sp = vm->sp, fp = vm->fp, lr = vm->lr;
    if (vm->depth == 0)
        vm->sp = vm->fp = vm->stack_size;
    vm->lr = 0;
    vm->trap = PVM_TRAP_NONE;
    if (m->heap_reg != PVM_NO_HEAP_REG)
        vm->x[m->heap_reg] = vm->heap_base;
    vm->depth++;
    pvm_trap_kind kind = run(vm, m->code + m->funcs[func].offset);
    while (UNLIKELY(kind == PVM_TRAP_UNREACHABLE) && pvm_lazy_pending(m, vm->trap_func))
        kind = translate_and_go_on(vm);
    vm->depth--;
    if (vm->depth > 0) { /* back to a host function called from bytecode */
        vm->sp = sp;
        vm->fp = fp;
        vm->lr = lr;
    }
    return kind;
}
