/*
 * pulley_handlers.c - pulley-macrogen's Pulley mode, the handlers
 * (pulley_mode.h): each macro op's handler composed (compose.c) from its
 * parts' bodies in vm_ops.h, in vm_ops.h's words: register operands A to
 * D, the immediate read as IMM_S8 ... IMM_I64 (a local typed as its part
 * reads it: imm0, cast where a body reads it as another type), ADDR(r)
 * made ADDR_AT(r, the part's offset), and the operands' offsets in the
 * instruction (OP_REGS_, OP_IMM_), which a part cannot know, refused.
 */
#include <stdio.h>
#include <string.h>

#include "compose.h"
#include "isa.h"
#include "pulley_mode.h"

/* The type of the local a macro op's immediate is read into: the one of
 * the IMM_* word its part's body reads it with. */
static const char *imm_type(unsigned kind)
{
    switch (kind) {
    case PVM_IMM_S8:
        return "int8_t";
    case PVM_IMM_S16:
        return "int16_t";
    case PVM_IMM_S32:
    case PVM_IMM_OFF32:
    case PVM_IMM_REL32:
        return "int32_t";
    case PVM_IMM_TRAP:
        return "uint8_t";
    case PVM_IMM_I64:
    case PVM_IMM_F64:
        return "uint64_t";
    default:
        return "uint32_t"; /* u32, an f32's bits, a count or an index */
    }
}

/* The IMM_* words of the bodies and the types they read the immediate as. */
static const struct {
    const char *word, *type;
} imm_words[] = {{"IMM_S8", "int8_t"},   {"IMM_U8", "uint8_t"},   {"IMM_S16", "int16_t"},
                 {"IMM_S32", "int32_t"}, {"IMM_U32", "uint32_t"}, {"IMM_I64", "uint64_t"}};
#define NIMM_WORDS (sizeof imm_words / sizeof *imm_words)

static void reg_local(const mg_part *p, unsigned r, char *type, size_t tcap, char *init,
                      size_t icap)
{
    (void)p;
    snprintf(type, tcap, "unsigned");
    snprintf(init, icap, "MACRO_REG_(%u)", r);
}

/* The part's immediate j at its offset in the macro instruction, read
 * whole and cast to its type. */
static void imm_local(const mg_part *p, unsigned j, char *type, size_t tcap, char *init,
                      size_t icap)
{
    const macro_row *r = p->row;
    unsigned i = p->first_imm + j;
    const char *t = imm_type(r->imm[i]);
    snprintf(type, tcap, "%s", t);
    if (strcmp(t, "uint64_t") == 0)
        snprintf(init, icap, "MACRO_IMM_(OP_REGS_ + %u)", r->pack + r->imm_at[i]);
    else
        snprintf(init, icap, "(%s)MACRO_IMM_(OP_REGS_ + %u)", t, r->pack + r->imm_at[i]);
}

/* A baseline op has at most four registers (A to D) and one immediate. */
static void check_part(const mg_part *p)
{
    const fu_part *pt = &p->m->part[p->k];
    if (pt->nregs > 4 || pt->nimms > 1)
        mg_part_fail(p, "the part has more operands than a baseline op");
}

/* The part's immediate as a value of type `type` (the body says `word`),
 * into buf. */
static void imm_as(mg_rewrite *rw, const char *word, const char *type, char *buf, size_t cap)
{
    const mg_part *p = mg_rewrite_part(rw);
    if (!p->m->part[p->k].nimms)
        mg_fail(rw, "its body reads %s, and the part has no immediate", word);
    const macro_row *r = p->row;
    if (strcmp(type, imm_type(r->imm[p->first_imm])) == 0)
        snprintf(buf, cap, "imm%u", p->first_imm);
    else
        snprintf(buf, cap, "((%s)imm%u)", type, p->first_imm);
}

static int word(mg_rewrite *rw, const char *id, size_t n)
{
    char imm[64];
    for (unsigned q = 0; q < NIMM_WORDS; q++)
        if (strlen(imm_words[q].word) == n && memcmp(id, imm_words[q].word, n) == 0) {
            imm_as(rw, imm_words[q].word, imm_words[q].type, imm, sizeof imm);
            mg_put(rw, imm);
            return 1;
        }
    if (n == 4 && memcmp(id, "ADDR", 4) == 0) {
        /* ADDR(r) reads the s32 offset immediate: ADDR_AT(r, the part's). */
        char closer[80];
        imm_as(rw, "ADDR", "int32_t", imm, sizeof imm);
        snprintf(closer, sizeof closer, ", %s", imm);
        mg_put(rw, "ADDR_AT(");
        mg_open_paren(rw, "ADDR", closer);
        return 1;
    }
    if ((n == 7 && memcmp(id, "OP_IMM_", 7) == 0) || (n == 8 && memcmp(id, "OP_REGS_", 8) == 0))
        mg_fail(rw, "its body reads its operands' offsets (%.*s): a macro op's part cannot",
                (int)n, id);
    return 0;
}

static const mg_style pulley_style = {
    .reg_letters = 4,
    .reg_local = reg_local,
    .imm_local = imm_local,
    .check_part = check_part,
    .word = word,
    .name_prefix = PVM_MACRO_ID_PREFIX, /* as the rows name it (pulley_rows.c) */
};

void mg_pulley_write_handlers(FILE *out, const macro_row *rows, size_t n, const mg_bodies *b)
{
    fputs("\n/* Each handler reads its operands into locals named as in the .macros\n"
          " * file (x0, f3: macro registers; imm0 ...: immediates, typed as their\n"
          " * part reads them), each where the first part that uses it starts, and\n"
          " * runs its parts' bodies from vm_ops.h in turn with those written in; a\n"
          " * part but the last goes on to the next at the end of its block. */\n",
          out);
    for (size_t i = 0; i < n; i++)
        mg_write_handler(out, rows[i].m, &rows[i], b, &pulley_style);
}
