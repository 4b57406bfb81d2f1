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

#define PVM_MAX_REGS 16 /* register operands of one instruction (macro ops) */
#define PVM_MAX_IMMS 8  /* immediates of one instruction (macro ops) */

typedef enum pvm_reg_kind {
    PVM_REG_NONE, /* "_" in the table */
    PVM_REG_X,
    PVM_REG_F,
} pvm_reg_kind;

/* What an instruction does with a register operand: bit 0 reads it, bit 1
 * writes it (a read-and-written operand is read first). */
typedef enum pvm_role {
    PVM_ROLE_NONE = 0,
    PVM_ROLE_R = 1,
    PVM_ROLE_W = 2,
    PVM_ROLE_RW = 3,
} pvm_role;

/* T(NAME, "word", bytes): every immediate kind, the word naming it in
 * stored operand lists ("x x s32") and its encoded size (a jump table: its
 * count; the entries follow the instruction). */
#define PVM_IMM_KINDS(T)                                                       \
    T(NONE, "", 0)                                                             \
    T(S8, "s8", 1)         /* signed 8-bit constant */                         \
    T(S16, "s16", 2)       /* signed 16-bit constant */                        \
    T(S32, "s32", 4)       /* signed 32-bit constant */                        \
    T(I64, "i64", 8)       /* 64-bit constant */                               \
    T(U32, "u32", 4)       /* unsigned 32-bit amount */                        \
    T(OFF32, "off32", 4)   /* signed 32-bit memory offset */                   \
    T(REL32, "rel32", 4)   /* signed 32-bit branch offset from the insn start */ \
    T(FUNC, "func", 4)     /* u32 index into the module's function table */    \
    T(HOST, "host", 4)     /* u32 index into the module's host import table */ \
    T(TRAP, "trap", 1)     /* u8 trap kind (pvm_trap_kind) */                  \
    T(F32, "f32", 4)       /* the 32 bits of an f32 */                         \
    T(F64, "f64", 8)       /* the 64 bits of an f64 */                         \
    T(TABLE, "table", 4)   /* u32 count N, then N signed 32-bit offsets */     \
    T(GLOBAL, "global", 4) /* u32 index of a global of the module */           \
    T(TABLEIDX, "tableidx", 4) /* u32 index of a table of the module */        \
    T(TYPE, "type", 4)     /* u32 index into the module's type table */

typedef enum pvm_imm_kind {
#define PVM_IMM_ENUM(name, word, bytes) PVM_IMM_##name,
    PVM_IMM_KINDS(PVM_IMM_ENUM)
#undef PVM_IMM_ENUM
    PVM_IMM_COUNT
} pvm_imm_kind;

/* Encoded sizes and the class and role of each register column, usable in
 * constant expressions; the names are token-pasted from the table. */
enum {
#define PVM_IMM_SIZE(name, word, bytes) PVM_IMMSIZE_##name = (bytes),
    PVM_IMM_KINDS(PVM_IMM_SIZE)
#undef PVM_IMM_SIZE
};
#define PVM_REGCOUNT__ 0
#define PVM_REGCOUNT_Xr 1
#define PVM_REGCOUNT_Xw 1
#define PVM_REGCOUNT_Xrw 1
#define PVM_REGCOUNT_Fr 1
#define PVM_REGCOUNT_Fw 1
#define PVM_REGCOUNT_Frw 1
#define PVM_REGKIND__ PVM_REG_NONE
#define PVM_REGKIND_Xr PVM_REG_X
#define PVM_REGKIND_Xw PVM_REG_X
#define PVM_REGKIND_Xrw PVM_REG_X
#define PVM_REGKIND_Fr PVM_REG_F
#define PVM_REGKIND_Fw PVM_REG_F
#define PVM_REGKIND_Frw PVM_REG_F
#define PVM_REGROLE__ PVM_ROLE_NONE
#define PVM_REGROLE_Xr PVM_ROLE_R
#define PVM_REGROLE_Xw PVM_ROLE_W
#define PVM_REGROLE_Xrw PVM_ROLE_RW
#define PVM_REGROLE_Fr PVM_ROLE_R
#define PVM_REGROLE_Fw PVM_ROLE_W
#define PVM_REGROLE_Frw PVM_ROLE_RW

/* A register operand takes a byte of the register pack (its number, below
 * 32: the top three bits are zero), so that the interpreter reads it with
 * one load; profiles of version 2 and before stored 5-bit packs. */
#define PVM_REG_BITS 8
#define PVM_REGPACK_BYTES(n) (n)

/* A parenthesised list of the table, as the elements of an initializer. */
#define PVM_LIST_(...) __VA_ARGS__

/* A macro op's name and its format's ("M_" and the name) are written into
 * the rows and handlers pulley-macrogen generates with this prefix
 * (MOP(PVMM_linux, PVMM_M_linux, ...), OPCODE(PVMM_linux)): a bare name
 * passed from one X-macro to another is macro-expanded on the way, and
 * names a compilation environment predefines (linux, unix, errno, EOF,
 * NULL, M_PI) or this project's (A, HOOK_ARGS) would break the build.  No
 * macro starts with the prefix.  The names the table gives (pvm_ops[].name,
 * pvm_formats[].name) are without it: PVM_MACRO_ID_NAME of the identifier
 * stringised. */
#define PVM_MACRO_ID_PREFIX "PVMM_"
#define PVM_MACRO_ID_NAME(str) (&(str)[sizeof PVM_MACRO_ID_PREFIX - 1])

/* ---- operand formats ---------------------------------------------------- */

typedef enum pvm_format {
#define FORMAT(name, r0, r1, r2, r3, imm) PVM_FMT_##name,
#define MFORMAT(name, nregs, classes, roles, nimms, imms, pack, imm_bytes, imm_at) \
    PVM_FMT_##name,
#include "opcodes.def"
    PVM_FMT_COUNT
} pvm_format;

/* Per-format constants: number of registers, size of the register pack and
 * of the immediates (for a jump table, only its count). */
enum {
#define FORMAT(name, r0, r1, r2, r3, imm)                                      \
    PVM_FMT_NREGS_##name = PVM_REGCOUNT_##r0 + PVM_REGCOUNT_##r1 +             \
                           PVM_REGCOUNT_##r2 + PVM_REGCOUNT_##r3,              \
    PVM_FMT_PACK_##name = PVM_REGPACK_BYTES(PVM_FMT_NREGS_##name),             \
    PVM_FMT_IMM_##name = PVM_IMMSIZE_##imm,
#define MFORMAT(name, nregs, classes, roles, nimms, imms, pack, imm_bytes, imm_at) \
    PVM_FMT_NREGS_##name = (nregs), PVM_FMT_PACK_##name = (pack),              \
    PVM_FMT_IMM_##name = (imm_bytes),
#include "opcodes.def"
};

typedef struct pvm_format_info {
    const char *name;
    uint8_t nregs;                /* register operands, always first */
    uint8_t reg[PVM_MAX_REGS];    /* pvm_reg_kind of each register operand */
    uint8_t role[PVM_MAX_REGS];   /* pvm_role of each register operand */
    uint8_t pack_bytes;           /* bytes of the register pack */
    uint8_t nimms;                /* immediates, after the pack */
    uint8_t imm[PVM_MAX_IMMS];    /* pvm_imm_kind of each immediate */
    uint8_t imm_at[PVM_MAX_IMMS]; /* offset of each from the end of the pack */
    uint8_t imm_bytes;            /* bytes of all immediates (a table's count only) */
} pvm_format_info;

extern const pvm_format_info pvm_formats[PVM_FMT_COUNT];

/* ---- opcodes ------------------------------------------------------------ */

/* Opcode numbers: a primary opcode's number is its first byte; an extended
 * opcode's number is 256 + its 16-bit code. */
typedef enum pvm_op {
#define OP(name, format, flags, class, semantics) PVM_OP_##name,
#include "opcodes.def"
    PVM_OP_PRIMARY_END,
    PVM_OP_EXT_BASE_ = 255, /* so that the first extended opcode is 256 */
#define EXT(name, format, flags, class, semantics) PVM_OP_##name,
#include "opcodes.def"
    PVM_OP_END
} pvm_op;

#define PVM_OP_EXT_FIRST 256
#define PVM_OP_IS_EXT(op) ((op) >= PVM_OP_EXT_FIRST)
#define PVM_OP_EXT_COUNT (PVM_OP_END - PVM_OP_EXT_FIRST)

_Static_assert(PVM_OP_PRIMARY_END < PVM_ESCAPE_BYTE,
               "primary opcodes must leave the escape byte free");

/* T(WORD, bit): the words of the table's flags column ("BRANCH|TERM"),
 * each PVM_FLAG_WORD = 1u << bit; the one list isa.c reads the column
 * with and interp/gen writes it with. */
#define PVM_FLAG_WORDS(T)                                                      \
    T(BRANCH, 0) /* has branch targets */                                      \
    T(TERM, 1)   /* never falls through to the next insn */                    \
    T(TRAPS, 2)  /* may trap */                                                \
    T(CALL, 3)   /* calls a function */                                        \
    T(RETURN, 4) /* returns: the caller reads its results */                   \
    T(MACRO, 5)  /* a macro op (pvm_op_info.macro) */

enum {
#define PVM_FLAG_ENUM(word, bit) PVM_FLAG_##word = 1u << (bit),
    PVM_FLAG_WORDS(PVM_FLAG_ENUM)
#undef PVM_FLAG_ENUM
};

/* An instruction with any of these flags ends a straight-line run: the
 * profiling build publishes the pc where the next one starts (vm_hooks.h),
 * and the collector spreads a sample over the run it names. */
#define PVM_FLAGS_END_RUN                                                      \
    (PVM_FLAG_BRANCH | PVM_FLAG_TERM | PVM_FLAG_CALL | PVM_FLAG_RETURN)

/* C(name): the operation classes of the table's class column, by what an
 * operation does (its operands' kinds and immediates are its format's);
 * analysis tools group opcodes by them (pulley-dis --opcodes). */
#define PVM_OP_CLASSES(C)                                                      \
    C(other)            /* nop */                                              \
    C(branch)           /* unconditional jump, jump table */                   \
    C(cond_branch)      /* branch on a register's value */                     \
    C(call)             /* direct, indirect and host calls */                  \
    C(return)           /* return to the caller */                             \
    C(trap)             /* stop with a trap */                                 \
    C(const)            /* a register set to a constant */                     \
    C(move)             /* a register copied */                                \
    C(select)           /* one of two registers chosen by a third */           \
    C(add)              /* addition and subtraction, integer and float */      \
    C(multiply)         /* multiplication, integer and float */                \
    C(int_alu)          /* other integer arithmetic: division, bitwise,        \
                           shifts, bit counts, sign and zero extension */      \
    C(compare)          /* integer and float comparisons (0 or 1) */           \
    C(load)             /* data-space load at a register + offset */           \
    C(store)            /* data-space store at a register + offset */          \
    C(heap_load)        /* Wasm heap load, its bounds check folded in */       \
    C(heap_store)       /* Wasm heap store, its bounds check folded in */      \
    C(bounds_check)     /* explicit heap bounds check */                       \
    C(heap)             /* heap base address, size, growth */                  \
    C(reference)        /* function references and their type checks */        \
    C(global)           /* global get and set */                               \
    C(table)            /* table get, set, size, growth */                     \
    C(frame_push)       /* a call frame pushed (lr, fp saved) */               \
    C(frame_pop)        /* a call frame popped (lr, fp restored) */            \
    C(stack)            /* stack pointer moved or read */                      \
    C(register_save)    /* a register pushed on the stack */                   \
    C(register_restore) /* a register popped from the stack */                 \
    C(float_arith)      /* other float arithmetic: division, min, max,         \
                           roots, rounding, signs */                           \
    C(convert)          /* int/float conversion, reinterpretation of bits */   \
    C(macro)            /* a macro op: the work of several classes' parts */

typedef enum pvm_op_class {
#define PVM_CLASS_ENUM(name) PVM_CLASS_##name,
    PVM_OP_CLASSES(PVM_CLASS_ENUM)
#undef PVM_CLASS_ENUM
    PVM_CLASS_COUNT
} pvm_op_class;

/* Per-opcode compile-time constants for the interpreter:
 *   PVM_LEN_op   encoded length (for a jump table: without its entries)
 *   PVM_REGS_op  byte offset of the register pack
 *   PVM_IMM_op   byte offset of the (first) immediate                     */
#define PVM_OP_CONSTANTS(name, format, hdr)                                   \
    PVM_REGS_##name = (hdr),                                                   \
    PVM_IMM_##name = (hdr) + PVM_FMT_PACK_##format,                            \
    PVM_LEN_##name = (hdr) + PVM_FMT_PACK_##format + PVM_FMT_IMM_##format,     \
    PVM_FMTOF_##name = PVM_FMT_##format,
enum {
#define OP(name, format, flags, class, semantics) PVM_OP_CONSTANTS(name, format, 1)
#define EXT(name, format, flags, class, semantics) PVM_OP_CONSTANTS(name, format, 3)
#include "opcodes.def"
};

/* One part of a macro op: the opcode it does the work of, and which of the
 * macro instruction's operands are its operands. */
typedef struct pvm_macro_part {
    uint16_t op;                 /* a baseline opcode */
    uint8_t reg[PVM_MAX_REGS];   /* its register operand i is macro register reg[i] */
    uint8_t imm[PVM_MAX_IMMS];   /* its immediate i is macro immediate imm[i] */
} pvm_macro_part;

#define PVM_MAX_PARTS 8

typedef struct pvm_macro_info {
    uint8_t nparts;
    pvm_macro_part part[PVM_MAX_PARTS];
} pvm_macro_info;

typedef struct pvm_op_info {
    const char *name;   /* mnemonic; NULL for an unused opcode number */
    uint16_t format;    /* pvm_format (a macro build adds one per macro op) */
    uint8_t flags;      /* PVM_FLAG_* */
    uint8_t length;     /* encoded length (a jump table's entries excluded) */
    uint8_t opclass;    /* pvm_op_class: what the operation does */
    const char *semantics;
    const pvm_macro_info *macro; /* a macro op's parts; NULL for the others */
} pvm_op_info;

/* Indexed by pvm_op; entries for unused numbers have name == NULL. */
extern const pvm_op_info pvm_ops[PVM_OP_END];

/* The descriptor of op, or NULL if op is not an opcode. */
static inline const pvm_op_info *pvm_op_lookup(unsigned op)
{
    return op < PVM_OP_END && pvm_ops[op].name ? &pvm_ops[op] : NULL;
}
/* The opcode with this mnemonic, or -1. */
int pvm_op_by_name(const char *name, size_t len);
/* The name of an operation class ("cond_branch"), or NULL past the last. */
const char *pvm_op_class_name(unsigned opclass);
/* The opcode that op is matched as by n-grams and macro ops: the `wide`
 * of its WIDE row (the same operation with a wider immediate), else op. */
unsigned pvm_op_wide(unsigned op);
/* Number of opcodes in the table (primary and extended), and how many of
 * them are macro ops. */
unsigned pvm_op_count(void);
unsigned pvm_macro_count(void);
/* FNV-1a hash over every row of the table (names, formats with their
 * operand classes, roles and immediates, flags, opcode numbers, macro
 * parts, wide forms): identifies the ISA a profile or module was made with. */
uint64_t pvm_isa_hash(void);

/* The stored forms of a format (the profile database's `opcodes` rows):
 * its operand kinds, "x x s32" ("" when none), and the role of each
 * register operand, "w r" ("" when none).  Return the length written. */
size_t pvm_format_operands(const pvm_format_info *fmt, char *buf, size_t cap);
size_t pvm_format_roles(const pvm_format_info *fmt, char *buf, size_t cap);
/* The word naming an immediate kind ("s32"; "" for NONE). */
const char *pvm_imm_word(unsigned kind);
/* The encoded size of an immediate kind (a table: its count). */
unsigned pvm_imm_size(unsigned kind);

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
