/*
 * builtin_table.c - the compiled-in opcode table (interp/opcodes.def, with
 * the build's macro ops) made into the rows pulley-collect stores: name,
 * operand kinds, length.
 */
#include "builtin_table.h"

#include "isa.h"

/* The decoder of stored rows states the encoding without the VM's headers. */
_Static_assert(PVM_ESCAPE_BYTE == OT_ESCAPE_BYTE, "the escape byte of opcode_rows.h is the VM's");

int sx_builtin_table(ot_table *t, char *err, size_t cap)
{
    *t = (ot_table){0};
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = &pvm_ops[op];
        if (!info->name)
            continue;
        char operands[8 * (PVM_MAX_REGS + PVM_MAX_IMMS)];
        pvm_format_operands(&pvm_formats[info->format], operands, sizeof operands);
        if (ot_table_add(t, op, info->name, operands, info->length, PVM_REG_BITS, err, cap) != 0) {
            ot_table_free(t);
            return -1;
        }
    }
    return 0;
}
