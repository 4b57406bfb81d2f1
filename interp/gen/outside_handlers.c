/*
 * outside_handlers.c - pulley-macrogen --outside, the handlers
 * (outside_mode.h): each macro op's handler composed (compose.c) from its
 * parts' bodies in an outside interpreter's words (OUTSIDE.md): register
 * operands A to P, immediates IMM0 to IMM7, read through the macros the
 * interpreter defines (MACRO_REG, MACRO_IMM and their types), and JUMP,
 * which only a last part may use.
 */
#include <string.h>

#include "compose.h"
#include "gen_io.h"
#include "outside_mode.h"

/* The first part of the set naming mnemonic op: in macro op *in, part *k. */
static const fu_part *first_named(const fu_set *set, const char *op, const fu_macro **in,
                                  unsigned *k)
{
    for (size_t i = 0; i < set->n; i++)
        for (*k = 0; *k < set->macros[i].nparts; ++*k)
            if (strcmp(set->macros[i].part[*k].op, op) == 0) {
                *in = &set->macros[i];
                return &set->macros[i].part[*k];
            }
    return NULL;
}

void mg_outside_check(const fu_set *set, const char *set_path, const mg_bodies *b)
{
    for (size_t i = 0; i < set->n; i++) {
        const fu_macro *m = &set->macros[i], *o;
        if (mg_body_of(b, m->name))
            mg_die("%s: macro op %s has the name of an op of %s", set_path, m->name, b->path);
        for (unsigned k = 0; k < m->nparts; k++) {
            const fu_part *a = &m->part[k];
            unsigned k2;
            const fu_part *c = first_named(set, a->op, &o, &k2);
            if (c && (a->nregs != c->nregs || a->nimms != c->nimms))
                mg_die("%s: macro op %s: part %u, %s, has %u registers and %u immediates, and"
                       " in macro op %s (part %u) %u and %u",
                       set_path, m->name, k + 1, a->op, a->nregs, a->nimms, o->name, k2 + 1,
                       c->nregs, c->nimms);
        }
    }
}

static void reg_local(const mg_part *p, unsigned r, char *type, size_t tcap, char *init,
                      size_t icap)
{
    snprintf(type, tcap, "MACRO_REG_TYPE(%s)", p->m->kind[r]);
    snprintf(init, icap, "MACRO_REG(%s, %u)", p->m->kind[r], r);
}

static void imm_local(const mg_part *p, unsigned j, char *type, size_t tcap, char *init,
                      size_t icap)
{
    snprintf(type, tcap, "MACRO_IMM_TYPE(%s, %u)", p->m->part[p->k].op, j);
    snprintf(init, icap, "MACRO_IMM(%u)", p->first_imm + j);
}

/* IMM0 .. IMM7: the part's immediates; JUMP: only in the last part. */
static int word(mg_rewrite *rw, const char *id, size_t n)
{
    const mg_part *p = mg_rewrite_part(rw);
    const fu_part *pt = &p->m->part[p->k];
    if (n > 3 && memcmp(id, "IMM", 3) == 0 && id[3] >= '0' && id[3] <= '9' &&
        (n == 4 || id[3] != '0')) {
        unsigned j = 0;
        for (size_t i = 3; i < n && j < 100; i++) {
            if (id[i] < '0' || id[i] > '9')
                return 0; /* IMM1x: not an operand word */
            j = 10 * j + (unsigned)(id[i] - '0');
        }
        if (j >= pt->nimms)
            mg_fail(rw, "its body reads %.*s, and the part has %u immediate%s", (int)n, id,
                    pt->nimms, pt->nimms == 1 ? "" : "s");
        char imm[16];
        snprintf(imm, sizeof imm, "imm%u", p->first_imm + j);
        mg_put(rw, imm);
        return 1;
    }
    if (n == 4 && memcmp(id, "JUMP", 4) == 0 && p->k + 1 < p->m->nparts)
        mg_fail(rw, "its body jumps (JUMP): only a macro op's last part may branch");
    return 0;
}

static const mg_style outside_style = {
    .reg_letters = 16,
    .reg_local = reg_local,
    .imm_local = imm_local,
    .word = word,
};

void mg_outside_write_handlers(FILE *out, const fu_set *set, const char *set_path,
                               const mg_bodies *b)
{
    fprintf(out,
            "\n/* The handlers of the %zu macro ops of %s, for the interpreter's\n"
            " * dispatch (interp/gen/OUTSIDE.md in the pulley toolkit).  Each reads its\n"
            " * operands once, into locals named as in the .macros file - r0, vec2:\n"
            " * macro register I of kind K, MACRO_REG(K, I), of type MACRO_REG_TYPE(K);\n"
            " * imm0 ...: macro immediate I, MACRO_IMM(I), of type MACRO_IMM_TYPE(OP, J)\n"
            " * of the part OP whose immediate J it is - where the first part that\n"
            " * uses it starts, and runs its parts' bodies in turn with those written\n"
            " * in for A, B, ... and IMM0, IMM1, ...; a part but the last goes on to the\n"
            " * next at the end of its block, and the last part's NEXT() dispatches. */\n"
            "#if !defined(OPCODE) || !defined(END_OPCODE) || !defined(NEXT) || \\\n"
            "    !defined(MACRO_REG) || !defined(MACRO_REG_TYPE) || !defined(MACRO_IMM) || \\\n"
            "    !defined(MACRO_IMM_TYPE)\n"
            "#error \"define OPCODE, END_OPCODE, NEXT, MACRO_REG, MACRO_REG_TYPE, MACRO_IMM and"
            " MACRO_IMM_TYPE before including " MG_OUTSIDE_HANDLERS "\"\n"
            "#endif\n",
            set->n, set_path);
    for (size_t i = 0; i < set->n; i++)
        mg_write_handler(out, &set->macros[i], NULL, b, &outside_style);
}
