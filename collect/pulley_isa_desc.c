/*
 * pulley_isa_desc.c - Pulley's opcode table and decoder for the agent.
 * The operand strings come from the FORMAT rows of opcodes.def.
 */
#include "pulley_isa_desc.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "insn.h"
#include "isa.h"

/* "X X _ _ S32" per format, straight from the table. */
static const char *const format_columns[PVM_FMT_COUNT] = {
#define FORMAT(name, r0, r1, r2, r3, imm) [PVM_FMT_##name] = #r0 " " #r1 " " #r2 " " #r3 " " #imm,
#include "opcodes.def"
};

static const char *const flag_words[] = {"branch", "term", "traps", "call"};

static pvm_agent_opcode rows[PVM_OP_END];
static char operands[PVM_FMT_COUNT][48];
static char flag_names[16][32];
static pvm_agent_isa isa;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* "X X _ _ S32" -> "x x s32"; "_ _ _ _ NONE" -> "". */
static void operand_text(char *out, size_t cap, const char *columns)
{
    char word[16];
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = columns; *p;) {
        size_t len = strcspn(p, " ");
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        p += len + (p[len] == ' ');
        if (strcmp(word, "_") == 0 || strcmp(word, "NONE") == 0)
            continue;
        for (char *w = word; *w; w++)
            *w = (char)tolower((unsigned char)*w);
        n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " " : "", word);
        if (n >= cap)
            return;
    }
}

static int decode(const void *module, const uint8_t *code, size_t size, size_t off,
                  unsigned *length, unsigned *opcode, char *text, size_t cap)
{
    pvm_insn insn;
    if (pvm_decode(code, size, off, &insn) != NULL)
        return -1;
    *length = insn.length;
    *opcode = insn.op;
    pvm_format_insn(text, cap, &insn, off, module);
    return 0;
}

static void build(void)
{
    for (unsigned f = 0; f < PVM_FMT_COUNT; f++)
        operand_text(operands[f], sizeof operands[f], format_columns[f]);
    for (unsigned bits = 0; bits < 16; bits++) {
        size_t n = 0;
        for (unsigned b = 0; b < 4; b++)
            if (bits >> b & 1)
                n += (size_t)snprintf(flag_names[bits] + n, sizeof flag_names[bits] - n, "%s%s",
                                      n ? " " : "", flag_words[b]);
    }
    size_t n = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *o = &pvm_ops[op];
        if (!o->name)
            continue;
        rows[n++] = (pvm_agent_opcode){
            .id = op,
            .name = o->name,
            .format = pvm_formats[o->format].name,
            .operands = operands[o->format],
            .length = o->length,
            .flags = o->flags,
            .flag_names = flag_names[o->flags & 15],
            .semantics = o->semantics ? o->semantics : "",
        };
    }
    isa = (pvm_agent_isa){
        .name = "pulley",
        .hash = pvm_isa_hash(),
        .opcodes = rows,
        .nopcodes = n,
        .decode = decode,
    };
}

const pvm_agent_isa *pulley_agent_isa(void)
{
    pthread_once(&once, build);
    return &isa;
}
