/*
 * isa.c - run-time descriptors of the instruction set, expanded from
 * opcodes.def: the format and opcode tables, lookup by name, the ISA hash,
 * and trap kind names.
 */
#include "isa.h"

#include <string.h>

const pvm_format_info pvm_formats[PVM_FMT_COUNT] = {
#define FORMAT(name, r0, r1, r2, r3, imm)                                      \
    [PVM_FMT_##name] = {#name,                                                 \
                        PVM_FMT_NREGS_##name,                                  \
                        {PVM_REGKIND_##r0, PVM_REGKIND_##r1, PVM_REGKIND_##r2, \
                         PVM_REGKIND_##r3},                                    \
                        PVM_FMT_PACK_##name,                                   \
                        PVM_IMM_##imm,                                         \
                        PVM_FMT_IMM_##name},
#include "opcodes.def"
};

/* The flag words of the table's flags column. */
#define BRANCH PVM_FLAG_BRANCH
#define TERM PVM_FLAG_TERM
#define TRAPS PVM_FLAG_TRAPS
#define CALL PVM_FLAG_CALL

const pvm_op_info pvm_ops[PVM_OP_END] = {
#define OP(name, format, flags, semantics)                                     \
    [PVM_OP_##name] = {#name, PVM_FMT_##format, (flags), PVM_LEN_##name,       \
                       semantics},
#define EXT(name, format, flags, semantics) OP(name, format, flags, semantics)
#include "opcodes.def"
};

#undef BRANCH
#undef TERM
#undef TRAPS
#undef CALL

const pvm_op_info *pvm_op_lookup(unsigned op)
{
    if (op >= PVM_OP_END || pvm_ops[op].name == NULL)
        return NULL;
    return &pvm_ops[op];
}

int pvm_op_by_name(const char *name, size_t len)
{
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const char *n = pvm_ops[op].name;
        if (n && strlen(n) == len && memcmp(n, name, len) == 0)
            return (int)op;
    }
    return -1;
}

unsigned pvm_op_count(void)
{
    unsigned count = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++)
        count += pvm_ops[op].name != NULL;
    return count;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t pvm_isa_hash(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = &pvm_ops[op];
        if (!info->name)
            continue;
        const pvm_format_info *fmt = &pvm_formats[info->format];
        uint8_t row[10] = {(uint8_t)op, (uint8_t)(op >> 8), info->flags,
                           info->length, fmt->nregs, fmt->reg[0], fmt->reg[1],
                           fmt->reg[2], fmt->reg[3], fmt->imm};
        h = fnv1a(h, info->name, strlen(info->name) + 1);
        h = fnv1a(h, row, sizeof row);
    }
    return h;
}

static const char *const trap_names[PVM_TRAP_COUNT] = {
#define PVM_TRAP_NAME(name, lower, text) lower,
    PVM_TRAP_KINDS(PVM_TRAP_NAME)
#undef PVM_TRAP_NAME
};

static const char *const trap_messages[PVM_TRAP_COUNT] = {
#define PVM_TRAP_TEXT(name, lower, text) text,
    PVM_TRAP_KINDS(PVM_TRAP_TEXT)
#undef PVM_TRAP_TEXT
};

const char *pvm_trap_name(unsigned kind)
{
    return kind < PVM_TRAP_COUNT ? trap_names[kind] : "unknown";
}

const char *pvm_trap_message(unsigned kind)
{
    return kind < PVM_TRAP_COUNT ? trap_messages[kind] : "unknown trap";
}

int pvm_trap_by_name(const char *name, size_t len)
{
    for (unsigned k = 0; k < PVM_TRAP_COUNT; k++)
        if (strlen(trap_names[k]) == len && memcmp(trap_names[k], name, len) == 0)
            return (int)k;
    return -1;
}
