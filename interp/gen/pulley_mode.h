/*
 * pulley_mode.h - pulley-macrogen's Pulley mode, for this project's VM:
 * what its opcode table (the baseline, interp/isa.c) says about each
 * macro op of a set, checked, and the two files a macro build includes:
 * the rows of the table (pulley_macro_rows.def, at the end of
 * opcodes.def: pulley_rows.c) and the handlers (pulley_macro_ops.h, at the
 * end of vm_ops.h: pulley_handlers.c).
 */
#ifndef MG_PULLEY_MODE_H
#define MG_PULLEY_MODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "macro_set.h"
#include "op_bodies.h"

/* Everything the rows and handlers say about one macro op. */
typedef struct macro_row {
    const fu_macro *m;
    unsigned part_op[FU_MAX_PARTS]; /* baseline opcode of each part */
    uint8_t role[FU_MAX_REGS];      /* pvm_role of each macro register */
    uint8_t imm[FU_MAX_IMMS];       /* pvm_imm_kind of each macro immediate */
    uint8_t imm_at[FU_MAX_IMMS];    /* its offset after the register pack */
    unsigned pack, imm_bytes, flags;
    int extended;
} macro_row;

/* Check m against the baseline table and work out its row; dies naming
 * set_path, the op and the part. */
void mg_pulley_describe(const char *set_path, const fu_macro *m, macro_row *row);

/* The MFORMAT and MOP/MEXT rows of rows[0 .. n). */
void mg_pulley_write_rows(FILE *out, const macro_row *rows, size_t n);

/* The handlers of rows[0 .. n), from the bodies of vm_ops.h. */
void mg_pulley_write_handlers(FILE *out, const macro_row *rows, size_t n, const mg_bodies *b);

#endif
