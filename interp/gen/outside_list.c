/*
 * outside_list.c - pulley-macrogen --outside, the list (outside_mode.h):
 * the set's macro ops as X-macro rows an outside interpreter includes to
 * number them, decode them and describe them to libpulleyprof (a
 * pulleyprof_opcode row with its .parts) without writing anything per
 * macro op by hand.  OUTSIDE.md shows it used.
 */
#include "outside_mode.h"

static const char *const rows_doc =
    " *\n"
    " *   MACRO_OP(NAME, INDEX, NPARTS, NREGS, NIMMS, KINDS)\n"
    " *       macro op INDEX (0 ..: the set's order, the index pulleyfuse_cover's\n"
    " *       choice gives): its name (a token), parts, registers, immediates, and\n"
    " *       its registers' kinds, a string (\"r r vec\")\n"
    " *   MACRO_OP_REG(NAME, I, KIND)\n"
    " *       its register I (0 .. NREGS - 1) is of kind KIND (a token: r, vec)\n"
    " *   MACRO_OP_PART(NAME, K, MNEMONIC, NREGS, NIMMS, REGS, IMMS)\n"
    " *       its part K (0 .. NPARTS - 1) is opcode MNEMONIC (a token) with NREGS\n"
    " *       register operands and NIMMS immediates; REGS (\"0 1 2\") says which of\n"
    " *       the macro op's registers each register operand is, IMMS (\"0\") which\n"
    " *       of its immediates each immediate is: the strings of a pulleyprof_part\n"
    " *   MACRO_OP_END(NAME)\n"
    " *\n"
    " * The macro instruction's operands are its registers, then its immediates,\n"
    " * in their order; how they are encoded is the interpreter's choice.  Define\n"
    " * the rows you use before including this file: the others expand to\n"
    " * nothing, and all four are #undef'd at its end. */\n";

static const char *const names[] = {"MACRO_OP", "MACRO_OP_REG", "MACRO_OP_PART", "MACRO_OP_END"};
static const char *const params[] = {"(name, index, nparts, nregs, nimms, kinds)",
                                     "(name, i, kind)",
                                     "(name, k, mnemonic, nregs, nimms, regs, imms)", "(name)"};

/* The rows of macro op i. */
static void write_op(FILE *out, const fu_macro *m, size_t i)
{
    fprintf(out, "\nMACRO_OP(%s, %zu, %u, %u, %u, \"", m->name, i, m->nparts, m->nregs, m->nimms);
    for (unsigned r = 0; r < m->nregs; r++)
        fprintf(out, "%s%s", r ? " " : "", m->kind[r]);
    fputs("\")\n", out);
    for (unsigned r = 0; r < m->nregs; r++)
        fprintf(out, "MACRO_OP_REG(%s, %u, %s)\n", m->name, r, m->kind[r]);
    unsigned imm = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        fprintf(out, "MACRO_OP_PART(%s, %u, %s, %u, %u, \"", m->name, k, pt->op, pt->nregs,
                pt->nimms);
        for (unsigned j = 0; j < pt->nregs; j++)
            fprintf(out, "%s%u", j ? " " : "", pt->reg[j]);
        fputs("\", \"", out);
        for (unsigned j = 0; j < pt->nimms; j++)
            fprintf(out, "%s%u", j ? " " : "", imm++);
        fputs("\")\n", out);
    }
    fprintf(out, "MACRO_OP_END(%s)\n", m->name);
}

void mg_outside_write_list(FILE *out, const fu_set *set, const char *set_path)
{
    fprintf(out, "\n/* The %zu macro ops of %s, in its order:\n%s", set->n, set_path, rows_doc);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        fprintf(out, "#ifndef %s\n#define %s%s\n#endif\n", names[i], names[i], params[i]);
    for (size_t i = 0; i < set->n; i++)
        write_op(out, &set->macros[i], i);
    fputc('\n', out);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        fprintf(out, "#undef %s\n", names[i]);
}
