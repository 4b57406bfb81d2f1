/*
 * macro_check.c - a set of macro ops checked against an instruction set
 * (macro_check.h): the checks the generator and --evaluate share.
 */
#include "macro_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* "FILE:LINE: macro op NAME" then what fmt says; returns -1. */
static int refuse(char *err, size_t cap, const char *file, unsigned line, const fu_macro *m,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int refuse(char *err, size_t cap, const char *file, unsigned line, const fu_macro *m,
                  const char *fmt, ...)
{
    int n = line ? snprintf(err, cap, "%s:%u: macro op %s", file, line, m->name)
                 : snprintf(err, cap, "%s: macro op %s", file, m->name);
    if (n >= 0 && (size_t)n < cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Part k of m against what the set says of its opcode. */
static int check_part(const fu_macro *m, unsigned k, const fu_isa *isa, const char *file,
                      char *err, size_t cap)
{
    const fu_part *pt = &m->part[k];
    unsigned line = pt->line ? pt->line : m->line;
    fu_isa_op op;
    memset(&op, 0, sizeof op);
    if (!isa->lookup(isa->ctx, pt->op, &op))
        return refuse(err, cap, file, line, m, ": part %u, %s, is no opcode of the instruction set",
                      k + 1, pt->op);
    if (op.macro)
        return refuse(err, cap, file, line, m,
                      ": part %u, %s, is itself a macro op: name its parts", k + 1, pt->op);
    if (op.wide[0] && strcmp(op.wide, pt->op) != 0)
        return refuse(err, cap, file, line, m,
                      ": part %u, %s, is matched as %s (the same with a wider immediate):"
                      " name %s",
                      k + 1, pt->op, op.wide, op.wide);
    if (op.ends && k + 1 < m->nparts)
        return refuse(err, cap, file, line, m,
                      ": part %u, %s, branches, calls or returns: only the last part may", k + 1,
                      pt->op);
    if (pt->nregs != op.nregs || pt->nimms != op.nimms)
        return refuse(err, cap, file, line, m,
                      ": part %u, %s, takes %u registers and %u immediates, not %u and %u", k + 1,
                      pt->op, op.nregs, op.nimms, pt->nregs, pt->nimms);
    for (unsigned j = 0; j < pt->nregs && j < FU_MAX_REGS; j++) {
        unsigned r = pt->reg[j];
        const char *want = op.kind[j];
        if (want[0] && r < FU_MAX_REGS && strcmp(m->kind[r], want) != 0)
            return refuse(err, cap, file, line, m,
                          ": part %u, %s, takes an %.*s register as operand %u, not %s%u", k + 1,
                          pt->op, FU_MAX_KIND, want, j + 1, m->kind[r], r);
    }
    return 0;
}

int fu_check_macro(const fu_macro *m, const fu_isa *isa, const char *file, char *err, size_t cap)
{
    fu_isa_op op;
    memset(&op, 0, sizeof op);
    if (isa->lookup(isa->ctx, m->name, &op) && !op.macro)
        return refuse(err, cap, file, m->line, m,
                      " has the name of an opcode of the instruction set: name it otherwise");
    for (unsigned k = 0; k < m->nparts && k < FU_MAX_PARTS; k++)
        if (check_part(m, k, isa, file, err, cap) != 0)
            return -1;
    return 0;
}

int fu_check_set(const fu_set *s, const fu_isa *isa, const char *file, char *err, size_t cap)
{
    for (size_t i = 0; i < s->n; i++)
        if (fu_check_macro(&s->macros[i], isa, file, err, cap) != 0)
            return -1;
    return 0;
}
