/*
 * insn_text.c - the text of a decoded instruction, and the function names
 * it may show.  Operands are printed as interp/disasm.c prints them
 * (without labels), so text made from the compiled-in table equals the
 * text the collector stored; floats and names use the assembler's lexer
 * rules so that the text reads back to the same bytes.
 */
#include "insn_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_lexer.h"
#include "base/grow.h"
#include "disasm.h"
#include "isa.h"

int sx_names_add(sx_names *names, uint32_t index, const char *name)
{
    if (names->n > 0 && names->items[names->n - 1].index >= index)
        return -1;
    if (BASE_GROW(names->items, names->cap, names->n + 1, 16) != 0)
        return -1;
    char *copy = strdup(name);
    if (!copy)
        return -1;
    names->items[names->n++] = (sx_func_name){index, copy};
    return 0;
}

const char *sx_names_find(const sx_names *names, uint32_t index)
{
    size_t lo = 0, hi = names->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (names->items[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < names->n && names->items[lo].index == index ? names->items[lo].name : NULL;
}

void sx_names_free(sx_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free(names->items[i].name);
    free(names->items);
    *names = (sx_names){0};
}

/* A name as the assembler reads it: bare if it is an identifier, else quoted. */
static void put_name(sx_text *out, const char *name)
{
    size_t len = strlen(name);
    if (pasm_is_bare_name(name, len)) {
        sx_text_append(out, name, len);
        return;
    }
    sx_text_append(out, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        char e[4];
        int n = pasm_escape_byte(e, (uint8_t)name[i]);
        sx_text_append(out, e, (size_t)n);
    }
    sx_text_append(out, "\"", 1);
}

static void put_float(sx_text *out, uint64_t bits, int f64)
{
    char text[PVM_FLOAT_TEXT_MAX]; /* as pulley-dis writes it */
    pvm_format_float(bits, f64 != 0, text);
    sx_text_append(out, text, strlen(text));
}

/* Immediate i of insn. */
static void put_imm(sx_text *out, const ot_insn *insn, unsigned i, const sx_names *names)
{
    ot_imm kind = (ot_imm)insn->op->imm[i];
    int64_t imm = insn->imms[i];
    const char *name;
    switch (kind) {
    case OT_IMM_REL32: sx_text_printf(out, "%+" PRId32, (int32_t)imm); break;
    case OT_IMM_TABLE:
        for (uint32_t e = 0; e < (uint64_t)imm; e++)
            sx_text_printf(out, "%s%+" PRId32, e ? ", " : "[", ot_jump_entry(insn, e));
        sx_text_append(out, "]", 1);
        break;
    case OT_IMM_FUNC:
        if (names && (uint64_t)imm <= UINT32_MAX && (name = sx_names_find(names, (uint32_t)imm)))
            put_name(out, name);
        else
            sx_text_printf(out, "#%" PRId64, imm);
        break;
    case OT_IMM_TRAP:
        if ((uint64_t)imm < PVM_TRAP_COUNT)
            sx_text_printf(out, "%s", pvm_trap_name((unsigned)imm));
        else
            sx_text_printf(out, "%" PRId64, imm);
        break;
    case OT_IMM_F32:
    case OT_IMM_F64: put_float(out, (uint64_t)imm, kind == OT_IMM_F64); break;
    case OT_IMM_HOST:
    case OT_IMM_GLOBAL:
    case OT_IMM_TABLEIDX:
    case OT_IMM_TYPE: sx_text_printf(out, "#%" PRId64, imm); break;
    case OT_IMM_UNKNOWN: sx_text_printf(out, "0x%" PRIx64, (uint64_t)imm); break;
    default: sx_text_printf(out, "%" PRId64, imm); break;
    }
}

void sx_format(sx_text *out, const ot_insn *insn, const sx_names *names)
{
    const ot_opcode *op = insn->op;
    sx_text_append(out, op->name, strlen(op->name));
    for (unsigned i = 0; i < op->nregs; i++)
        sx_text_printf(out, "%s%c%u", i ? ", " : " ", (op->regf >> i & 1) ? 'f' : 'x',
                       (unsigned)insn->reg[i]);
    for (unsigned i = 0; i < op->nimms; i++) {
        int first = op->nregs == 0 && i == 0;
        sx_text_append(out, first ? " " : ", ", first ? 1 : 2);
        put_imm(out, insn, i, names);
    }
}
