/*
 * pulley_rows.c - pulley-macrogen's Pulley mode, the table (pulley_mode.h):
 * each macro op checked against the baseline opcode table (its parts are
 * baseline opcodes in their wide form, with their operand counts and
 * classes; only the last may branch, call or return), its registers'
 * roles, immediates and flags worked out from its parts, and written as
 * an MFORMAT and an MOP or MEXT row of opcodes.def.
 */
#include "pulley_mode.h"

#include <string.h>

#include "gen_io.h"
#include "isa.h"

enum { ENDS = PVM_FLAG_BRANCH | PVM_FLAG_TERM | PVM_FLAG_CALL | PVM_FLAG_RETURN };

/* The baseline opcode of part k of m, checked: a baseline opcode in its
 * wide form, ending the op only as its last part, with the operand
 * counts of its format. */
static unsigned part_opcode(const char *set_path, const fu_macro *m, unsigned k)
{
    const fu_part *pt = &m->part[k];
    int op = pvm_op_by_name(pt->op, strlen(pt->op));
    if (op < 0)
        mg_die("%s: macro op %s: part %u, %s, is not an opcode of the baseline", set_path,
               m->name, k + 1, pt->op);
    const char *wide = pvm_ops[pvm_op_wide((unsigned)op)].name;
    if (pvm_op_wide((unsigned)op) != (unsigned)op)
        mg_die("%s: macro op %s: part %u, %s, is matched as %s (the same with a wider "
               "immediate): name %s",
               set_path, m->name, k + 1, pt->op, wide, wide);
    const pvm_op_info *info = &pvm_ops[op];
    const pvm_format_info *fmt = &pvm_formats[info->format];
    if ((info->flags & ENDS) && k + 1 < m->nparts)
        mg_die("%s: macro op %s: part %u, %s, branches, calls or returns: only the last part may",
               set_path, m->name, k + 1, pt->op);
    if (pt->nregs != fmt->nregs || pt->nimms != fmt->nimms)
        mg_die("%s: macro op %s: part %u, %s, takes %u registers and %u immediates, not %u and %u",
               set_path, m->name, k + 1, pt->op, fmt->nregs, fmt->nimms, pt->nregs, pt->nimms);
    return (unsigned)op;
}

/* The roles part k (of format fmt) gives the macro registers it names
 * (*seen: those read or written by the parts before), their classes
 * checked. */
static void part_roles(const char *set_path, const fu_macro *m, unsigned k,
                       const pvm_format_info *fmt, macro_row *row, unsigned *seen)
{
    const fu_part *pt = &m->part[k];
    /* Within one instruction the reads come before the writes. */
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned j = 0; j < fmt->nregs; j++) {
            unsigned r = pt->reg[j];
            const char *kind = fmt->reg[j] == PVM_REG_X ? "x" : "f";
            if (strcmp(m->kind[r], kind) != 0)
                mg_die("%s: macro op %s: part %u, %s, takes an %s register as operand %u, not %s%u",
                       set_path, m->name, k + 1, pt->op, kind, j + 1, m->kind[r], r);
            unsigned bit = pass == 0 ? PVM_ROLE_R : PVM_ROLE_W;
            if (!(fmt->role[j] & bit))
                continue;
            if (bit == PVM_ROLE_R && !(*seen >> r & 1))
                row->role[r] |= PVM_ROLE_R; /* read before the macro writes it */
            if (bit == PVM_ROLE_W)
                row->role[r] |= PVM_ROLE_W;
            *seen |= 1u << r;
        }
}

void mg_pulley_describe(const char *set_path, const fu_macro *m, macro_row *row)
{
    memset(row, 0, sizeof *row);
    row->m = m;
    if (pvm_op_by_name(m->name, strlen(m->name)) >= 0)
        mg_die("%s: macro op %s has the name of a baseline opcode", set_path, m->name);
    unsigned nimm = 0, seen = 0; /* seen: macro registers read or written so far */
    for (unsigned k = 0; k < m->nparts; k++) {
        unsigned op = part_opcode(set_path, m, k);
        const pvm_op_info *info = &pvm_ops[op];
        const pvm_format_info *fmt = &pvm_formats[info->format];
        part_roles(set_path, m, k, fmt, row, &seen);
        for (unsigned i = 0; i < fmt->nimms; i++) {
            row->imm[nimm] = fmt->imm[i];
            row->imm_at[nimm] = (uint8_t)row->imm_bytes;
            row->imm_bytes += pvm_imm_size(fmt->imm[i]);
            nimm++;
        }
        row->flags |= info->flags & PVM_FLAG_TRAPS;
        if (k + 1 == m->nparts)
            row->flags |= info->flags & ENDS;
        row->part_op[k] = op;
    }
    row->flags |= PVM_FLAG_MACRO;
    for (unsigned r = 0; r < m->nregs; r++)
        if (!row->role[r])
            mg_die("%s: macro op %s: macro register %u is neither read nor written", set_path,
                   m->name, r);
    row->pack = PVM_REGPACK_BYTES(m->nregs);
    if (3 + row->pack + row->imm_bytes > 255)
        mg_die("%s: macro op %s is longer than 255 bytes", set_path, m->name);
}

static void print_flags(FILE *out, unsigned flags)
{
    int n = 0;
#define PRINT_FLAG(word, bit)                                                  \
    if (flags & PVM_FLAG_##word)                                               \
        fprintf(out, "%s%s", n++ ? "|" : "", #word);
    PVM_FLAG_WORDS(PRINT_FLAG)
#undef PRINT_FLAG
}

/* "xadd32 a, b, c; bcheck32 a, imm0": the parts with the macro's operand names. */
static void print_semantics(FILE *out, const fu_macro *m)
{
    unsigned imm = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        fprintf(out, "%s%s", k ? "; then " : "", pt->op);
        for (unsigned j = 0; j < pt->nregs; j++)
            fprintf(out, "%s%c", j ? ", " : " ", 'a' + pt->reg[j]);
        for (unsigned i = 0; i < pt->nimms; i++)
            fprintf(out, "%simm%u", pt->nregs || i ? ", " : " ", imm++);
    }
}

static void print_list(FILE *out, const char *prefix, const char *const *names,
                       const uint8_t *v, unsigned n)
{
    fputc('(', out);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%s%s", i ? ", " : "", prefix, names[v[i]]);
    if (n == 0)
        fputs("0", out);
    fputc(')', out);
}

void mg_pulley_write_rows(FILE *out, const macro_row *rows, size_t n)
{
    static const char *const cls[] = {"NONE", "X", "F"};
    static const char *const roles[] = {"NONE", "R", "W", "RW"};
    static const char *const imms[] = {
#define IMM_NAME(name, word, bytes) #name,
        PVM_IMM_KINDS(IMM_NAME)
#undef IMM_NAME
    };
    for (size_t i = 0; i < n; i++) {
        const macro_row *r = &rows[i];
        const fu_macro *m = r->m;
        uint8_t kinds[FU_MAX_REGS];
        for (unsigned j = 0; j < m->nregs; j++)
            kinds[j] = strcmp(m->kind[j], "x") == 0 ? PVM_REG_X : PVM_REG_F;
        fprintf(out, "\n/* %s: ", m->name);
        for (unsigned k = 0; k < m->nparts; k++)
            fprintf(out, "%s%s", k ? " + " : "", m->part[k].op);
        fprintf(out, " */\nMFORMAT(M_%s, %u, ", m->name, m->nregs);
        print_list(out, "PVM_REG_", cls, kinds, m->nregs);
        fputs(", ", out);
        print_list(out, "PVM_ROLE_", roles, r->role, m->nregs);
        fprintf(out, ", %u, ", m->nimms);
        print_list(out, "PVM_IMM_", imms, r->imm, m->nimms);
        fprintf(out, ", %u, %u, (", r->pack, r->imm_bytes);
        for (unsigned j = 0; j < m->nimms; j++)
            fprintf(out, "%s%u", j ? ", " : "", r->imm_at[j]);
        fprintf(out, "%s))\n%s(%s, M_%s, ", m->nimms ? "" : "0", r->extended ? "MEXT" : "MOP",
                m->name, m->name);
        print_flags(out, r->flags);
        fputs(", \"", out);
        print_semantics(out, m);
        fprintf(out, "\", %u, (", m->nparts);
        for (unsigned k = 0; k < m->nparts; k++) {
            const fu_part *pt = &m->part[k];
            fprintf(out, "%s{PVM_OP_%s, {", k ? ", " : "", pt->op);
            for (unsigned j = 0; j < pt->nregs; j++)
                fprintf(out, "%s%u", j ? ", " : "", pt->reg[j]);
            fprintf(out, "%s}, {", pt->nregs ? "" : "0");
            unsigned first = 0;
            for (unsigned q = 0; q < k; q++)
                first += m->part[q].nimms;
            for (unsigned j = 0; j < pt->nimms; j++)
                fprintf(out, "%s%u", j ? ", " : "", first + j);
            fprintf(out, "%s}}", pt->nimms ? "" : "0");
        }
        fputs("))\n", out);
    }
}
