/*
 * isa.c - run-time descriptors of the instruction set, expanded from
 * opcodes.def: the format and opcode tables, lookup by name, the ISA hash,
 * and trap kind names.
 */
#include "isa.h"

#include <stdio.h>
#include <string.h>

#include "base/hash.h"

const pvm_format_info pvm_formats[PVM_FMT_COUNT] = {
#define FORMAT(name, r0, r1, r2, r3, imm)                                      \
    [PVM_FMT_##name] = {#name,                                                 \
                        PVM_FMT_NREGS_##name,                                  \
                        {PVM_REGKIND_##r0, PVM_REGKIND_##r1, PVM_REGKIND_##r2, \
                         PVM_REGKIND_##r3},                                    \
                        {PVM_REGROLE_##r0, PVM_REGROLE_##r1, PVM_REGROLE_##r2, \
                         PVM_REGROLE_##r3},                                    \
                        PVM_FMT_PACK_##name,                                   \
                        PVM_IMM_##imm != PVM_IMM_NONE,                         \
                        {PVM_IMM_##imm},                                       \
                        {0},                                                   \
                        PVM_FMT_IMM_##name},
#define MFORMAT(name, nregs, classes, roles, nimms, imms, pack, imm_bytes, imm_at) \
    [PVM_FMT_##name] = {PVM_MACRO_ID_NAME(#name), (nregs), {PVM_LIST_ classes},  \
                        {PVM_LIST_ roles},                                     \
                        (pack), (nimms), {PVM_LIST_ imms}, {PVM_LIST_ imm_at},  \
                        (imm_bytes)},
#include "opcodes.def"
};

/* The parts of every macro op of the build (none in the baseline). */
#define MOP(name, format, flags, class, semantics, nparts, parts)              \
    static const pvm_macro_info macro_##name = {(nparts), {PVM_LIST_ parts}};
#define MEXT MOP
#include "opcodes.def"

/* The flag words of the table's flags column, as constants of this file
 * alone (isa.h lists them). */
enum {
#define FLAG_WORD(word, bit) word = PVM_FLAG_##word,
    PVM_FLAG_WORDS(FLAG_WORD)
#undef FLAG_WORD
};

const pvm_op_info pvm_ops[PVM_OP_END] = {
#define OP(name, format, flags, class, semantics)                              \
    [PVM_OP_##name] = {#name, PVM_FMT_##format, (flags), PVM_LEN_##name,       \
                       PVM_CLASS_##class, semantics, NULL},
#define EXT OP
#define MOP(name, format, flags, class, semantics, nparts, parts)              \
    [PVM_OP_##name] = {PVM_MACRO_ID_NAME(#name), PVM_FMT_##format, (flags),    \
                       PVM_LEN_##name, PVM_CLASS_##class, semantics,           \
                       &macro_##name},
#define MEXT MOP
#include "opcodes.def"
};

static const char *const class_names[PVM_CLASS_COUNT] = {
#define CLASS_NAME(name) #name,
    PVM_OP_CLASSES(CLASS_NAME)
#undef CLASS_NAME
};

const char *pvm_op_class_name(unsigned opclass)
{
    return opclass < PVM_CLASS_COUNT ? class_names[opclass] : NULL;
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

/* Per opcode, its wide form + 1 (0: none). */
static const uint16_t wide_of[PVM_OP_END] = {
#define WIDE(narrow, wide) [PVM_OP_##narrow] = PVM_OP_##wide + 1,
#include "opcodes.def"
};

unsigned pvm_op_wide(unsigned op)
{
    return op < PVM_OP_END && wide_of[op] ? wide_of[op] - 1u : op;
}

unsigned pvm_op_count(void)
{
    unsigned count = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++)
        count += pvm_ops[op].name != NULL;
    return count;
}

unsigned pvm_macro_count(void)
{
    unsigned count = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++)
        count += pvm_ops[op].macro != NULL;
    return count;
}

uint64_t pvm_isa_hash(void)
{
    uint64_t h = BASE_FNV1A64_INIT;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = &pvm_ops[op];
        if (!info->name)
            continue;
        const pvm_format_info *fmt = &pvm_formats[info->format];
        unsigned wide = pvm_op_wide(op);
        uint8_t row[8] = {(uint8_t)op,     (uint8_t)(op >> 8),     info->flags, info->length,
                          fmt->nregs,      fmt->nimms,             (uint8_t)wide,
                          (uint8_t)(wide >> 8)};
        h = base_fnv1a64_bytes(h, info->name, strlen(info->name) + 1);
        h = base_fnv1a64_bytes(h, row, sizeof row);
        h = base_fnv1a64_bytes(h, fmt->reg, fmt->nregs);
        h = base_fnv1a64_bytes(h, fmt->role, fmt->nregs);
        h = base_fnv1a64_bytes(h, fmt->imm, fmt->nimms);
        for (unsigned k = 0; info->macro && k < info->macro->nparts; k++) {
            const pvm_macro_part *part = &info->macro->part[k];
            const pvm_format_info *pf = &pvm_formats[pvm_ops[part->op].format];
            uint8_t op_bytes[2] = {(uint8_t)part->op, (uint8_t)(part->op >> 8)};
            h = base_fnv1a64_bytes(h, op_bytes, 2);
            h = base_fnv1a64_bytes(h, part->reg, pf->nregs);
            h = base_fnv1a64_bytes(h, part->imm, pf->nimms);
        }
    }
    return h;
}

static const struct {
    const char *word;
    uint8_t bytes;
} imm_kinds[PVM_IMM_COUNT] = {
#define PVM_IMM_ROW(name, word, bytes) [PVM_IMM_##name] = {word, bytes},
    PVM_IMM_KINDS(PVM_IMM_ROW)
#undef PVM_IMM_ROW
};

const char *pvm_imm_word(unsigned kind)
{
    return kind < PVM_IMM_COUNT ? imm_kinds[kind].word : "";
}

unsigned pvm_imm_size(unsigned kind)
{
    return kind < PVM_IMM_COUNT ? imm_kinds[kind].bytes : 0;
}

/* Append word to buf (space-separated, truncated to cap > 0); returns the
 * length the whole text has, as snprintf counts. */
static size_t add_word(char *buf, size_t cap, size_t len, const char *word)
{
    size_t at = len < cap ? len : cap - 1;
    int n = snprintf(buf + at, cap - at, "%s%s", len ? " " : "", word);
    return len + (n > 0 ? (size_t)n : 0);
}

size_t pvm_format_operands(const pvm_format_info *fmt, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < fmt->nregs; i++)
        len = add_word(buf, cap, len, fmt->reg[i] == PVM_REG_X ? "x" : "f");
    for (unsigned i = 0; i < fmt->nimms; i++)
        len = add_word(buf, cap, len, pvm_imm_word(fmt->imm[i]));
    return len;
}

size_t pvm_format_roles(const pvm_format_info *fmt, char *buf, size_t cap)
{
    static const char *const words[] = {"-", "r", "w", "rw"};
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < fmt->nregs; i++)
        len = add_word(buf, cap, len, words[fmt->role[i] & 3]);
    return len;
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
