/*
 * pulley_isa_desc.c - Pulley's opcode table and decoder for the agent:
 * every row of pvm_ops[] with its format's operand kinds and roles, and a
 * macro op's parts.
 */
#include "pulley_isa_desc.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cost_file.h"
#include "disasm.h"
#include "insn.h"
#include "isa.h"

_Static_assert((unsigned)PVM_FLAG_BRANCH == PULLEYPROF_BRANCH &&
                   (unsigned)PVM_FLAG_TERM == PULLEYPROF_TERMINATOR &&
                   (unsigned)PVM_FLAG_TRAPS == PULLEYPROF_TRAPS &&
                   (unsigned)PVM_FLAG_CALL == PULLEYPROF_CALL &&
                   (unsigned)PVM_FLAG_RETURN == PULLEYPROF_RETURN &&
                   (unsigned)PVM_FLAG_MACRO == PULLEYPROF_MACRO,
               "the VM's flags are the library's");

static pulleyprof_opcode rows[PVM_OP_END];
static char operands[PVM_FMT_COUNT][8 * (PVM_MAX_REGS + PVM_MAX_IMMS)];
static char roles[PVM_FMT_COUNT][3 * PVM_MAX_REGS + 1];
/* Macro parts: their rows, and the operand index lists they point to. */
static pulleyprof_part parts[PVM_OP_END][PVM_MAX_PARTS];
static char part_lists[PVM_OP_END][PVM_MAX_PARTS][2][4 * (PVM_MAX_REGS + PVM_MAX_IMMS)];
static pulleyprof_isa isa;
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
        parts[op][k] = (pulleyprof_part){m->part[k].op, regs, imms};
    }
    return m ? m->nparts : 0;
}

/* Decode with the VM's own decoder; register numbers, immediates and
 * branch targets (relative offsets and jump table entries, from the
 * instruction's start) as the public API reports them. */
static int decode(const void *module, const uint8_t *code, size_t size, size_t off,
                  pulleyprof_insn *out)
{
    pvm_insn insn;
    if (pvm_decode(code, size, off, &insn) != NULL)
        return -1;
    const pvm_format_info *f = &pvm_formats[pvm_ops[insn.op].format];
    out->length = insn.length;
    out->opcode = insn.op;
    out->nregs = f->nregs;
    for (unsigned i = 0; i < f->nregs; i++)
        out->regs[i] = insn.reg[i];
    out->nimms = f->nimms;
    for (unsigned i = 0; i < f->nimms; i++) {
        out->imms[i] = insn.imms[i];
        int64_t target = (int64_t)off + insn.imms[i];
        if (f->imm[i] == PVM_IMM_REL32 && target >= 0 &&
            pulleyprof_insn_add_target(out, (uint32_t)target) != 0)
            return -1;
        for (int64_t e = 0; f->imm[i] == PVM_IMM_TABLE && e < insn.imms[i]; e++) {
            target = (int64_t)off + pvm_insn_table_entry(&insn, (uint32_t)e);
            if (target >= 0 && pulleyprof_insn_add_target(out, (uint32_t)target) != 0)
                return -1;
        }
    }
    pvm_format_insn(out->text, out->text_cap, &insn, off, module);
    return 0;
}

static void build(void)
{
    for (unsigned f = 0; f < PVM_FMT_COUNT; f++) {
        pvm_format_operands(&pvm_formats[f], operands[f], sizeof operands[f]);
        pvm_format_roles(&pvm_formats[f], roles[f], sizeof roles[f]);
    }
    size_t n = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *o = &pvm_ops[op];
        if (!o->name)
            continue;
        unsigned nparts = describe_parts(op);
        rows[n++] = (pulleyprof_opcode){
            .id = op,
            .name = o->name,
            .format = pvm_formats[o->format].name,
            .operands = operands[o->format],
            .roles = roles[o->format],
            .length = o->length,
            .reg_bits = PVM_REG_BITS,
            .flags = o->flags,
            .semantics = o->semantics ? o->semantics : "",
            .parts = nparts ? parts[op] : NULL,
            .nparts = nparts,
            .wide_form = pvm_op_wide(op) != op ? pvm_ops[pvm_op_wide(op)].name : NULL,
        };
    }
    isa = (pulleyprof_isa){
        .name = "pulley",
        .hash = pvm_isa_hash(),
        .opcodes = rows,
        .nopcodes = n,
        .decode = decode,
    };
}

const pulleyprof_isa *pulley_agent_isa(void)
{
    pthread_once(&once, build);
    return &isa;
}

int pulley_agent_isa_costs(const char *path, char *err, size_t cap)
{
    pthread_once(&once, build);
    return cost_file_apply(path, rows, isa.nopcodes, &isa.dispatch_cost, err, cap);
}
