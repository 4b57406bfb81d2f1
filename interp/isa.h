/*
 * isa.h - the instruction set as C types, derived from opcodes.def.
 *
 * Nothing here lists an opcode by hand: the opcode enum, the per-opcode
 * compile-time constants the interpreter uses (length, operand positions),
 * and the run-time descriptor table used by the encoder, decoder,
 * disassembler, assembler and verifier all expand the rows of opcodes.def.
 */
#ifndef PULLEY_ISA_H
#define PULLEY_ISA_H

#include <stddef.h>
#include <stdint.h>

#define PVM_ESCAPE_BYTE 0xFF /* first byte of every extended opcode */
#define PVM_NUM_XREGS 32
#define PVM_NUM_FREGS 32

/* ---- operand kinds ------------------------------------------------------ */

typedef enum pvm_reg_kind {
    PVM_REG_NONE, /* "_" in the table */
    PVM_REG_X,
    PVM_REG_F,
} pvm_reg_kind;

typedef enum pvm_imm_kind {
    PVM_IMM_NONE,
    PVM_IMM_S8,    /* signed 8-bit constant */
    PVM_IMM_S16,   /* signed 16-bit constant */
    PVM_IMM_S32,   /* signed 32-bit constant */
    PVM_IMM_I64,   /* 64-bit constant */
    PVM_IMM_U32,   /* unsigned 32-bit amount */
    PVM_IMM_OFF32, /* signed 32-bit memory offset */
    PVM_IMM_REL32, /* signed 32-bit branch offset from the instruction start */
    PVM_IMM_FUNC,  /* u32 index into the module's function table */
    PVM_IMM_HOST,  /* u32 index into the module's host import table */
    PVM_IMM_TRAP,  /* u8 trap kind (pvm_trap_kind) */
    PVM_IMM_F32,   /* the 32 bits of an f32 */
    PVM_IMM_F64,   /* the 64 bits of an f64 */
    PVM_IMM_TABLE, /* u32 count N, then N signed 32-bit branch offsets */
    PVM_IMM_GLOBAL,   /* u32 index of a global of the module (< nglobals) */
    PVM_IMM_TABLEIDX, /* u32 index of a table of the module (< ntables) */
    PVM_IMM_TYPE,     /* u32 index into the module's type table (< ntypes) */
} pvm_imm_kind;

/* Encoded sizes, usable in constant expressions.  The names are token-pasted
 * from the table's columns. */
#define PVM_REGCOUNT__ 0
#define PVM_REGCOUNT_X 1
#define PVM_REGCOUNT_F 1
#define PVM_REGKIND__ PVM_REG_NONE
#define PVM_REGKIND_X PVM_REG_X
#define PVM_REGKIND_F PVM_REG_F
#define PVM_IMMSIZE_NONE 0
#define PVM_IMMSIZE_S8 1
#define PVM_IMMSIZE_S16 2
#define PVM_IMMSIZE_S32 4
#define PVM_IMMSIZE_I64 8
#define PVM_IMMSIZE_U32 4
#define PVM_IMMSIZE_OFF32 4
#define PVM_IMMSIZE_REL32 4
#define PVM_IMMSIZE_FUNC 4
#define PVM_IMMSIZE_HOST 4
#define PVM_IMMSIZE_TRAP 1
#define PVM_IMMSIZE_F32 4
#define PVM_IMMSIZE_F64 8
#define PVM_IMMSIZE_TABLE 4 /* the count; the entries follow */
#define PVM_IMMSIZE_GLOBAL 4
#define PVM_IMMSIZE_TABLEIDX 4
#define PVM_IMMSIZE_TYPE 4

/* Bytes taken by a register pack of n registers (5 bits each). */
#define PVM_REGPACK_BYTES(n) (((n) * 5 + 7) / 8)

/* ---- operand formats ---------------------------------------------------- */

typedef enum pvm_format {
#define FORMAT(name, r0, r1, r2, r3, imm) PVM_FMT_##name,
#include "opcodes.def"
    PVM_FMT_COUNT
} pvm_format;

/* Per-format constants: number of registers, size of the register pack and
 * of the immediate (for a jump table, only its count). */
enum {
#define FORMAT(name, r0, r1, r2, r3, imm)                                      \
    PVM_FMT_NREGS_##name = PVM_REGCOUNT_##r0 + PVM_REGCOUNT_##r1 +             \
                           PVM_REGCOUNT_##r2 + PVM_REGCOUNT_##r3,              \
    PVM_FMT_PACK_##name = PVM_REGPACK_BYTES(PVM_FMT_NREGS_##name),             \
    PVM_FMT_IMM_##name = PVM_IMMSIZE_##imm,
#include "opcodes.def"
};

typedef struct pvm_format_info {
    const char *name;
    uint8_t nregs;       /* register operands, always first */
    uint8_t reg[4];      /* pvm_reg_kind of each register operand */
    uint8_t pack_bytes;  /* bytes of the register pack */
    uint8_t imm;         /* pvm_imm_kind */
    uint8_t imm_bytes;   /* bytes of the immediate (a table's count only) */
} pvm_format_info;

extern const pvm_format_info pvm_formats[PVM_FMT_COUNT];

/* ---- opcodes ------------------------------------------------------------ */

/* Opcode numbers: a primary opcode's number is its first byte; an extended
 * opcode's number is 256 + its 16-bit code. */
typedef enum pvm_op {
#define OP(name, format, flags, semantics) PVM_OP_##name,
#include "opcodes.def"
    PVM_OP_PRIMARY_END,
    PVM_OP_EXT_BASE_ = 255, /* so that the first extended opcode is 256 */
#define EXT(name, format, flags, semantics) PVM_OP_##name,
#include "opcodes.def"
    PVM_OP_END
} pvm_op;

#define PVM_OP_EXT_FIRST 256
#define PVM_OP_IS_EXT(op) ((op) >= PVM_OP_EXT_FIRST)
#define PVM_OP_EXT_COUNT (PVM_OP_END - PVM_OP_EXT_FIRST)

_Static_assert(PVM_OP_PRIMARY_END < PVM_ESCAPE_BYTE,
               "primary opcodes must leave the escape byte free");

/* Flags column. */
enum {
    PVM_FLAG_BRANCH = 1u << 0, /* has branch targets */
    PVM_FLAG_TERM = 1u << 1,   /* never falls through to the next insn */
    PVM_FLAG_TRAPS = 1u << 2,  /* may trap */
    PVM_FLAG_CALL = 1u << 3,   /* calls a function */
};

/* Per-opcode compile-time constants for the interpreter:
 *   PVM_LEN_op   encoded length (for a jump table: without its entries)
 *   PVM_REGS_op  byte offset of the register pack
 *   PVM_IMM_op   byte offset of the immediate                             */
#define PVM_OP_CONSTANTS(name, format, hdr)                                   \
    PVM_REGS_##name = (hdr),                                                   \
    PVM_IMM_##name = (hdr) + PVM_FMT_PACK_##format,                            \
    PVM_LEN_##name = (hdr) + PVM_FMT_PACK_##format + PVM_FMT_IMM_##format,     \
    PVM_FMTOF_##name = PVM_FMT_##format,
enum {
#define OP(name, format, flags, semantics) PVM_OP_CONSTANTS(name, format, 1)
#define EXT(name, format, flags, semantics) PVM_OP_CONSTANTS(name, format, 3)
#include "opcodes.def"
};

typedef struct pvm_op_info {
    const char *name;   /* mnemonic; NULL for an unused opcode number */
    uint8_t format;     /* pvm_format */
    uint8_t flags;      /* PVM_FLAG_* */
    uint8_t length;     /* encoded length (a jump table's entries excluded) */
    const char *semantics;
} pvm_op_info;

/* Indexed by pvm_op; entries for unused numbers have name == NULL. */
extern const pvm_op_info pvm_ops[PVM_OP_END];

/* The descriptor of op, or NULL if op is not an opcode. */
const pvm_op_info *pvm_op_lookup(unsigned op);
/* The opcode with this mnemonic, or -1. */
int pvm_op_by_name(const char *name, size_t len);
/* Number of opcodes in the table (primary and extended). */
unsigned pvm_op_count(void);
/* FNV-1a hash over every row of the table (names, formats, flags, opcode
 * numbers): identifies the ISA a profile or module was made with. */
uint64_t pvm_isa_hash(void);

/* ---- trap kinds --------------------------------------------------------- */

/* T(ENUM_NAME, "name", "message"); the messages are Wasm's wherever Wasm
 * has the trap (an undefined element is a call_indirect index past the
 * table, an uninitialized element a null reference called). */
#define PVM_TRAP_KINDS(T)                                                      \
    T(NONE, "none", "no trap")                                                 \
    T(UNREACHABLE, "unreachable", "unreachable")                               \
    T(DIV_BY_ZERO, "div_by_zero", "integer divide by zero")                    \
    T(INT_OVERFLOW, "int_overflow", "integer overflow")                        \
    T(BAD_CONVERSION, "bad_conversion", "invalid conversion to integer")       \
    T(HEAP_OOB, "heap_oob", "out of bounds memory access")                     \
    T(TABLE_OOB, "table_oob", "out of bounds table access")                    \
    T(MEMORY_FAULT, "memory_fault", "access outside the data space")           \
    T(STACK_OVERFLOW, "stack_overflow", "call stack exhausted")                \
    T(STACK_UNDERFLOW, "stack_underflow", "stack underflow")                   \
    T(UNDEFINED_ELEMENT, "undefined_element", "undefined element")            \
    T(NULL_REFERENCE, "null_reference", "uninitialized element")               \
    T(BAD_CALL, "bad_call", "call to a function that does not exist")          \
    T(BAD_SIGNATURE, "bad_signature", "indirect call type mismatch")           \
    T(BAD_RETURN, "bad_return", "return to an address that is not an instruction") \
    T(HOST_ERROR, "host_error", "host function failed")                        \
    T(EXIT, "exit", "program exited")                                          \
    T(INTERRUPTED, "interrupted", "interrupted")

typedef enum pvm_trap_kind {
#define PVM_TRAP_ENUM(name, lower, text) PVM_TRAP_##name,
    PVM_TRAP_KINDS(PVM_TRAP_ENUM)
#undef PVM_TRAP_ENUM
    PVM_TRAP_COUNT
} pvm_trap_kind;

/* The short name ("div_by_zero") and the message of a trap kind. */
const char *pvm_trap_name(unsigned kind);
const char *pvm_trap_message(unsigned kind);
/* The trap kind with this name, or -1. */
int pvm_trap_by_name(const char *name, size_t len);

#endif
