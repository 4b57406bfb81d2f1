/*
 * pulley_rows.c - pulley-macrogen's Pulley mode, the table (pulley_mode.h):
 * each macro op checked against the baseline opcode table by the checks
 * --evaluate makes too (fusion/macro_check.h: its parts are baseline
 * opcodes in their wide form, with their operand counts and classes; only
 * the last may branch, call or return), its registers' roles, immediates
 * and flags worked out from its parts, and written as an MFORMAT and an
 * MOP or MEXT row of opcodes.def, its name and its format's prefixed
 * (PVM_MACRO_ID_PREFIX) so that no macro of the compilation expands them.
 */
#include "pulley_mode.h"

#include <string.h>

#include "gen_io.h"
#include "isa.h"
#include "macro_check.h"

enum { ENDS = PVM_FLAG_BRANCH | PVM_FLAG_TERM | PVM_FLAG_CALL | PVM_FLAG_RETURN };

/* The baseline table as the shared checks (fusion/macro_check.h) ask it:
 * every opcode a plain one, registers of kind x or f. */
static int baseline_lookup(void *ctx, const char *mnemonic, fu_isa_op *out)
{
    (void)ctx;
    int op = pvm_op_by_name(mnemonic, strlen(mnemonic));
    if (op < 0)
        return 0;
    const pvm_op_info *info = &pvm_ops[op];
    const pvm_format_info *fmt = &pvm_formats[info->format];
    out->nregs = fmt->nregs;
    out->nimms = fmt->nimms;
    for (unsigned j = 0; j < fmt->nregs && j < FU_MAX_REGS; j++)
        snprintf(out->kind[j], sizeof out->kind[j], "%s", fmt->reg[j] == PVM_REG_X ? "x" : "f");
    out->ends = (info->flags & ENDS) != 0;
    out->macro = 0;
    unsigned wide = pvm_op_wide((unsigned)op);
    snprintf(out->wide, sizeof out->wide, "%s", wide != (unsigned)op ? pvm_ops[wide].name : "");
    return 1;
}

/* The roles part k (of format fmt) gives the macro registers it names
 * (*seen: those read or written by the parts before). */
static void part_roles(const fu_macro *m, unsigned k, const pvm_format_info *fmt, macro_row *row,
                       unsigned *seen)
{
    const fu_part *pt = &m->part[k];
    /* Within one instruction the reads come before the writes. */
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned j = 0; j < fmt->nregs; j++) {
            unsigned r = pt->reg[j];
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
    char err[1024];
    const fu_isa baseline = {baseline_lookup, NULL};
    if (fu_check_macro(m, &baseline, set_path, err, sizeof err) != 0)
        mg_die("%s", err);
    unsigned nimm = 0, seen = 0; /* seen: macro registers read or written so far */
    for (unsigned k = 0; k < m->nparts; k++) {
        unsigned op = (unsigned)pvm_op_by_name(m->part[k].op, strlen(m->part[k].op));
        const pvm_op_info *info = &pvm_ops[op];
        const pvm_format_info *fmt = &pvm_formats[info->format];
        part_roles(m, k, fmt, row, &seen);
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
            mg_die("%s:%u: macro op %s: macro register %u is neither read nor written", set_path,
                   m->line, m->name, r);
    row->pack = PVM_REGPACK_BYTES(m->nregs);
    if (3 + row->pack + row->imm_bytes > 255)
        mg_die("%s:%u: macro op %s is longer than 255 bytes", set_path, m->line, m->name);
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
        /* Names with the prefix, never bare (isa.h: PVM_MACRO_ID_PREFIX). */
        fprintf(out, " */\nMFORMAT(%sM_%s, %u, ", PVM_MACRO_ID_PREFIX, m->name, m->nregs);
        print_list(out, "PVM_REG_", cls, kinds, m->nregs);
        fputs(", ", out);
        print_list(out, "PVM_ROLE_", roles, r->role, m->nregs);
        fprintf(out, ", %u, ", m->nimms);
        print_list(out, "PVM_IMM_", imms, r->imm, m->nimms);
        fprintf(out, ", %u, %u, (", r->pack, r->imm_bytes);
        for (unsigned j = 0; j < m->nimms; j++)
            fprintf(out, "%s%u", j ? ", " : "", r->imm_at[j]);
        fprintf(out, "%s))\n%s(%s%s, %sM_%s, ", m->nimms ? "" : "0",
                r->extended ? "MEXT" : "MOP", PVM_MACRO_ID_PREFIX, m->name, PVM_MACRO_ID_PREFIX,
                m->name);
        print_flags(out, r->flags);
        fputs(", macro, \"", out); /* the class column: isa.h's macro */
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
