/*
 * builtin_table.c - the compiled-in opcode table (interp/opcodes.def) made
 * into the rows pulley-collect stores: name, operand kinds, length.
 */
#include "builtin_table.h"

#include <ctype.h>
#include <string.h>

#include "isa.h"

/* The decoder of stored rows states the encoding without the VM's headers. */
_Static_assert(PVM_ESCAPE_BYTE == OT_ESCAPE_BYTE, "the escape byte of opcode_rows.h is the VM's");

/* The FORMAT columns of opcodes.def, "X X _ _ S32", as pulley-collect reads them. */
static const char *const format_columns[PVM_FMT_COUNT] = {
#define FORMAT(name, r0, r1, r2, r3, imm) [PVM_FMT_##name] = #r0 " " #r1 " " #r2 " " #r3 " " #imm,
#include "opcodes.def"
};

/* "X X _ _ S32" -> "x x s32" (the stored `operands`); "_ _ _ _ NONE" -> "". */
static void stored_operands(char *out, size_t cap, const char *columns)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = columns; *p;) {
        size_t len = strcspn(p, " ");
        int skip = (len == 1 && *p == '_') || (len == 4 && memcmp(p, "NONE", 4) == 0);
        if (!skip && n + len + 2 <= cap) {
            if (n)
                out[n++] = ' ';
            for (size_t i = 0; i < len; i++)
                out[n++] = (char)tolower((unsigned char)p[i]);
            out[n] = '\0';
        }
        p += len;
        while (*p == ' ')
            p++;
    }
}

int sx_builtin_table(ot_table *t, char *err, size_t cap)
{
    *t = (ot_table){0};
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = &pvm_ops[op];
        if (!info->name)
            continue;
        char operands[64];
        stored_operands(operands, sizeof operands, format_columns[info->format]);
        if (ot_table_add(t, op, info->name, operands, info->length, err, cap) != 0) {
            ot_table_free(t);
            return -1;
        }
    }
    return 0;
}
