/*
 * opcode_table.h - an opcode table as the profile database stores it (the
 * `opcodes` rows of a run: id, name, operand kinds such as "x x s32",
 * encoded length), checked and indexed for decoding.  The extension
 * decodes a run's code with the table stored with that run, and code of
 * no particular run with the compiled-in table, turned into the same rows
 * that pulley-collect stores.  Pure C: no SQLite in here.
 */
#ifndef SX_OPCODE_TABLE_H
#define SX_OPCODE_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Immediate operand kinds, by the word naming them in `operands`. */
typedef enum sx_imm {
    SX_IMM_NONE,
    SX_IMM_S8, SX_IMM_S16, SX_IMM_S32, SX_IMM_I64, /* signed constants */
    SX_IMM_U32,                                    /* unsigned amount */
    SX_IMM_OFF32,                                  /* signed memory offset */
    SX_IMM_REL32,                                  /* branch offset */
    SX_IMM_FUNC, SX_IMM_HOST,                      /* function, host import index */
    SX_IMM_TRAP,                                   /* trap kind */
    SX_IMM_F32, SX_IMM_F64,                        /* float bits */
    SX_IMM_TABLE,                                  /* jump table: u32 count, then entries */
    SX_IMM_GLOBAL, SX_IMM_TABLEIDX, SX_IMM_TYPE,   /* module indices */
    SX_IMM_UNKNOWN, /* a word this extension does not know: shown raw */
} sx_imm;

typedef struct sx_opcode {
    uint32_t id;      /* opcode number: first byte, or 256 + extended code */
    char *name;       /* mnemonic */
    uint8_t hdr;      /* opcode bytes: 1, or 3 behind the 0xFF escape */
    uint8_t nregs;    /* register operands, always first */
    uint8_t regf;     /* bit i: register operand i is an f register */
    uint8_t pack;     /* bytes of the register pack */
    uint8_t imm;      /* sx_imm */
    uint8_t imm_bytes;
    uint8_t length;   /* encoded bytes, jump table entries excluded */
} sx_opcode;

typedef struct sx_optable {
    sx_opcode *ops; /* sorted by id */
    size_t n, cap;
} sx_optable;

/* Append one row; ids must increase from row to row.  Returns 0, or -1
 * with err saying what is wrong with the row (an id that is not an opcode
 * number, operands that do not fit the length, out of memory). */
int sx_optable_add(sx_optable *t, int64_t id, const char *name, const char *operands,
                   int64_t length, char *err, size_t cap);

/* Fill t with the compiled-in instruction set, as pulley-collect would
 * store it.  Returns 0, or -1 with err. */
int sx_optable_builtin(sx_optable *t, char *err, size_t cap);

/* The opcode with this id, or NULL. */
const sx_opcode *sx_optable_find(const sx_optable *t, uint32_t id);

void sx_optable_free(sx_optable *t);

#endif
