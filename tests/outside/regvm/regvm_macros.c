/*
 * regvm_macros.c - the build's macro ops in regvm's table: the .macros file
 * the build was made with (compiled in by CMakeLists.txt), read and
 * bound with the library's <pulley/fusion.h>, each macro op added as
 * opcode REGVM_NBASE + its index in the file, with the row libpulleyprof
 * stores: operands, roles and flags made from its parts, and the parts.
 * Nothing here is written per macro op.
 */
#include <pulley/fusion.h>

#include <stdio.h>
#include <string.h>

#include "regvm_fuse.h"
#include "regvm_isa.h"

/* regvm_macro_text[]: the bytes of the build's .macros file (an empty set
 * when it has none), REGVM_MACROS_NAME: its name (or "none"). */
#include "regvm_macro_text.h"

const char *const regvm_build_flags = "macros=" REGVM_MACROS_NAME;

pulleyfuse_set *regvm_macro_set;

/* What the library's rows point at, per macro op. */
static struct {
    char operands[160], roles[64];
    pulleyprof_part parts[PULLEYFUSE_MAX_PARTS];
    char part_regs[PULLEYFUSE_MAX_PARTS][48], part_imms[PULLEYFUSE_MAX_PARTS][32];
} made[REGVM_MAX_OPS - REGVM_NBASE];

static int base_opcode(void *ctx, const char *mnemonic)
{
    (void)ctx;
    for (unsigned i = 0; i < REGVM_NBASE; i++)
        if (strcmp(regvm_ops[i].name, mnemonic) == 0)
            return (int)i;
    return -1;
}

/* Word `n` of the space-separated list s, into buf. */
static void word(const char *s, unsigned n, char *buf, size_t cap)
{
    for (; n > 0 && *s; n--) {
        s += strcspn(s, " ");
        s += strspn(s, " ");
    }
    snprintf(buf, cap, "%.*s", (int)strcspn(s, " "), s);
}

static void append(char *buf, size_t cap, const char *w)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? " " : "", w);
}

/* Macro op `i` of the set: its regvm_ops entry and its library row.  0,
 * or -1 (a part before the last branches, calls or ends the code, which
 * regvm's blocks and the macro op's flags could not say). */
static int add_macro(size_t i, const pulleyfuse_macro *m)
{
    unsigned op = REGVM_NBASE + (unsigned)i;
    unsigned read[PULLEYFUSE_MAX_REGS] = {0}, written[PULLEYFUSE_MAX_REGS] = {0};
    unsigned flags = 0;
    char imm_words[PULLEYFUSE_MAX_IMMS][16];
    int rel = -1;
    for (unsigned k = 0; k < m->nparts; k++) {
        const pulleyfuse_part *pt = &m->parts[k];
        unsigned base = (unsigned)base_opcode(NULL, pt->mnemonic);
        const char *roles = regvm_base_roles(base);
        for (unsigned j = 0; j < pt->nregs; j++) {
            char role[8];
            word(roles, j, role, sizeof role);
            if (strchr(role, 'r') && !written[pt->regs[j]])
                read[pt->regs[j]] = 1; /* read before the macro op writes it */
            if (strchr(role, 'w'))
                written[pt->regs[j]] = 1;
        }
        for (unsigned j = 0; j < pt->nimms; j++) {
            word(regvm_base_operands(base), pt->nregs + j, imm_words[pt->imms[j]], 16);
            if ((int)j == regvm_ops[base].rel)
                rel = (int)pt->imms[j];
        }
        unsigned f = regvm_ops[base].flags;
        if (k + 1 < m->nparts && (f & ~(unsigned)PULLEYPROF_TRAPS)) {
            fprintf(stderr, "regvm: macro op %s: part %u, %s, branches, calls or ends the code"
                            " before the last part\n", m->name, k + 1, pt->mnemonic);
            return -1;
        }
        flags |= f;
        snprintf(made[i].part_regs[k], sizeof made[i].part_regs[k], "%s", "");
        snprintf(made[i].part_imms[k], sizeof made[i].part_imms[k], "%s", "");
        for (unsigned j = 0; j < pt->nregs; j++) {
            char n[8];
            snprintf(n, sizeof n, "%u", pt->regs[j]);
            append(made[i].part_regs[k], sizeof made[i].part_regs[k], n);
        }
        for (unsigned j = 0; j < pt->nimms; j++) {
            char n[8];
            snprintf(n, sizeof n, "%u", pt->imms[j]);
            append(made[i].part_imms[k], sizeof made[i].part_imms[k], n);
        }
        made[i].parts[k] = (pulleyprof_part){base, made[i].part_regs[k], made[i].part_imms[k]};
    }
    for (unsigned r = 0; r < m->nregs; r++) {
        append(made[i].operands, sizeof made[i].operands, m->kinds[r]);
        append(made[i].roles, sizeof made[i].roles,
               read[r] && written[r] ? "rw" : written[r] ? "w" : "r");
    }
    for (unsigned j = 0; j < m->nimms; j++)
        append(made[i].operands, sizeof made[i].operands, imm_words[j]);
    regvm_ops[op] = (regvm_op){m->name, (uint8_t)m->nregs, (uint8_t)m->nimms, flags, (int8_t)rel};
    regvm_rows[op] = (pulleyprof_opcode){.id = op, .name = m->name, .operands = made[i].operands,
                                         .roles = made[i].roles, .flags = flags | PULLEYPROF_MACRO,
                                         .parts = made[i].parts, .nparts = m->nparts};
    return 0;
}

int regvm_macros_init(void)
{
    char err[512];
    regvm_macro_set = pulleyfuse_parse((const char *)regvm_macro_text, sizeof regvm_macro_text,
                                       REGVM_MACROS_NAME, err, sizeof err);
    if (!regvm_macro_set || pulleyfuse_bind(regvm_macro_set, base_opcode, NULL, err, sizeof err)) {
        fprintf(stderr, "regvm: the build's macro ops: %s\n", err);
        return -1;
    }
    size_t n = pulleyfuse_count(regvm_macro_set);
    if (n > REGVM_MAX_OPS - REGVM_NBASE) {
        fprintf(stderr, "regvm: the build has %zu macro ops, more than opcodes hold\n", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        pulleyfuse_macro m;
        if (pulleyfuse_macro_at(regvm_macro_set, i, &m) != 0 || add_macro(i, &m) != 0)
            return -1;
    }
    regvm_nops = REGVM_NBASE + (unsigned)n;
    regvm_isa.nopcodes = regvm_nops;
    return 0;
}
