/*
 * pulley_isa_desc.c - Pulley's opcode table and decoder for the agent:
 * every row of pvm_ops[] with its format's operand kinds and roles, and a
 * macro op's parts.
 */
#include "pulley_isa_desc.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "insn.h"
#include "isa.h"

static const char *const flag_words[] = {"branch", "term", "traps", "call", "return", "macro"};
#define NFLAGS (sizeof flag_words / sizeof *flag_words)

static pvm_agent_opcode rows[PVM_OP_END];
static char operands[PVM_FMT_COUNT][8 * (PVM_MAX_REGS + PVM_MAX_IMMS)];
static char roles[PVM_FMT_COUNT][3 * PVM_MAX_REGS + 1];
static char flag_names[1u << NFLAGS][64];
/* Macro parts: their rows, and the operand index lists they point to. */
static pvm_agent_part parts[PVM_OP_END][PVM_MAX_PARTS];
static char part_lists[PVM_OP_END][PVM_MAX_PARTS][2][4 * (PVM_MAX_REGS + PVM_MAX_IMMS)];
static pvm_agent_isa isa;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* "0 1 2" from n indices. */
static void index_list(char *out, size_t cap, const uint8_t *v, unsigned n)
{
    size_t len = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%u", i ? " " : "", v[i]);
}

/* The parts of macro op `op` into parts[op]; returns how many. */
static unsigned describe_parts(unsigned op)
{
    const pvm_macro_info *m = pvm_ops[op].macro;
    for (unsigned k = 0; m && k < m->nparts; k++) {
        const pvm_format_info *pf = &pvm_formats[pvm_ops[m->part[k].op].format];
        char *regs = part_lists[op][k][0], *imms = part_lists[op][k][1];
        index_list(regs, sizeof part_lists[op][k][0], m->part[k].reg, pf->nregs);
        index_list(imms, sizeof part_lists[op][k][1], m->part[k].imm, pf->nimms);
        parts[op][k] = (pvm_agent_part){m->part[k].op, regs, imms};
    }
    return m ? m->nparts : 0;
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
    for (unsigned f = 0; f < PVM_FMT_COUNT; f++) {
        pvm_format_operands(&pvm_formats[f], operands[f], sizeof operands[f]);
        pvm_format_roles(&pvm_formats[f], roles[f], sizeof roles[f]);
    }
    for (unsigned bits = 0; bits < 1u << NFLAGS; bits++) {
        size_t n = 0;
        for (unsigned b = 0; b < NFLAGS; b++)
            if (bits >> b & 1)
                n += (size_t)snprintf(flag_names[bits] + n, sizeof flag_names[bits] - n, "%s%s",
                                      n ? " " : "", flag_words[b]);
    }
    size_t n = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *o = &pvm_ops[op];
        if (!o->name)
            continue;
        unsigned nparts = describe_parts(op);
        rows[n++] = (pvm_agent_opcode){
            .id = op,
            .name = o->name,
            .format = pvm_formats[o->format].name,
            .operands = operands[o->format],
            .roles = roles[o->format],
            .length = o->length,
            .reg_bits = PVM_REG_BITS,
            .flags = o->flags,
            .flag_names = flag_names[o->flags & ((1u << NFLAGS) - 1)],
            .semantics = o->semantics ? o->semantics : "",
            .parts = nparts ? parts[op] : NULL,
            .nparts = nparts,
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
