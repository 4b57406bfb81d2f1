/*
 * test_semantics.c - what every opcode computes, as tables of cases.
 *
 * Register and float ops run as one instruction "op a, b, c, d" followed by
 * ret, with a = x30/f30 (poisoned beforehand), b = 31, c = 1, d = 17, so
 * operand decoding is exercised at the edges of the register pack.  Memory
 * ops run against a heap with known bytes; control, frame, heap, reference,
 * global and table ops run as small programs.  The last test walks the
 * opcode table and fails for any opcode without a case.
 */
#include "test_vm_util.h"

#include <math.h>

/* ---- values: integers, floats, and "any NaN" -------------------------- */

typedef enum { V_BITS, V_F32, V_F64, V_NAN32, V_NAN64, V_QNAN32, V_QNAN64 } vkind;

typedef struct tval {
    vkind kind;
    union {
        uint64_t u; /* V_BITS: the register's 64 bits */
        double d;   /* V_F32, V_F64: the value (exact in its type) */
    };
} tval;

#define U(v) {.kind = V_BITS, .u = (uint64_t)(v)}
#define S(v) U((int64_t)(v)) /* a negative integer, sign-extended */
#define F32(v) {.kind = V_F32, .d = (v)}
#define F64(v) {.kind = V_F64, .d = (v)}
#define ANY_NAN32 {.kind = V_NAN32}
#define ANY_NAN64 {.kind = V_NAN64}
/* Wasm's "arithmetic NaN": any NaN with the quiet bit set. */
#define QUIET_NAN32 {.kind = V_QNAN32}
#define QUIET_NAN64 {.kind = V_QNAN64}
/* Signalling NaNs (quiet bit clear), as register bits. */
#define SNAN32 U(0x7fa00000)
#define SNAN64 U(0x7ff4000000000000)

#define POISON UINT64_C(0xa5a5a5a5a5a5a5a5)

static uint64_t bits_of(tval v)
{
    switch (v.kind) {
    case V_F32: return pvm_f32_bits((float)v.d);
    case V_F64: return pvm_f64_bits(v.d);
    default: return v.u;
    }
}

static bool matches(tval want, uint64_t got)
{
    float f;
    double d;
    uint32_t low = (uint32_t)got;
    memcpy(&f, &low, sizeof f);
    memcpy(&d, &got, sizeof d);
    switch (want.kind) {
    case V_NAN32: return got >> 32 == 0 && isnan(f);
    case V_NAN64: return isnan(d);
    case V_QNAN32: return got >> 32 == 0 && isnan(f) && (low & 0x00400000u);
    case V_QNAN64: return isnan(d) && (got & UINT64_C(0x0008000000000000));
    default: return got == bits_of(want);
    }
}

/* ---- one-instruction cases -------------------------------------------- */

typedef struct sem_case {
    uint16_t op;
    tval in[3];          /* operands b, c, d: x values or f bits */
    int64_t imm;
    tval out;            /* operand a afterwards */
    pvm_trap_kind trap;  /* or the trap it raises (a is left alone) */
    int line;
} sem_case;

#define C1(op, b, r) {PVM_OP_##op, {b}, 0, r, PVM_TRAP_NONE, __LINE__}
#define C2(op, b, c, r) {PVM_OP_##op, {b, c}, 0, r, PVM_TRAP_NONE, __LINE__}
#define C3(op, b, c, d, r) {PVM_OP_##op, {b, c, d}, 0, r, PVM_TRAP_NONE, __LINE__}
#define CI(op, imm, r) {PVM_OP_##op, {U(0)}, (int64_t)(imm), r, PVM_TRAP_NONE, __LINE__}
#define T1(op, b, t) {PVM_OP_##op, {b}, 0, U(0), PVM_TRAP_##t, __LINE__}
#define T2(op, b, c, t) {PVM_OP_##op, {b, c}, 0, U(0), PVM_TRAP_##t, __LINE__}
#define X1(op, b, r) C1(op, U(b), U(r))
#define X2(op, b, c, r) C2(op, U(b), U(c), U(r))
#define X3(op, b, c, d, r) C3(op, U(b), U(c), U(d), U(r))
/* x[a] = x[b] OP imm */
#define XI(op, b, imm, r) {PVM_OP_##op, {U(b)}, (int64_t)(imm), U(r), PVM_TRAP_NONE, __LINE__}

#define I32_MIN 0x80000000u
#define I64_MIN UINT64_C(0x8000000000000000)
#define HI UINT64_C(0xdeadbeef00000000) /* junk that 32-bit ops must ignore */
#define P2_31 2147483648.0
#define P2_32 4294967296.0
#define P2_63 9223372036854775808.0
#define P2_64 18446744073709551616.0

static const sem_case sem_cases[] = {
    /* constants and moves */
    CI(xconst8, -1, S(-1)), CI(xconst8, 127, U(127)),
    CI(xconst16, -32768, S(-32768)), CI(xconst16, 32767, U(32767)),
    CI(xconst32, INT32_MIN, S(INT32_MIN)), CI(xconst32, INT32_MAX, U(INT32_MAX)),
    CI(xconst64, 0x123456789abcdef0, U(0x123456789abcdef0)),
    CI(fconst32, 0x3fc00000, F32(1.5)), CI(fconst32, 0x7f800001, U(0x7f800001)),
    CI(fconst64, 0xbff8000000000000, F64(-1.5)),
    CI(fconst64, 0x7ff0000000000001, U(0x7ff0000000000001)),
    X1(xmov, 0xfedcba9876543210, 0xfedcba9876543210),
    C1(fmov, U(0x7f800001), U(0x7f800001)), C1(fmov, F64(-0.0), F64(-0.0)),
    X3(xselect, 1, 10, 20, 10), X3(xselect, 0, 10, 20, 20),
    X3(xselect, 0x100000000, 10, 20, 20), /* the condition is x[b].32 */
    C3(fselect, U(HI | 1), U(0x7f800001), F64(2.0), U(0x7f800001)),
    C3(fselect, U(HI), F64(1.0), F64(-0.0), F64(-0.0)),

    /* integer arithmetic: 32-bit ops ignore the upper halves and clear them */
    X2(xadd32, 0xffffffff, 1, 0), X2(xadd32, HI | 2, HI | 3, 5),
    X2(xadd64, UINT64_MAX, 2, 1),
    X2(xsub32, 0, 1, 0xffffffff), X2(xsub64, 0, 1, UINT64_MAX),
    X2(xmul32, 0x10000, 0x10000, 0), X2(xmul32, 0xffffffff, 0xffffffff, 1),
    X2(xmul64, I64_MIN, 2, 0), X2(xmul64, UINT64_MAX, UINT64_MAX, 1),
    X2(xdiv32_s, -7, 2, 0xfffffffd), X2(xdiv32_s, 7, -2, 0xfffffffd),
    X2(xdiv32_s, HI | 7, 2, 3), X2(xdiv32_s, I32_MIN, 1, I32_MIN),
    T2(xdiv32_s, U(I32_MIN), S(-1), INT_OVERFLOW), T2(xdiv32_s, U(5), U(HI), DIV_BY_ZERO),
    X2(xdiv32_u, 0xffffffff, 2, 0x7fffffff), X2(xdiv32_u, I32_MIN, -1, 0),
    T2(xdiv32_u, U(1), U(0x100000000), DIV_BY_ZERO),
    X2(xrem32_s, -7, 2, 0xffffffff), X2(xrem32_s, 7, -2, 1),
    X2(xrem32_s, I32_MIN, -1, 0), T2(xrem32_s, U(1), U(0), DIV_BY_ZERO),
    X2(xrem32_u, 0xffffffff, 10, 5), T2(xrem32_u, U(1), U(HI), DIV_BY_ZERO),
    X2(xdiv64_s, -7, 2, -3), X2(xdiv64_s, I64_MIN, 1, I64_MIN),
    T2(xdiv64_s, U(I64_MIN), S(-1), INT_OVERFLOW), T2(xdiv64_s, U(1), U(0), DIV_BY_ZERO),
    X2(xdiv64_u, UINT64_MAX, 2, INT64_MAX), T2(xdiv64_u, U(1), U(0), DIV_BY_ZERO),
    X2(xrem64_s, -7, 2, -1), X2(xrem64_s, I64_MIN, -1, 0),
    T2(xrem64_s, U(1), U(0), DIV_BY_ZERO),
    X2(xrem64_u, UINT64_MAX, 10, 5), T2(xrem64_u, U(1), U(0), DIV_BY_ZERO),

    /* bitwise */
    X2(xband32, HI | 0xff00ff, 0xffff, 0xff), X2(xband64, HI | 3, HI | 6, HI | 2),
    X2(xbor32, HI | 1, 2, 3), X2(xbor64, HI, 1, HI | 1),
    X2(xbxor32, HI | 3, 5, 6), X2(xbxor64, UINT64_MAX, 1, UINT64_MAX - 1),

    /* shifts and rotates: the count is masked to the width */
    X2(xshl32, 1, 31, I32_MIN), X2(xshl32, 1, 32, 1), X2(xshl32, 1, 33, 2),
    X2(xshl32, HI | 0x80000001, HI | 1, 2),
    X2(xshl64, 1, 63, I64_MIN), X2(xshl64, 1, 64, 1), X2(xshl64, 3, 65, 6),
    X2(xshr32_s, I32_MIN, 31, 0xffffffff), X2(xshr32_s, I32_MIN, 32, I32_MIN),
    X2(xshr32_s, 0x40000000, 30, 1),
    X2(xshr32_u, I32_MIN, 31, 1), X2(xshr32_u, HI | 0x10, 4, 1),
    X2(xshr32_u, I32_MIN, 32, I32_MIN),
    X2(xshr64_s, I64_MIN, 63, UINT64_MAX), X2(xshr64_s, I64_MIN, 64, I64_MIN),
    X2(xshr64_u, I64_MIN, 63, 1), X2(xshr64_u, I64_MIN, 127, 1),
    X2(xrotl32, 0x80000001, 1, 3), X2(xrotl32, HI | 0x12345678, 32, 0x12345678),
    X2(xrotl32, 0x12345678, 0, 0x12345678), X2(xrotl32, 0x12345678, 36, 0x23456781),
    X2(xrotl64, I64_MIN | 1, 1, 3), X2(xrotl64, 0x0123456789abcdef, 64, 0x0123456789abcdef),
    X2(xrotl64, 0x0123456789abcdef, 4, 0x123456789abcdef0),
    X2(xrotr32, 1, 1, I32_MIN), X2(xrotr32, 0x12345678, 36, 0x81234567),
    X2(xrotr32, 0x12345678, 0, 0x12345678),
    X2(xrotr64, 1, 1, I64_MIN), X2(xrotr64, 0x0123456789abcdef, 68, 0xf0123456789abcde),

    /* bit counts: of 0 they are the width */
    X1(xclz32, 0, 32), X1(xclz32, 1, 31), X1(xclz32, HI, 32), X1(xclz32, I32_MIN, 0),
    X1(xclz64, 0, 64), X1(xclz64, 1, 63), X1(xclz64, I64_MIN, 0),
    X1(xctz32, 0, 32), X1(xctz32, I32_MIN, 31), X1(xctz32, HI, 32),
    X1(xctz64, 0, 64), X1(xctz64, I64_MIN, 63), X1(xctz64, 1, 0),
    X1(xpopcnt32, UINT64_MAX, 32), X1(xpopcnt32, 0, 0),
    X1(xpopcnt64, UINT64_MAX, 64), X1(xpopcnt64, HI, 24),

    /* integer comparisons */
    X2(xeq32, HI | 5, 5, 1), X2(xeq32, 5, 6, 0), X2(xeq64, HI | 5, 5, 0), X2(xeq64, 7, 7, 1),
    X2(xne32, HI | 5, 5, 0), X2(xne32, 5, 6, 1), X2(xne64, HI | 5, 5, 1), X2(xne64, 7, 7, 0),
    X2(xlt32_s, 0xffffffff, 0, 1), X2(xlt32_s, 0, 0xffffffff, 0), X2(xlt32_s, 3, 3, 0),
    X2(xlt32_u, 0xffffffff, 0, 0), X2(xlt32_u, HI, 1, 1),
    X2(xlt64_s, I64_MIN, 0, 1), X2(xlt64_s, 0, UINT64_MAX, 0),
    X2(xlt64_u, I64_MIN, 0, 0), X2(xlt64_u, 0, UINT64_MAX, 1),
    X2(xle32_s, 0xffffffff, 0xffffffff, 1), X2(xle32_s, 1, 0xffffffff, 0),
    X2(xle32_u, 0xffffffff, 0xffffffff, 1), X2(xle32_u, 0xffffffff, 1, 0),
    X2(xle64_s, UINT64_MAX, 0, 1), X2(xle64_s, 0, UINT64_MAX, 0), X2(xle64_s, 4, 4, 1),
    X2(xle64_u, UINT64_MAX, 0, 0), X2(xle64_u, 4, 4, 1),
    X1(xeqz32, HI, 1), X1(xeqz32, 1, 0), X1(xeqz64, HI, 0), X1(xeqz64, 0, 1),

    /* sign and zero extension */
    X1(xsext8_32, 0x80, 0xffffff80), X1(xsext8_32, HI | 0x7f, 0x7f),
    X1(xsext16_32, 0x8000, 0xffff8000), X1(xsext16_32, 0x17fff, 0x7fff),
    X1(xsext8_64, 0x180, -128), X1(xsext16_64, 0x8000, -32768),
    X1(xsext32_64, I32_MIN, -2147483648), X1(xsext32_64, HI | 0x7fffffff, 0x7fffffff),
    X1(xzext8, UINT64_MAX, 0xff), X1(xzext16, UINT64_MAX, 0xffff),
    X1(xzext32, UINT64_MAX, 0xffffffff),

    /* float arithmetic; f32 ops read the low half and clear the upper one */
    C2(fadd32, F32(1.5), F32(2.25), F32(3.75)), C2(fadd32, U(HI | 0x3fc00000), F32(1), F32(2.5)),
    C2(fadd32, F32(NAN), F32(1), ANY_NAN32), C2(fadd32, F32(INFINITY), F32(-INFINITY), ANY_NAN32),
    C2(fadd32, F32(-0.0), F32(-0.0), F32(-0.0)), C2(fadd32, F32(-0.0), F32(0.0), F32(0.0)),
    C2(fadd64, F64(0.1), F64(0.2), F64(0.1 + 0.2)), C2(fadd64, F64(1), F64(NAN), ANY_NAN64),
    C2(fsub32, F32(1), F32(3), F32(-2)), C2(fsub32, F32(0.0), F32(0.0), F32(0.0)),
    C2(fsub64, F64(1e308), F64(-1e308), F64(INFINITY)), C2(fsub64, F64(INFINITY), F64(INFINITY), ANY_NAN64),
    C2(fmul32, F32(-2), F32(0.0), F32(-0.0)), C2(fmul32, F32(INFINITY), F32(0.0), ANY_NAN32),
    C2(fmul64, F64(1.5), F64(-4), F64(-6)), C2(fmul64, F64(1e300), F64(1e300), F64(INFINITY)),
    C2(fdiv32, F32(1), F32(0.0), F32(INFINITY)), C2(fdiv32, F32(1), F32(-0.0), F32(-INFINITY)),
    C2(fdiv32, F32(0.0), F32(0.0), ANY_NAN32), C2(fdiv32, F32(7), F32(2), F32(3.5)),
    C2(fdiv64, F64(-1), F64(0.0), F64(-INFINITY)), C2(fdiv64, F64(1), F64(3), F64(1.0 / 3)),

    /* min and max: NaN wins, -0 < +0 */
    C2(fmin32, F32(1), F32(2), F32(1)), C2(fmin32, F32(-0.0), F32(0.0), F32(-0.0)),
    C2(fmin32, F32(0.0), F32(-0.0), F32(-0.0)), C2(fmin32, F32(NAN), F32(1), ANY_NAN32),
    C2(fmin32, F32(1), F32(NAN), ANY_NAN32), C2(fmin32, F32(-INFINITY), F32(1), F32(-INFINITY)),
    C2(fmin64, F64(-1), F64(2), F64(-1)), C2(fmin64, F64(0.0), F64(-0.0), F64(-0.0)),
    C2(fmin64, F64(1), F64(NAN), ANY_NAN64),
    C2(fmax32, F32(1), F32(2), F32(2)), C2(fmax32, F32(-0.0), F32(0.0), F32(0.0)),
    C2(fmax32, F32(0.0), F32(-0.0), F32(0.0)), C2(fmax32, F32(1), F32(NAN), ANY_NAN32),
    C2(fmax64, F64(-0.0), F64(0.0), F64(0.0)), C2(fmax64, F64(NAN), F64(1), ANY_NAN64),
    C2(fmax64, F64(INFINITY), F64(1), F64(INFINITY)), C2(fmax64, F64(-0.0), F64(-0.0), F64(-0.0)),

    /* sign operations touch only the sign bit, NaN payloads included */
    C1(fabs32, F32(-1.5), F32(1.5)), C1(fabs32, U(0xffc00001), U(0x7fc00001)),
    C1(fabs32, F32(-0.0), F32(0.0)), C1(fabs32, U(HI | 0xbf800000), F32(1)),
    C1(fabs64, F64(-0.0), F64(0.0)), C1(fabs64, U(0xfff0000000000001), U(0x7ff0000000000001)),
    C1(fneg32, F32(0.0), F32(-0.0)), C1(fneg32, U(0x7fc00001), U(0xffc00001)),
    C1(fneg32, F32(-INFINITY), F32(INFINITY)),
    C1(fneg64, F64(1.5), F64(-1.5)), C1(fneg64, U(0x7ff8000000000001), U(0xfff8000000000001)),

    /* float comparisons: unordered is false, except for != */
    C2(feq32, F32(1), F32(1), U(1)), C2(feq32, F32(NAN), F32(NAN), U(0)),
    C2(feq32, F32(-0.0), F32(0.0), U(1)), C2(feq64, F64(NAN), F64(1), U(0)),
    C2(feq64, F64(2), F64(2), U(1)),
    C2(fne32, F32(NAN), F32(NAN), U(1)), C2(fne32, F32(1), F32(1), U(0)),
    C2(fne64, F64(1), F64(NAN), U(1)), C2(fne64, F64(-0.0), F64(0.0), U(0)),
    C2(flt32, F32(1), F32(2), U(1)), C2(flt32, F32(NAN), F32(2), U(0)),
    C2(flt32, F32(-0.0), F32(0.0), U(0)), C2(flt64, F64(-INFINITY), F64(-1e308), U(1)),
    C2(flt64, F64(1), F64(NAN), U(0)),
    C2(fle32, F32(2), F32(2), U(1)), C2(fle32, F32(NAN), F32(NAN), U(0)),
    C2(fle32, F32(-0.0), F32(0.0), U(1)), C2(fle64, F64(3), F64(2), U(0)),
    C2(fle64, F64(NAN), F64(1), U(0)),

    /* rounding and roots */
    C1(fsqrt32, F32(4), F32(2)), C1(fsqrt32, F32(-1), ANY_NAN32), C1(fsqrt32, F32(-0.0), F32(-0.0)),
    C1(fsqrt64, F64(2), F64(1.4142135623730951)), C1(fsqrt64, F64(-INFINITY), ANY_NAN64),
    C1(fceil32, F32(-0.5), F32(-0.0)), C1(fceil32, F32(1.25), F32(2)), C1(fceil32, F32(NAN), ANY_NAN32),
    C1(fceil64, F64(-1.5), F64(-1)), C1(fceil64, F64(INFINITY), F64(INFINITY)),
    C1(ffloor32, F32(-0.5), F32(-1)), C1(ffloor32, F32(0.5), F32(0.0)),
    C1(ffloor64, F64(-0.0), F64(-0.0)), C1(ffloor64, F64(2.999), F64(2)),
    C1(ftrunc32, F32(-0.7), F32(-0.0)), C1(ftrunc32, F32(2.7), F32(2)),
    C1(ftrunc64, F64(-2.7), F64(-2)), C1(ftrunc64, F64(NAN), ANY_NAN64),
    /* rounding a signalling NaN gives a quiet one */
    C1(fceil32, SNAN32, QUIET_NAN32), C1(ffloor32, SNAN32, QUIET_NAN32), C1(ftrunc32, SNAN32, QUIET_NAN32),
    C1(fceil64, SNAN64, QUIET_NAN64), C1(ffloor64, SNAN64, QUIET_NAN64), C1(ftrunc64, SNAN64, QUIET_NAN64),
    C1(fnearest32, F32(0.5), F32(0.0)), C1(fnearest32, F32(1.5), F32(2)),
    C1(fnearest32, F32(2.5), F32(2)), C1(fnearest32, F32(-0.5), F32(-0.0)),
    C1(fnearest32, F32(-1.5), F32(-2)), C1(fnearest32, F32(8388609), F32(8388609)),
    C1(fnearest32, F32(NAN), ANY_NAN32),
    C1(fnearest64, F64(0.5), F64(0.0)), C1(fnearest64, F64(1.5), F64(2)),
    C1(fnearest64, F64(2.5), F64(2)), C1(fnearest64, F64(-0.5), F64(-0.0)),
    C1(fnearest64, F64(-2.5), F64(-2)), C1(fnearest64, F64(4503599627370497.0), F64(4503599627370497.0)),
    C1(fnearest64, F64(-INFINITY), F64(-INFINITY)),
    C2(fcopysign32, F32(1.5), F32(-0.0), F32(-1.5)), C2(fcopysign32, F32(-1.5), F32(2), F32(1.5)),
    C2(fcopysign32, U(0x7fc00001), U(0xffc00000), U(0xffc00001)),
    C2(fcopysign64, F64(1), F64(-INFINITY), F64(-1)),
    C2(fcopysign64, U(0xfff8000000000001), F64(0.0), U(0x7ff8000000000001)),

    /* float -> int, trapping: NaN -> BAD_CONVERSION, out of range -> INT_OVERFLOW */
    C1(x32_from_f32_s, F32(-1.9), U(0xffffffff)), C1(x32_from_f32_s, F32(2147483520.0), U(0x7fffff80)),
    C1(x32_from_f32_s, F32(-P2_31), U(I32_MIN)), C1(x32_from_f32_s, F32(-0.9), U(0)),
    T1(x32_from_f32_s, F32(P2_31), INT_OVERFLOW), T1(x32_from_f32_s, F32(-2147483904.0), INT_OVERFLOW),
    T1(x32_from_f32_s, F32(NAN), BAD_CONVERSION), T1(x32_from_f32_s, F32(-INFINITY), INT_OVERFLOW),
    C1(x32_from_f32_u, F32(-0.9), U(0)), C1(x32_from_f32_u, F32(4294967040.0), U(0xffffff00)),
    T1(x32_from_f32_u, F32(P2_32), INT_OVERFLOW), T1(x32_from_f32_u, F32(-1), INT_OVERFLOW),
    T1(x32_from_f32_u, F32(-NAN), BAD_CONVERSION),
    C1(x32_from_f64_s, F64(2147483647.0), U(0x7fffffff)), C1(x32_from_f64_s, F64(2147483647.9), U(0x7fffffff)),
    C1(x32_from_f64_s, F64(-2147483648.0), U(I32_MIN)), C1(x32_from_f64_s, F64(-2147483648.9), U(I32_MIN)),
    C1(x32_from_f64_s, F64(-1.5), U(0xffffffff)),
    T1(x32_from_f64_s, F64(P2_31), INT_OVERFLOW), T1(x32_from_f64_s, F64(-2147483649.0), INT_OVERFLOW),
    T1(x32_from_f64_s, F64(NAN), BAD_CONVERSION), T1(x32_from_f64_s, F64(INFINITY), INT_OVERFLOW),
    C1(x32_from_f64_u, F64(4294967295.0), U(0xffffffff)), C1(x32_from_f64_u, F64(4294967295.9), U(0xffffffff)),
    C1(x32_from_f64_u, F64(-0.9), U(0)), C1(x32_from_f64_u, F64(-0.0), U(0)),
    T1(x32_from_f64_u, F64(P2_32), INT_OVERFLOW), T1(x32_from_f64_u, F64(-1), INT_OVERFLOW),
    T1(x32_from_f64_u, F64(NAN), BAD_CONVERSION),
    C1(x64_from_f32_s, F32(9223371487098961920.0), U(0x7fffff8000000000)),
    C1(x64_from_f32_s, F32(-P2_63), U(I64_MIN)), C1(x64_from_f32_s, F32(-1.5), S(-1)),
    T1(x64_from_f32_s, F32(P2_63), INT_OVERFLOW), T1(x64_from_f32_s, F32(-9223373136366403584.0), INT_OVERFLOW),
    T1(x64_from_f32_s, F32(NAN), BAD_CONVERSION),
    C1(x64_from_f32_u, F32(18446742974197923840.0), U(0xffffff0000000000)), C1(x64_from_f32_u, F32(-0.9), U(0)),
    T1(x64_from_f32_u, F32(P2_64), INT_OVERFLOW), T1(x64_from_f32_u, F32(-1), INT_OVERFLOW),
    T1(x64_from_f32_u, F32(NAN), BAD_CONVERSION),
    C1(x64_from_f64_s, F64(9223372036854774784.0), U(0x7ffffffffffffc00)),
    C1(x64_from_f64_s, F64(-P2_63), U(I64_MIN)), C1(x64_from_f64_s, F64(-0.9), U(0)),
    T1(x64_from_f64_s, F64(P2_63), INT_OVERFLOW), T1(x64_from_f64_s, F64(-9223372036854777856.0), INT_OVERFLOW),
    T1(x64_from_f64_s, F64(NAN), BAD_CONVERSION),
    C1(x64_from_f64_u, F64(18446744073709549568.0), U(0xfffffffffffff800)), C1(x64_from_f64_u, F64(-0.9), U(0)),
    T1(x64_from_f64_u, F64(P2_64), INT_OVERFLOW), T1(x64_from_f64_u, F64(-1), INT_OVERFLOW),
    T1(x64_from_f64_u, F64(NAN), BAD_CONVERSION),

    /* float -> int, saturating: NaN -> 0, out of range -> the nearest bound */
    C1(x32_from_f32_s_sat, F32(NAN), U(0)), C1(x32_from_f32_s_sat, F32(P2_31), U(0x7fffffff)),
    C1(x32_from_f32_s_sat, F32(-INFINITY), U(I32_MIN)), C1(x32_from_f32_s_sat, F32(-1.5), U(0xffffffff)),
    C1(x32_from_f32_u_sat, F32(-1), U(0)), C1(x32_from_f32_u_sat, F32(P2_32), U(0xffffffff)),
    C1(x32_from_f32_u_sat, F32(NAN), U(0)), C1(x32_from_f32_u_sat, F32(2.9), U(2)),
    C1(x32_from_f64_s_sat, F64(2147483647.0), U(0x7fffffff)), C1(x32_from_f64_s_sat, F64(P2_31), U(0x7fffffff)),
    C1(x32_from_f64_s_sat, F64(-2147483649.0), U(I32_MIN)), C1(x32_from_f64_s_sat, F64(-2147483648.9), U(I32_MIN)),
    C1(x32_from_f64_s_sat, F64(-NAN), U(0)),
    C1(x32_from_f64_u_sat, F64(-0.9), U(0)), C1(x32_from_f64_u_sat, F64(4294967295.9), U(0xffffffff)),
    C1(x32_from_f64_u_sat, F64(1e300), U(0xffffffff)), C1(x32_from_f64_u_sat, F64(-INFINITY), U(0)),
    C1(x64_from_f32_s_sat, F32(P2_63), U(INT64_MAX)), C1(x64_from_f32_s_sat, F32(-INFINITY), U(I64_MIN)),
    C1(x64_from_f32_s_sat, F32(NAN), U(0)), C1(x64_from_f32_s_sat, F32(-P2_63), U(I64_MIN)),
    C1(x64_from_f32_u_sat, F32(P2_64), U(UINT64_MAX)), C1(x64_from_f32_u_sat, F32(-5), U(0)),
    C1(x64_from_f32_u_sat, F32(NAN), U(0)),
    C1(x64_from_f64_s_sat, F64(P2_63), U(INT64_MAX)), C1(x64_from_f64_s_sat, F64(-1e300), U(I64_MIN)),
    C1(x64_from_f64_s_sat, F64(9223372036854774784.0), U(0x7ffffffffffffc00)),
    C1(x64_from_f64_s_sat, F64(NAN), U(0)),
    C1(x64_from_f64_u_sat, F64(P2_64), U(UINT64_MAX)), C1(x64_from_f64_u_sat, F64(-0.9), U(0)),
    C1(x64_from_f64_u_sat, F64(18446744073709549568.0), U(0xfffffffffffff800)),
    C1(x64_from_f64_u_sat, F64(NAN), U(0)),

    /* a constant operand: an s32, sign-extended for 64-bit ops; 32-bit
     * ops ignore the upper half of x[b] and clear that of x[a] */
    XI(xadd32_imm, HI | 0xffffffff, 2, 1), XI(xadd32_imm, 5, -7, 0xfffffffe),
    XI(xadd64_imm, 5, -7, -2), XI(xadd64_imm, 0xffffffff, 1, 0x100000000),
    XI(xmul32_imm, HI | 3, -1, 0xfffffffd), XI(xmul64_imm, 3, -1, -3),
    XI(xband32_imm, HI | 0xabcd, -16, 0xabc0), XI(xband64_imm, UINT64_MAX, -2, UINT64_MAX - 1),
    XI(xband64_imm, HI | 0xff, 0x0f, 0x0f),
    XI(xbor32_imm, HI | 1, INT32_MIN, 0x80000001), XI(xbor64_imm, 1, INT32_MIN, 0xffffffff80000001),
    XI(xbxor32_imm, HI | 3, -1, 0xfffffffc), XI(xbxor64_imm, 3, -1, -4),
    XI(xshl32_imm, HI | 1, 31, I32_MIN), XI(xshl32_imm, 1, 33, 2), XI(xshl64_imm, 1, 63, I64_MIN),
    XI(xshl64_imm, 1, 65, 2),
    XI(xshr32_s_imm, HI | I32_MIN, 31, 0xffffffff), XI(xshr32_s_imm, I32_MIN, 32, I32_MIN),
    XI(xshr32_u_imm, HI | I32_MIN, 31, 1), XI(xshr64_s_imm, I64_MIN, 63, UINT64_MAX),
    XI(xshr64_u_imm, I64_MIN, 63, 1), XI(xshr64_u_imm, I64_MIN, 64, I64_MIN),
    XI(xrotl32_imm, HI | 0x80000001, 1, 3), XI(xrotl32_imm, 0x12345678, 36, 0x23456781),
    XI(xrotl64_imm, I64_MIN | 1, 1, 3), XI(xrotl64_imm, 1, -1, I64_MIN),
    XI(xeq32_imm, HI | 0xffffffff, -1, 1), XI(xeq32_imm, 1, 2, 0),
    XI(xeq64_imm, UINT64_MAX, -1, 1), XI(xeq64_imm, 0xffffffff, -1, 0),
    XI(xne32_imm, HI | 5, 5, 0), XI(xne64_imm, HI | 5, 5, 1),
    XI(xlt32_s_imm, HI | 0xffffffff, 0, 1), XI(xlt32_s_imm, 0, INT32_MIN, 0),
    XI(xlt32_u_imm, HI | 5, -1, 1), XI(xlt32_u_imm, 0xffffffff, 7, 0),
    XI(xlt64_s_imm, -9, -8, 1), XI(xlt64_s_imm, 0xffffffff, 0, 0),
    XI(xlt64_u_imm, 0xffffffff, -1, 1), XI(xlt64_u_imm, UINT64_MAX, -1, 0),
    XI(xgt32_s_imm, HI | 1, -1, 1), XI(xgt32_s_imm, I32_MIN, INT32_MAX, 0),
    XI(xgt32_u_imm, HI | 0xffffffff, -2, 1), XI(xgt32_u_imm, 5, 5, 0),
    XI(xgt64_s_imm, 0, -1, 1), XI(xgt64_s_imm, I64_MIN, INT32_MIN, 0),
    XI(xgt64_u_imm, UINT64_MAX, -2, 1), XI(xgt64_u_imm, 0x100000000, -1, 0),

    /* int -> float, rounded to nearest, ties to even */
    C1(f32_from_x32_s, U(HI | 0xffffffff), F32(-1)), C1(f32_from_x32_s, U(16777217), F32(16777216)),
    C1(f32_from_x32_u, U(0xffffffff), F32(P2_32)), C1(f32_from_x32_u, U(16777219), F32(16777220)),
    C1(f32_from_x64_s, U(I64_MIN), F32(-P2_63)), C1(f32_from_x64_s, S(-3), F32(-3)),
    C1(f32_from_x64_u, U(UINT64_MAX), F32(P2_64)),
    C1(f32_from_x64_u, U(0x8000008000000000), F32(P2_63)),             /* a tie: to even */
    C1(f32_from_x64_u, U(0x8000008000000001), F32(9223373136366403584.0)), /* above it: up */
    C1(f64_from_x32_s, U(I32_MIN), F64(-P2_31)), C1(f64_from_x32_s, U(HI | 5), F64(5)),
    C1(f64_from_x32_u, U(HI | 0xffffffff), F64(4294967295.0)),
    C1(f64_from_x64_s, U(0x20000000000001), F64(9007199254740992.0)), C1(f64_from_x64_s, S(-1), F64(-1)),
    C1(f64_from_x64_u, U(UINT64_MAX), F64(P2_64)), C1(f64_from_x64_u, U(I64_MIN), F64(P2_63)),
    C1(f32_from_f64, F64(1e40), F32(INFINITY)), C1(f32_from_f64, F64(-0.0), F32(-0.0)),
    C1(f32_from_f64, F64(1.0 + 0x1p-24), F32(1)), /* a tie: to even */
    C1(f32_from_f64, F64(NAN), ANY_NAN32), C1(f32_from_f64, F64(0.1), F32(0.1)),
    C1(f64_from_f32, F32(1.5), F64(1.5)), C1(f64_from_f32, F32(-INFINITY), F64(-INFINITY)),
    C1(f64_from_f32, U(HI | 0x3f800000), F64(1)), C1(f64_from_f32, F32(NAN), ANY_NAN64),

    /* reinterpretation keeps every bit */
    C1(xbits_from_f32, U(HI | 0x7fc00001), U(0x7fc00001)), C1(xbits_from_f32, F32(-0.0), U(0x80000000)),
    C1(xbits_from_f64, U(0xfff0000000000001), U(0xfff0000000000001)),
    C1(f32_from_xbits, U(0x123456789abcdef0), U(0x9abcdef0)),
    C1(f32_from_xbits, U(0x7f800001), U(0x7f800001)),
    C1(f64_from_xbits, U(0x7ff0000000000001), U(0x7ff0000000000001)),
};

/* Registers used for operands a, b, c, d. */
static const uint8_t R[4] = {30, 31, 1, 17};

static uint64_t *reg(pvm_vm *vm, const pvm_format_info *fmt, unsigned i)
{
    return fmt->reg[i] == PVM_REG_F ? &vm->f[R[i]].bits : &vm->x[R[i]];
}

/* Run one case; returns 1 if it failed (after saying why). */
static int run_sem_case(const sem_case *c)
{
    const pvm_format_info *fmt = &pvm_formats[pvm_ops[c->op].format];
    const char *name = pvm_ops[c->op].name;
    tvm_insn code[2] = {{.op = c->op, .imm = c->imm}, INS(ret)};
    memcpy(code[0].reg, R, sizeof R);
    pvm_module *m = tvm_module();
    tvm_add(m, name, code, 2);
    pvm_vm *vm = tvm_vm(m);
    *reg(vm, fmt, 0) = POISON;
    for (unsigned i = 1; i < fmt->nregs; i++)
        *reg(vm, fmt, i) = bits_of(c->in[i - 1]);

    pvm_trap_kind kind = pvm_vm_call(vm, 0);
    uint64_t got = *reg(vm, fmt, 0);
    int failed = 1;
    if (kind != c->trap)
        print_error("line %d: %s: trap %s, expected %s\n", c->line, name,
                    pvm_trap_name(kind), pvm_trap_name(c->trap));
    else if (kind != PVM_TRAP_NONE && (got != POISON || vm->trap_offset != 0))
        print_error("line %d: %s: trapped at offset %u, changing a to %#llx\n", c->line,
                    name, vm->trap_offset, (unsigned long long)got);
    else if (kind == PVM_TRAP_NONE && !matches(c->out, got))
        print_error("line %d: %s: got %#llx, expected %#llx%s\n", c->line, name,
                    (unsigned long long)got, (unsigned long long)bits_of(c->out),
                    c->out.kind >= V_NAN32 ? " (any NaN)" : "");
    else
        failed = 0;
    pvm_vm_free(vm);
    pvm_module_free(m);
    return failed;
}

static void test_register_ops(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < COUNT_OF(sem_cases); i++)
        failures += run_sem_case(&sem_cases[i]);
    assert_int_equal(failures, 0);
}

/* ---- loads and stores ------------------------------------------------- */

/* The heap's first 48 bytes: 0x7e 0x7f 0x80 ... 0x8d, 0 x 16, 1 2 ... 16. */
static void heap_image(uint8_t img[48])
{
    for (int i = 0; i < 16; i++) {
        img[i] = (uint8_t)(0x7e + i);
        img[16 + i] = 0;
        img[32 + i] = (uint8_t)(i + 1);
    }
}

typedef struct mem_case {
    uint16_t op;
    uint32_t at;     /* heap offset accessed */
    int32_t imm;     /* the offset immediate; the base register is adjusted */
    uint64_t value;  /* loaded into a; or stored from b */
    uint64_t after;  /* stores: the 8 heap bytes at `at` afterwards */
    int line;
} mem_case;

#define LOAD(op, at, imm, v) {PVM_OP_##op, at, imm, v, 0, __LINE__}
#define STORE(op, at, imm, v, after) {PVM_OP_##op, at, imm, v, after, __LINE__}
#define V UINT64_C(0x1122334455667788)

static const mem_case mem_cases[] = {
    LOAD(xload8_u, 1, 0, 0x7f), LOAD(xload8_u, 2, 0, 0x80),
    LOAD(xload8_s32, 1, 0, 0x7f), LOAD(xload8_s32, 2, -8, 0xffffff80),
    LOAD(xload8_s64, 1, 0, 0x7f), LOAD(xload8_s64, 2, 100, 0xffffffffffffff80),
    LOAD(xload16_u, 0, 0, 0x7f7e), LOAD(xload16_u, 1, 0, 0x807f),
    LOAD(xload16_s32, 0, 0, 0x7f7e), LOAD(xload16_s32, 1, -1, 0xffff807f),
    LOAD(xload16_s64, 32, 0, 0x0201), LOAD(xload16_s64, 3, 0, 0xffffffffffff8281),
    LOAD(xload32_u, 1, 0, 0x8281807f), LOAD(xload32_u, 33, 0, 0x05040302),
    LOAD(xload32_s64, 36, 4, 0x08070605), LOAD(xload32_s64, 3, 0, 0xffffffff84838281),
    LOAD(xload64, 0, 0, 0x8584838281807f7e), LOAD(xload64, 32, -3, 0x0807060504030201),
    LOAD(fload32, 32, 0, 0x04030201), LOAD(fload32, 2, 0, 0x83828180),
    LOAD(fload64, 5, 0, 0x8a89888786858483),
    STORE(xstore8, 32, 0, V, 0x0807060504030288), STORE(xstore8, 33, -9, V, 0x0908070605040388),
    STORE(xstore16, 32, 0, V, 0x0807060504037788), STORE(xstore16, 35, 5, V, 0x0b0a090807067788),
    STORE(xstore32, 32, 0, V, 0x0807060555667788), STORE(xstore32, 33, 0, V, 0x0908070655667788),
    STORE(xstore64, 32, 0, V, V), STORE(xstore64, 33, -1, V, V),
    STORE(fstore32, 32, 0, V, 0x0807060555667788), STORE(fstore64, 32, 8, V, V),
    /* Wasm heap accesses: the base register holds a heap offset in its low
     * 32 bits (the upper ones are set and must not count). */
    LOAD(xload8_u_g32, 2, 0, 0x80), LOAD(xload8_s32_g32, 2, 1, 0xffffff80),
    LOAD(xload8_s64_g32, 2, 2, 0xffffffffffffff80), LOAD(xload16_u_g32, 1, 0, 0x807f),
    LOAD(xload16_s32_g32, 1, 1, 0xffff807f), LOAD(xload16_s64_g32, 3, 0, 0xffffffffffff8281),
    LOAD(xload32_u_g32, 1, 0, 0x8281807f), LOAD(xload32_s64_g32, 3, 3, 0xffffffff84838281),
    LOAD(xload64_g32, 32, 7, 0x0807060504030201), LOAD(fload32_g32, 2, 0, 0x83828180),
    LOAD(fload64_g32, 5, 5, 0x8a89888786858483),
    STORE(xstore8_g32, 33, 9, V, 0x0908070605040388), STORE(xstore16_g32, 35, 0, V, 0x0b0a090807067788),
    STORE(xstore32_g32, 33, 1, V, 0x0908070655667788), STORE(xstore64_g32, 33, 33, V, V),
    STORE(fstore32_g32, 32, 0, V, 0x0807060555667788), STORE(fstore64_g32, 32, 8, V, V),
};

/* Run one load or store; returns 1 if it failed. */
static int run_mem_case(const mem_case *c)
{
    const pvm_format_info *fmt = &pvm_formats[pvm_ops[c->op].format];
    const char *name = pvm_ops[c->op].name;
    /* load a, [b + imm]  or  store [a + imm], b;  with a = 5, b = 6 */
    bool load = strstr(name, "load") != NULL;
    unsigned data_reg = load ? 5 : 6, base_reg = load ? 6 : 5;
    uint8_t img[48];
    heap_image(img);
    pvm_module *m = tvm_module();
    assert_int_equal(pvm_module_add_data(m, 0, img, sizeof img, NULL), 0);
    tvm_insn code[2] = {{.op = c->op, .imm = c->imm, .reg = {5, 6}}, INS(ret)};
    tvm_add(m, name, code, 2);
    pvm_vm *vm = tvm_vm(m);
    uint64_t *data = fmt->reg[load ? 0 : 1] == PVM_REG_F ? &vm->f[data_reg].bits
                                                         : &vm->x[data_reg];
    if (is_wasm_heap_access(c->op))
        vm->x[base_reg] = UINT64_C(0xa5a5a5a500000000) | (uint32_t)(c->at - (uint32_t)c->imm);
    else
        vm->x[base_reg] = vm->heap_base + c->at - (uint64_t)(int64_t)c->imm;
    *data = load ? POISON : c->value;

    int failed = 1;
    pvm_trap_kind kind = pvm_vm_call(vm, 0);
    if (!load)
        pvm_wr64(img + c->at, c->after);
    if (kind != PVM_TRAP_NONE)
        print_error("line %d: %s: trap %s\n", c->line, name, pvm_trap_name(kind));
    else if (load && *data != c->value)
        print_error("line %d: %s: loaded %#llx, expected %#llx\n", c->line, name,
                    (unsigned long long)*data, (unsigned long long)c->value);
    else if (memcmp(vm->memory->bytes, img, sizeof img) != 0)
        print_error("line %d: %s: heap bytes differ from the expected %#llx at %u\n",
                    c->line, name, (unsigned long long)c->after, c->at);
    else
        failed = 0;
    pvm_vm_free(vm);
    pvm_module_free(m);
    return failed;
}

static void test_loads_and_stores(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < COUNT_OF(mem_cases); i++)
        failures += run_mem_case(&mem_cases[i]);
    assert_int_equal(failures, 0);
}

/* ---- control, frames, the heap, references, globals, tables: programs -- */

/* Every program runs as function 0 "main" (no parameters or results) of a
 * module that also has
 *   function 1 "twice" (i64 -> i64):  x0 = x0 + x0
 *   function 2 "nested" (i64 -> i64): calls "twice" twice (x0 = 4 * x0)
 *   import 0 "add":      x0 = x0 + x1 (bound to host_add)
 *   types #0 i64 -> i64, #1 (none), #2 i64 i64 -> i64, #3 i64 -> i64,
 *     #4 externref -> externref
 *   globals #0 and #1, starting at 0
 *   table #0 of the VM's own (size 0, max 0); table #1 bound to a table of
 *     size 2, max 4, entries 7
 * and a VM with two host references: HREF(0) is host_add as i64 i64 -> i64,
 * HREF(1) is host_add as f64 -> (no module type). */
typedef struct prog_case {
    uint16_t op;          /* the opcode this program specifies */
    const char *what;
    uint64_t x0;          /* x0 when it returns */
    pvm_trap_kind trap;   /* or the trap it raises */
    size_t n;
    tvm_insn code[12];
    int line;
} prog_case;

#define PROG(op, what, x0, ...)                                                \
    {PVM_OP_##op, what, (uint64_t)(x0), PVM_TRAP_NONE,                         \
     COUNT_OF(((tvm_insn[]){__VA_ARGS__})), {__VA_ARGS__}, __LINE__}
#define PROG_TRAP(op, what, trap, ...)                                         \
    {PVM_OP_##op, what, 0, PVM_TRAP_##trap,                                    \
     COUNT_OF(((tvm_insn[]){__VA_ARGS__})), {__VA_ARGS__}, __LINE__}

#define HREF(k) (int64_t)(PVM_REF_HOST_BIT | (k))
#define F64_BITS 0x400921fb54442d18 /* pi */

/* br_table x1 over three targets: x0 = 10, 11 or 12 */
#define TABLE_WITH(index_insn)                                                 \
    index_insn, INST(1, 1, 3, 5), INSI(xconst8, 10, 0), INS(ret),              \
        INSI(xconst8, 11, 0), INS(ret), INSI(xconst8, 12, 0), INS(ret)

static const prog_case prog_cases[] = {
    PROG(nop, "does nothing", 5, INSI(xconst8, 5, 0), INS(nop), INS(ret)),
    PROG(jump, "forward", 1, INSI(xconst8, 1, 0), INSI(jump, 2), INSI(xconst8, 2, 0), INS(ret)),
    PROG(jump, "backward", 9, INSI(xconst8, 1, 0), INSI(jump, 3), INSI(xconst8, 9, 0),
         INS(ret), INSI(jump, -2)),
    PROG(br_if, "taken when x[a].32 != 0", 1, INSI(xconst8, 1, 0), INSI(xconst8, -1, 1),
         INSI(br_if, 2, 1), INSI(xconst8, 2, 0), INS(ret)),
    PROG(br_if, "not taken when only the upper half is set", 2, INSI(xconst8, 1, 0),
         INSI(xconst64, 0x100000000, 1), INSI(br_if, 2, 1), INSI(xconst8, 2, 0), INS(ret)),
    PROG(br_if_not, "taken when x[a].32 == 0", 1, INSI(xconst8, 1, 0),
         INSI(xconst64, 0x100000000, 1), INSI(br_if_not, 2, 1), INSI(xconst8, 2, 0), INS(ret)),
    PROG(br_if_not, "not taken when x[a].32 != 0", 2, INSI(xconst8, 1, 0), INSI(xconst8, 4, 1),
         INSI(br_if_not, 2, 1), INSI(xconst8, 2, 0), INS(ret)),
    PROG(br_table, "entry 0", 10, TABLE_WITH(INSI(xconst8, 0, 1))),
    PROG(br_table, "entry 1", 11, TABLE_WITH(INSI(xconst8, 1, 1))),
    PROG(br_table, "entry 2", 12, TABLE_WITH(INSI(xconst8, 2, 1))),
    PROG(br_table, "past the end: the last entry", 12, TABLE_WITH(INSI(xconst8, 3, 1))),
    PROG(br_table, "the index is u32(x[a])", 11, TABLE_WITH(INSI(xconst64, 0x100000001, 1))),
    PROG(br_table, "u32 -1: the last entry", 12, TABLE_WITH(INSI(xconst8, -1, 1))),
    PROG(call, "calls and returns past the call", 42, INS(push_frame), INSI(xconst8, 21, 0),
         INSI(call, 1), INS(pop_frame), INS(ret)),
    PROG(call, "nested calls", 12, INS(push_frame), INSI(xconst8, 3, 0), INSI(call, 2),
         INS(pop_frame), INS(ret)),
    PROG(call_indirect, "calls the function a reference refers to", 42, INS(push_frame),
         INSI(xconst8, 21, 0), INSI(func_ref, 1, 1), INS(call_indirect, 1), INS(pop_frame),
         INS(ret)),
    PROG(call_indirect, "calls a host reference like call_host", 42, INSI(xconst8, 40, 0),
         INSI(xconst8, 2, 1), INSI(xconst64, HREF(0), 2), INS(call_indirect, 2), INS(ret)),
    PROG_TRAP(call_indirect, "null", NULL_REFERENCE, INSI(xconst8, 0, 1),
              INS(call_indirect, 1), INS(ret)),
    PROG_TRAP(call_indirect, "one past the last function", BAD_CALL, INSI(xconst8, 4, 1),
              INS(call_indirect, 1), INS(ret)),
    PROG_TRAP(call_indirect, "all 64 bits count", BAD_CALL, INSI(xconst64, 0x100000002, 1),
              INS(call_indirect, 1), INS(ret)),
    PROG_TRAP(call_indirect, "one past the last host reference", BAD_CALL,
              INSI(xconst64, HREF(2), 1), INS(call_indirect, 1), INS(ret)),
    PROG(call_host, "calls the bound host function", 42, INSI(xconst8, 40, 0),
         INSI(xconst8, 2, 1), INSI(call_host, 0), INS(ret)),
    PROG(ret, "lr == 0 returns to the embedder", 7, INSI(xconst8, 7, 0), INS(ret),
         INSI(xconst8, 8, 0), INS(ret)),
    PROG_TRAP(trap, "stops with its kind", UNREACHABLE, INSI(trap, PVM_TRAP_UNREACHABLE)),
    PROG_TRAP(trap, "any kind", INT_OVERFLOW, INSI(trap, PVM_TRAP_INT_OVERFLOW)),

    PROG(bcheck32, "u32(x[a]) + imm == heap size passes", 1, INSI(xconst32, TVM_HEAP - 4, 1),
         INSI(bcheck32, 4, 1), INSI(xconst8, 1, 0), INS(ret)),
    PROG(bcheck32, "the upper half of x[a] is ignored", 1,
         INSI(xconst64, 0x100000000 + TVM_HEAP - 4, 1), INSI(bcheck32, 4, 1),
         INSI(xconst8, 1, 0), INS(ret)),
    PROG_TRAP(bcheck32, "one past the heap traps", HEAP_OOB, INSI(xconst32, TVM_HEAP - 4, 1),
              INSI(bcheck32, 5, 1), INS(ret)),
    PROG(heap_base, "the heap follows the stack", TVM_STACK, INS(heap_base, 0), INS(ret)),
    PROG(heap_size, "starts at the module's heap_min", TVM_HEAP, INS(heap_size, 0), INS(ret)),
    PROG(heap_grow, "returns the old size", TVM_HEAP, INSI(xconst16, 4096, 1),
         INS(heap_grow, 0, 1), INS(ret)),
    PROG(heap_grow, "grows the heap", TVM_HEAP + 4096, INSI(xconst16, 4096, 1),
         INS(heap_grow, 2, 1), INS(heap_size, 0), INS(ret)),
    PROG(heap_grow, "past heap_max: -1 and nothing grown", TVM_HEAP,
         INSI(xconst32, TVM_HEAP + 1, 1), INS(heap_grow, 2, 1), INS(heap_size, 0),
         INS(xadd64, 0, 0, 2), INSI(xconst8, 1, 1), INS(xadd64, 0, 0, 1), INS(ret)),
    PROG(heap_grow, "new bytes are zero and usable", 0xff, INSI(xconst16, 16, 1),
         INS(heap_grow, 2, 1), INS(heap_base, 3), INSI(xload8_u, TVM_HEAP + 15, 0, 3),
         INSI(xconst8, -1, 4), INSI(xstore8, TVM_HEAP + 15, 3, 4),
         INSI(xload8_u, TVM_HEAP + 15, 4, 3), INS(xadd64, 0, 0, 4), INS(ret)),

    PROG(func_ref, "function imm's reference is imm + 1", 3, INSI(func_ref, 2, 0), INS(ret)),
    PROG(func_ref, "function 0's is 1", 1, INSI(func_ref, 0, 0), INS(ret)),
    PROG(sigcheck, "a function of the type passes", 1, INSI(func_ref, 1, 1),
         INSI(sigcheck, 0, 1), INSI(xconst8, 1, 0), INS(ret)),
    PROG(sigcheck, "a function of an equal type passes", 1, INSI(func_ref, 2, 1),
         INSI(sigcheck, 3, 1), INSI(xconst8, 1, 0), INS(ret)),
    PROG(sigcheck, "the empty signature", 1, INSI(func_ref, 0, 1), INSI(sigcheck, 1, 1),
         INSI(xconst8, 1, 0), INS(ret)),
    PROG_TRAP(sigcheck, "a function of another type", BAD_SIGNATURE, INSI(func_ref, 0, 1),
              INSI(sigcheck, 0, 1), INS(ret)),
    PROG_TRAP(sigcheck, "a reference type is not i64", BAD_SIGNATURE, INSI(func_ref, 1, 1),
              INSI(sigcheck, 4, 1), INS(ret)),
    PROG_TRAP(sigcheck, "null", NULL_REFERENCE, INSI(xconst8, 0, 1), INSI(sigcheck, 0, 1),
              INS(ret)),
    PROG_TRAP(sigcheck, "one past the last function", BAD_CALL, INSI(xconst8, 4, 1),
              INSI(sigcheck, 0, 1), INS(ret)),
    PROG(sigcheck, "a host reference of the type passes", 1, INSI(xconst64, HREF(0), 1),
         INSI(sigcheck, 2, 1), INSI(xconst8, 1, 0), INS(ret)),
    PROG_TRAP(sigcheck, "a host reference of another type", BAD_SIGNATURE,
              INSI(xconst64, HREF(0), 1), INSI(sigcheck, 0, 1), INS(ret)),
    PROG_TRAP(sigcheck, "a host reference of no module type", BAD_SIGNATURE,
              INSI(xconst64, HREF(1), 1), INSI(sigcheck, 1, 1), INS(ret)),
    PROG_TRAP(sigcheck, "one past the last host reference", BAD_CALL,
              INSI(xconst64, HREF(2), 1), INSI(sigcheck, 2, 1), INS(ret)),

    PROG(xglobal_get, "globals start at 0", 0, INSI(xconst8, 5, 0), INSI(xglobal_get, 0, 0),
         INS(ret)),
    PROG(xglobal_set, "all 64 bits, read back", 0xfedcba9876543210,
         INSI(xconst64, 0xfedcba9876543210, 1), INSI(xglobal_set, 1, 1),
         INSI(xglobal_get, 1, 0), INS(ret)),
    PROG(xglobal_set, "one global alone", 0, INSI(xconst8, 9, 1), INSI(xglobal_set, 1, 1),
         INSI(xglobal_get, 0, 0), INS(ret)),
    PROG(fglobal_set, "all 64 bits of f[a]", F64_BITS, INSI(fconst64, F64_BITS, 1),
         INSI(fglobal_set, 0, 1), INSI(xglobal_get, 0, 0), INS(ret)),
    PROG(fglobal_get, "all 64 bits into f[a]", F64_BITS, INSI(xconst64, F64_BITS, 1),
         INSI(xglobal_set, 1, 1), INSI(fglobal_get, 1, 2), INS(xbits_from_f64, 0, 2), INS(ret)),

    PROG(table_get, "the entry at u32(x[b])", 7, INSI(xconst64, 0x100000001, 1),
         INSI(table_get, 1, 0, 1), INS(ret)),
    PROG_TRAP(table_get, "at the size", TABLE_OOB, INSI(xconst8, 2, 1),
              INSI(table_get, 1, 0, 1), INS(ret)),
    PROG_TRAP(table_get, "an empty table", TABLE_OOB, INSI(xconst8, 0, 1),
              INSI(table_get, 0, 0, 1), INS(ret)),
    PROG(table_set, "writes the entry at u32(x[a])", 9, INSI(xconst8, 9, 2),
         INSI(xconst64, 0x100000001, 1), INSI(table_set, 1, 1, 2), INSI(xconst8, 1, 1),
         INSI(table_get, 1, 0, 1), INS(ret)),
    PROG(table_set, "one entry alone", 7, INSI(xconst8, 9, 2), INSI(xconst8, 1, 1),
         INSI(table_set, 1, 1, 2), INSI(xconst8, 0, 1), INSI(table_get, 1, 0, 1), INS(ret)),
    PROG_TRAP(table_set, "at the size", TABLE_OOB, INSI(xconst8, 2, 1),
              INSI(table_set, 1, 1, 1), INS(ret)),
    PROG(table_size, "of the bound table", 2, INSI(table_size, 1, 0), INS(ret)),
    PROG(table_size, "of the VM's own table", 0, INSI(xconst8, 5, 0), INSI(table_size, 0, 0),
         INS(ret)),
    PROG(table_grow, "returns the old size", 2, INSI(xconst8, 5, 2), INSI(xconst8, 2, 3),
         INSI(table_grow, 1, 0, 2, 3), INS(ret)),
    PROG(table_grow, "adds entries set to x[b]", 4 * 100 + 5, INSI(xconst8, 5, 2),
         INSI(xconst8, 2, 3), INSI(table_grow, 1, 0, 2, 3), INSI(table_size, 1, 0),
         INSI(xconst8, 100, 4), INS(xmul64, 0, 0, 4), INSI(xconst8, 3, 1),
         INSI(table_get, 1, 4, 1), INS(xadd64, 0, 0, 4), INS(ret)),
    PROG(table_grow, "the count is u32(x[c])", 2, INSI(xconst64, 0x100000001, 3),
         INSI(table_grow, 1, 0, 2, 3), INS(ret)),
    PROG(table_grow, "by 0: the size", 2, INSI(xconst8, 0, 3), INSI(table_grow, 1, 0, 2, 3),
         INS(ret)),
    PROG(table_grow, "past the maximum: u32 -1 and nothing grown", UINT64_C(0xffffffff) + 2,
         INSI(xconst8, 3, 3), INSI(table_grow, 1, 0, 2, 3), INSI(table_size, 1, 1),
         INS(xadd64, 0, 0, 1), INS(ret)),
    PROG(table_grow, "a table of maximum 0", 0xffffffff, INSI(xconst8, 1, 3),
         INSI(table_grow, 0, 0, 2, 3), INS(ret)),

    PROG(push_frame, "sp -= 16, fp = sp", TVM_STACK - 16, INS(push_frame), INS(xget_fp, 0),
         INS(ret)),
    PROG(push_frame, "saves fp at sp", TVM_STACK, INS(push_frame), INS(xget_sp, 1),
         INSI(xload64, 0, 0, 1), INS(ret)),
    PROG(push_frame, "saves lr at sp + 8", 0, INSI(xconst8, 9, 0), INS(push_frame),
         INS(xget_sp, 1), INSI(xload64, 8, 0, 1), INS(ret)),
    PROG(pop_frame, "sp = fp + 16", TVM_STACK, INS(push_frame), INSI(stack_alloc, 32),
         INS(pop_frame), INS(xget_sp, 0), INS(ret)),
    PROG(pop_frame, "restores fp", TVM_STACK - 16, INS(push_frame), INS(push_frame),
         INS(pop_frame), INS(xget_fp, 0), INS(ret)),
    PROG(stack_alloc, "sp -= imm", TVM_STACK - 48, INSI(stack_alloc, 48), INS(xget_sp, 0), INS(ret)),
    PROG(stack_alloc_zero, "sp -= imm", TVM_STACK - 48, INSI(stack_alloc_zero, 48),
         INS(xget_sp, 0), INS(ret)),
    /* 0xff in the 16 bytes below the top; then 4 bytes kept, 8 zeroed:
     * the bytes just below and just above the 8 keep their 0xff. */
    PROG(stack_alloc_zero, "zeroes the bytes it allocates, no others", UINT64_C(0xffffffff000000ff),
         INSI(xconst8, -1, 1), INS(xpush, 1), INS(xpush, 1), INSI(stack_free, 16),
         INSI(stack_alloc, 4), INSI(stack_alloc_zero, 8), INS(xget_sp, 2),
         INSI(xload64, -1, 0, 2), INSI(xload64, 4, 3, 2), INS(xbor64, 0, 0, 3), INS(ret)),
    PROG(stack_free, "sp += imm", TVM_STACK - 32, INSI(stack_alloc, 48), INSI(stack_free, 16),
         INS(xget_sp, 0), INS(ret)),
    PROG(xpush, "stores x[a] at sp - 8", -5, INSI(xconst8, -5, 1), INS(xpush, 1),
         INS(xget_sp, 2), INSI(xload64, 0, 0, 2), INS(ret)),
    PROG(xpush, "sp -= 8", TVM_STACK - 8, INS(xpush, 1), INS(xget_sp, 0), INS(ret)),
    PROG(xpop, "loads x[a] and sp += 8", TVM_STACK + 77, INSI(xconst8, 77, 1), INS(xpush, 1),
         INS(xpop, 0), INS(xget_sp, 2), INS(xadd64, 0, 0, 2), INS(ret)),
    PROG(fpush, "stores all 64 bits of f[a]", 0x7fc00001, INSI(fconst32, 0x7fc00001, 1),
         INS(fpush, 1), INS(xget_sp, 1), INSI(xload64, 0, 0, 1), INS(ret)),
    PROG(fpop, "loads all 64 bits into f[a]", 0x3ff8000000000000,
         INSI(fconst64, 0x3ff8000000000000, 1), INS(fpush, 1), INS(fpop, 2),
         INS(xbits_from_f64, 0, 2), INS(ret)),
    PROG(xget_sp, "sp starts at the stack top", TVM_STACK, INS(xget_sp, 0), INS(ret)),
    PROG(xget_fp, "fp starts at the stack top", TVM_STACK, INS(xget_fp, 0), INS(ret)),
};

static const tvm_insn twice[] = {INS(xadd64, 0, 0, 0), INS(ret)};
static const tvm_insn nested[] = {INS(push_frame), INSI(call, 1), INSI(call, 1),
                                  INS(pop_frame), INS(ret)};

static bool host_saw_pc_slot; /* a non-zero profiling slot inside a host call */

static pvm_trap_kind host_add(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    if (atomic_load(&vm->pc_slot) != 0)
        host_saw_pc_slot = true;
    vm->x[0] += vm->x[1];
    return PVM_TRAP_NONE;
}

/* The module and VM every program runs in (see above); frees nothing. */
static pvm_vm *program_vm(pvm_module *m, const prog_case *c)
{
    tvm_add(m, "main", c->code, c->n);
    tvm_add_typed(m, "twice", "l", "l", twice, COUNT_OF(twice));
    tvm_add_typed(m, "nested", "l", "l", nested, COUNT_OF(nested));
    assert_int_equal(pvm_module_add_import(m, "add", NULL), 0);
    assert_int_equal(pvm_module_add_type(m, "l", "l", NULL), 0);
    assert_int_equal(pvm_module_add_type(m, "", "", NULL), 1);
    assert_int_equal(pvm_module_add_type(m, "ll", "l", NULL), 2);
    assert_int_equal(pvm_module_add_type(m, "l", "l", NULL), 3);
    assert_int_equal(pvm_module_add_type(m, "e", "e", NULL), 4);
    m->nglobals = 2;
    m->ntables = 2;
    pvm_vm *vm = tvm_vm(m);
    pvm_vm_bind_host(vm, "add", host_add, NULL);
    assert_int_equal(pvm_vm_add_host_ref(vm, host_add, NULL, "ll", "l"), HREF(0));
    assert_int_equal(pvm_vm_add_host_ref(vm, host_add, NULL, "d", ""), HREF(1));
    pvm_table *t = pvm_table_new(2, 4, 7, NULL);
    assert_non_null(t);
    assert_int_equal(pvm_vm_bind_table(vm, 1, t), 0);
    pvm_table_release(t);
    return vm;
}

/* Run one program; returns 1 if it failed. */
static int run_prog_case(const prog_case *c)
{
    pvm_module *m = tvm_module();
    pvm_vm *vm = program_vm(m, c);
    const char *name = pvm_ops[c->op].name;
    pvm_trap_kind kind = pvm_vm_call(vm, 0);
    int failed = 1;
    if (kind != c->trap)
        print_error("line %d: %s, %s: trap %s, expected %s\n", c->line, name, c->what,
                    pvm_trap_name(kind), pvm_trap_name(c->trap));
    else if (kind == PVM_TRAP_NONE && vm->x[0] != c->x0)
        print_error("line %d: %s, %s: x0 = %#llx, expected %#llx\n", c->line, name, c->what,
                    (unsigned long long)vm->x[0], (unsigned long long)c->x0);
    else
        failed = 0;
    pvm_vm_free(vm);
    pvm_module_free(m);
    return failed;
}

static void test_programs(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < COUNT_OF(prog_cases); i++)
        failures += run_prog_case(&prog_cases[i]);
    assert_int_equal(failures, 0);
    assert_false(host_saw_pc_slot);
}

/* ---- the embedding: host callbacks, the profiling slot ---------------- */

/* A host function that calls back into the VM: x0 = 4 * x0 via "nested". */
static pvm_trap_kind host_reenter(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    return pvm_vm_call(vm, 2);
}

static void test_host_calls_back_into_the_vm(void **state)
{
    (void)state;
    static const tvm_insn main_code[] = {
        INS(push_frame), INSI(stack_alloc, 32), INSI(xconst8, 5, 0),
        INSI(call_host, 0), INS(xget_sp, 1), INS(xget_fp, 2), INS(pop_frame), INS(ret),
    };
    pvm_module *m = tvm_module();
    tvm_add(m, "main", main_code, COUNT_OF(main_code));
    tvm_add(m, "twice", twice, COUNT_OF(twice));
    tvm_add(m, "nested", nested, COUNT_OF(nested));
    assert_int_equal(pvm_module_add_import(m, "reenter", NULL), 0);
    pvm_vm *vm = tvm_vm(m);
    pvm_vm_bind_host(vm, "reenter", host_reenter, NULL);
    assert_int_equal(pvm_vm_check_imports(vm, NULL), 0);

    assert_int_equal(pvm_vm_call(vm, 0), PVM_TRAP_NONE);
    assert_int_equal(vm->x[0], 20);
    assert_int_equal(vm->x[1], TVM_STACK - 48); /* sp and fp given back */
    assert_int_equal(vm->x[2], TVM_STACK - 16);
    assert_int_equal(vm->depth, 0);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_profiling_slot(void **state)
{
    (void)state;
    static const tvm_insn returns[] = {INSI(xconst8, 1, 0), INS(ret)};
    static const tvm_insn traps[] = {INSI(trap, PVM_TRAP_UNREACHABLE)};
    pvm_module *m = tvm_module();
    tvm_add(m, "returns", returns, COUNT_OF(returns));
    tvm_add(m, "traps", traps, COUNT_OF(traps));
    pvm_vm *vm = tvm_vm(m);
    /* With the hook compiled in, the slot is 0 once control has left
     * bytecode, by a return or by a trap; without it, nothing is stored. */
    uintptr_t left = pvm_built_with_profile() ? 0 : 12345;
    atomic_store(&vm->pc_slot, 12345);
    assert_int_equal(pvm_vm_call(vm, 0), PVM_TRAP_NONE);
    assert_int_equal(atomic_load(&vm->pc_slot), left);
    atomic_store(&vm->pc_slot, 12345);
    assert_int_equal(pvm_vm_call(vm, 1), PVM_TRAP_UNREACHABLE);
    assert_int_equal(atomic_load(&vm->pc_slot), left);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

/* ---- the machine model ------------------------------------------------ */

static void test_vm_creation(void **state)
{
    (void)state;
    static const tvm_insn code[] = {INS(ret)};
    static const uint8_t bytes[] = {1, 2, 3};
    pvm_error err;
    pvm_module *m = tvm_module();
    tvm_add(m, "main", code, COUNT_OF(code));
    assert_int_equal(pvm_module_add_data(m, TVM_HEAP - 3, bytes, 3, NULL), 0);
    m->nglobals = 2;
    m->ntables = 1;
    assert_null(pvm_vm_new(m, NULL, &err)); /* not verified */
    assert_non_null(strstr(err.msg, "not verified"));

    pvm_vm *vm = tvm_vm(m);
    assert_int_equal(vm->stack_size, TVM_STACK);
    assert_int_equal(vm->heap_base, TVM_STACK);
    assert_int_equal(vm->sp, TVM_STACK);
    /* A memory of its own, of the module's limits, the data copied in. */
    assert_int_equal(vm->memory->size, TVM_HEAP);
    assert_int_equal(vm->memory->max, 2 * TVM_HEAP);
    assert_int_equal(vm->memory->refs, 1);
    assert_memory_equal(vm->memory->bytes + TVM_HEAP - 3, bytes, 3);
    /* Zeroed globals and empty tables of its own. */
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(vm->globals[i]->value, 0);
        assert_int_equal(vm->globals[i]->refs, 1);
    }
    assert_int_equal(vm->tables[0]->size, 0);
    assert_int_equal(vm->tables[0]->max, 0);
    assert_null(pvm_vm_new(m, &(pvm_vm_config){.stack_size = 24}, &err));
    assert_non_null(strstr(err.msg, "multiple of 16"));
    pvm_vm_free(vm);
    vm = pvm_vm_new(m, NULL, &err);
    assert_non_null(vm);
    assert_int_equal(vm->stack_size, PVM_DEFAULT_STACK);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_vm_with_a_given_memory_shares_it(void **state)
{
    (void)state;
    static const tvm_insn code[] = {INS(ret)};
    static const uint8_t bytes[] = {1, 2, 3};
    pvm_error err;
    pvm_module *m = tvm_module();
    tvm_add(m, "main", code, COUNT_OF(code));
    assert_int_equal(pvm_module_add_data(m, 5, bytes, 3, NULL), 0);
    assert_int_equal(pvm_verify_module(m, &err), 0);

    /* The module's heap limits do not matter; its data must fit. */
    pvm_memory *mem = pvm_memory_new(8, 16, &err);
    assert_non_null(mem);
    pvm_vm *vm = pvm_vm_new(m, &(pvm_vm_config){.memory = mem}, &err);
    assert_non_null(vm);
    assert_ptr_equal(vm->memory, mem);
    assert_int_equal(mem->refs, 2);
    assert_memory_equal(mem->bytes + 5, bytes, 3);
    pvm_vm_free(vm);
    assert_int_equal(mem->refs, 1);
    pvm_memory_release(mem);

    mem = pvm_memory_new(7, 16, &err);
    assert_null(pvm_vm_new(m, &(pvm_vm_config){.memory = mem}, &err));
    assert_string_equal(err.msg, "data segment 0 (3 bytes at heap offset 5) does not fit "
                                 "the heap of 7 bytes");
    assert_int_equal(mem->refs, 1);
    pvm_memory_release(mem);
    pvm_module_free(m);
}

/* ---- every opcode has a case ------------------------------------------ */

static bool has_case(unsigned op)
{
    for (size_t i = 0; i < COUNT_OF(sem_cases); i++)
        if (sem_cases[i].op == op)
            return true;
    for (size_t i = 0; i < COUNT_OF(mem_cases); i++)
        if (mem_cases[i].op == op)
            return true;
    for (size_t i = 0; i < COUNT_OF(prog_cases); i++)
        if (prog_cases[i].op == op)
            return true;
    return false;
}

/* Every baseline opcode; a macro op is checked against its parts by
 * test_macro_ops.c. */
static void test_every_opcode_has_a_case(void **state)
{
    (void)state;
    int missing = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (pvm_ops[op].name && !pvm_ops[op].macro && !has_case(op)) {
            print_error("opcode %s has no semantics case\n", pvm_ops[op].name);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_ops),
        cmocka_unit_test(test_loads_and_stores),
        cmocka_unit_test(test_programs),
        cmocka_unit_test(test_host_calls_back_into_the_vm),
        cmocka_unit_test(test_profiling_slot),
        cmocka_unit_test(test_vm_creation),
        cmocka_unit_test(test_vm_with_a_given_memory_shares_it),
        cmocka_unit_test(test_every_opcode_has_a_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
