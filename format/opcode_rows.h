/*
 * opcode_rows.h - an opcode table made of the rows a profile database
 * stores with each run (`opcodes`: id, name, operand kinds such as
 * "x x s32", encoded length), each row checked against its length and the
 * table indexed by id.  It is the encoding only: what a row means to a
 * reader (flags, which operand is written) stays with that reader.
 *
 * Pure C, neither SQLite nor the VM: pulley-ngrams and pulley-report
 * (isa_table.c) and the SQLite extension (sql/ext) read the rows their own
 * way, build this table and decode with it (opcode_decode.h), so a profile
 * decodes with the instruction set it was taken with.  Names start with
 * ot_ ("opcode table").
 *
 * The encoding (drawn at the top of interp/opcodes.def): a one-byte
 * opcode, or the escape byte 0xFF and a 16-bit little-endian extended code
 * (opcode id 256 + code); then the register operands, a byte each (the
 * row's reg_bits 8; below 32), or - rows of older profiles, reg_bits 5 -
 * 5 bits each from bit 0 in as few whole bytes as hold them; then the
 * little-endian
 * immediates, in order (a baseline op has at most one, a macro op up to
 * OT_MAX_IMMS); a jump table's entries follow the instruction.
 */
#ifndef OT_OPCODE_ROWS_H
#define OT_OPCODE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#define OT_ESCAPE_BYTE 0xFF /* then a 16-bit extended code */
#define OT_MAX_REGS 16
#define OT_MAX_IMMS 8

/* Immediate operand kinds, by the word naming them in `operands`. */
typedef enum ot_imm {
    OT_IMM_NONE,
    OT_IMM_S8, OT_IMM_S16, OT_IMM_S32, OT_IMM_I64, /* signed constants */
    OT_IMM_U32,                                    /* unsigned amount */
    OT_IMM_OFF32,                                  /* signed memory offset */
    OT_IMM_REL32,                                  /* branch offset */
    OT_IMM_FUNC, OT_IMM_HOST,                      /* function, host import index */
    OT_IMM_TRAP,                                   /* trap kind */
    OT_IMM_F32, OT_IMM_F64,                        /* float bits */
    OT_IMM_TABLE,                                  /* jump table: u32 count, then entries */
    OT_IMM_GLOBAL, OT_IMM_TABLEIDX, OT_IMM_TYPE,   /* module indices */
    OT_IMM_UNKNOWN, /* a word of a newer ISA: sized by what the length leaves */
} ot_imm;

typedef struct ot_opcode {
    uint32_t id;       /* opcode number: first byte, or 256 + extended code */
    char *name;        /* mnemonic */
    uint8_t hdr;       /* opcode bytes: 1, or 3 behind the escape byte */
    uint8_t reg_bits;  /* 8: a byte per register operand; 5: packed 5-bit fields */
    uint8_t nregs;     /* register operands, always first */
    uint16_t regf;     /* bit i: register operand i is an f register */
    uint8_t pack;      /* bytes of the register pack */
    uint8_t nimms;     /* immediates, after the pack */
    uint8_t imm[OT_MAX_IMMS];      /* ot_imm of each */
    uint8_t imm_size[OT_MAX_IMMS]; /* bytes of each, 1 .. 8 */
    uint8_t imm_bytes; /* bytes of all immediates */
    uint8_t length;    /* encoded bytes, jump table entries excluded */
    uint8_t declared;  /* a row of another encoding (reg_bits 0): its operands are
                        * declared, not decodable here (ot_decode refuses it) */
    uint8_t foreign;   /* declared: a register operand of a class other than x, f */
} ot_opcode;

typedef struct ot_table {
    ot_opcode *ops; /* sorted by id */
    size_t n, cap;
} ot_table;

/* Append one row (t starts zeroed); ids must increase from row to row.
 * Returns 0, or -1 with err saying what is wrong with the row (an id that
 * is not an opcode number or is out of order, no name, operands that do
 * not fit the length, out of memory); t is unchanged then. */
int ot_table_add(ot_table *t, int64_t id, const char *name, const char *operands,
                 int64_t length, int64_t reg_bits, char *err, size_t cap);

/* Append a row of an ISA whose code is not in Pulley's encoding (stored
 * reg_bits 0): its first nregs operand words are register operands of the
 * class each names (x, f, or another: then foreign), the rest immediates;
 * the instruction rows stored with the run give their values.  Returns 0,
 * or -1 with err as ot_table_add. */
int ot_table_add_declared(ot_table *t, int64_t id, const char *name, const char *operands,
                          unsigned nregs, char *err, size_t cap);

/* Remove the row added last (a reader that refuses it after all). */
void ot_table_drop_last(ot_table *t);

/* The opcode with this id, or NULL. */
const ot_opcode *ot_table_find(const ot_table *t, uint32_t id);

void ot_table_free(ot_table *t);

#endif
