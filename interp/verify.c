/*
 * verify.c - the bytecode verifier: checks the module's tables, decodes
 * every function once, checks operands and control flow, and records where
 * instructions start so the interpreter can validate return addresses.
 */
#include "verify.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "insn.h"

static void mark(uint8_t *bits, size_t i) { bits[i / 8] |= (uint8_t)(1u << (i % 8)); }
static int is_marked(const uint8_t *bits, size_t i) { return bits[i / 8] >> (i % 8) & 1; }

/* 0 if the branch at offset `at` of f with relative offset `rel` lands on an
 * instruction start of f; otherwise -1 with err saying where it lands.
 * `entry` is the jump table entry holding rel, or -1 for a plain branch. */
static int check_target(const pvm_function *f, const uint8_t *starts, uint32_t at,
                        int64_t rel, int64_t entry, pvm_error *err)
{
    int64_t target = (int64_t)at + rel;
    bool inside = target >= 0 && target < (int64_t)f->size;
    if (inside && is_marked(starts, f->offset + (size_t)target))
        return 0;
    char what[40] = "branch";
    if (entry >= 0)
        snprintf(what, sizeof what, "jump table entry %lld", (long long)entry);
    if (!inside)
        return pvm_errorf(err, "function %s, offset %u: %s to offset %lld is outside the function (%u bytes)",
                          f->name, at, what, (long long)target, f->size);
    uint32_t insn = (uint32_t)target; /* offset 0 is always a start */
    while (!is_marked(starts, f->offset + (size_t)insn))
        insn--;
    return pvm_errorf(err, "function %s, offset %u: %s to offset %lld lands inside the instruction at offset %u",
                      f->name, at, what, (long long)target, insn);
}

/* How an immediate naming a module item reads in messages ("call to
 * function 3"), and how many such items m has (none without m); NULL for
 * other kinds. */
static const char *index_kind(const pvm_module *m, pvm_imm_kind k, uint32_t *count)
{
    static const pvm_module no_module;
    if (!m)
        m = &no_module;
    switch (k) {
    case PVM_IMM_FUNC: *count = m->nfuncs; return "to function";
    case PVM_IMM_HOST: *count = m->nimports; return "to import";
    case PVM_IMM_GLOBAL: *count = m->nglobals; return "of global";
    case PVM_IMM_TABLEIDX: *count = m->ntables; return "of table";
    case PVM_IMM_TYPE: *count = m->ntypes; return "of type";
    default: return NULL;
    }
}

/* The operand rules that the decoder cannot check alone: immediates naming
 * functions, imports, globals, tables and types name one that exists, and
 * trap kinds are real traps. */
static int check_operands(const pvm_module *m, const pvm_function *f, uint32_t at,
                          const pvm_insn *insn, pvm_error *err)
{
    const pvm_format_info *fmt = pvm_insn_format(insn);
    for (unsigned i = 0; i < fmt->nimms; i++) {
        pvm_imm_kind k = (pvm_imm_kind)fmt->imm[i];
        int64_t imm = insn->imms[i];
        uint32_t count = 0;
        const char *what = index_kind(m, k, &count);
        if (what && (uint64_t)imm >= count)
            return pvm_errorf(err, "function %s, offset %u: %s %s %lld, but the module has %u",
                              f->name, at, pvm_ops[insn->op].name, what, (long long)imm,
                              count);
        if (k != PVM_IMM_TRAP)
            continue;
        if (imm >= PVM_TRAP_COUNT)
            return pvm_errorf(err, "function %s, offset %u: unknown trap kind %lld", f->name,
                              at, (long long)imm);
        /* The VM would report kind none as a normal return. */
        if (imm == PVM_TRAP_NONE)
            return pvm_errorf(err, "function %s, offset %u: trap kind none is not a trap",
                              f->name, at);
    }
    return 0;
}

/* Do instructions of this format hold anything that only a decode and
 * check_operands can check: an immediate naming a module item or a trap
 * kind, or a jump table (whose entries make the length)? */
static bool needs_decoding(const pvm_format_info *fmt)
{
    uint32_t none;
    for (unsigned i = 0; i < fmt->nimms; i++)
        if (fmt->imm[i] == PVM_IMM_TABLE || fmt->imm[i] == PVM_IMM_TRAP ||
            index_kind(NULL, (pvm_imm_kind)fmt->imm[i], &none))
            return true;
    return false;
}

/* The length of the instruction at offset `at` of f when it is whole and
 * valid without decoding it: a known opcode of a format that needs no
 * decoding (above), whose register bytes are registers; 0 otherwise. */
static uint32_t plain_length(const uint8_t *code, uint32_t size, uint32_t at, unsigned *op)
{
    if (code[at] == PVM_ESCAPE_BYTE && size - at < 3)
        return 0;
    *op = pvm_opcode_at(code + at);
    const pvm_op_info *info = pvm_op_lookup(*op);
    if (!info || info->length > size - at)
        return 0;
    const pvm_format_info *fmt = &pvm_formats[info->format];
    if (needs_decoding(fmt))
        return 0;
    const uint8_t *regs = code + at + (*op >= PVM_OP_EXT_FIRST ? 3 : 1);
    for (unsigned i = 0; i < fmt->nregs; i++)
        if (regs[i] > 31)
            return 0;
    return info->length;
}

/* Pass 1: decode every instruction of f, check its operands, mark starts
 * (an instruction that plain_length finds valid is stepped over instead:
 * a decode would find nothing more).  Returns 0, or -1 with err. */
static int decode_function(const pvm_module *m, const pvm_function *f, uint8_t *starts,
                           pvm_error *err)
{
    const uint8_t *code = m->code + f->offset;
    pvm_insn insn = {0};
    if (f->size == 0)
        return pvm_errorf(err, "function %s, offset 0: empty function (no instructions)",
                          f->name);
    uint32_t length;
    for (uint32_t at = 0; at < f->size; at += length) {
        unsigned op;
        length = plain_length(code, f->size, at, &op);
        if (length == 0) {
            const char *problem = pvm_decode(code, f->size, at, &insn);
            if (problem)
                return pvm_errorf(err, "function %s, offset %u: %s", f->name, at, problem);
            if (check_operands(m, f, at, &insn, err))
                return -1;
            length = insn.length;
            op = insn.op;
        }
        mark(starts, f->offset + (size_t)at);
        if (at + length == f->size && !(pvm_ops[op].flags & PVM_FLAG_TERM))
            return pvm_errorf(err, "function %s, offset %u: last instruction %s falls through the end",
                              f->name, at, pvm_ops[op].name);
    }
    return 0;
}

/* Pass 2: every branch target of f is an instruction start inside f.
 * Pass 1 decoded every instruction: only those naming code offsets are
 * decoded again, the others are stepped over by their opcode's length
 * (fixed: only a jump table has entries past it). */
static int check_branches(const pvm_module *m, const pvm_function *f, const uint8_t *starts,
                          pvm_error *err)
{
    const uint8_t *code = m->code + f->offset;
    pvm_insn insn = {0};
    for (uint32_t at = 0; at < f->size; at += insn.length) {
        unsigned op = pvm_opcode_at(code + at);
        const pvm_format_info *fmt = &pvm_formats[pvm_ops[op].format];
        if (!pvm_format_names_code_offsets(fmt)) {
            insn.length = pvm_ops[op].length;
            continue;
        }
        pvm_decode(code, f->size, at, &insn);
        for (unsigned k = 0; k < fmt->nimms; k++) {
            if (fmt->imm[k] == PVM_IMM_REL32 &&
                check_target(f, starts, at, insn.imms[k], -1, err))
                return -1;
            if (fmt->imm[k] != PVM_IMM_TABLE)
                continue;
            for (uint32_t i = 0; i < (uint32_t)insn.imms[k]; i++)
                if (check_target(f, starts, at, pvm_insn_table_entry(&insn, i), i, err))
                    return -1;
        }
    }
    return 0;
}

static int check_module_tables(const pvm_module *m, pvm_error *err)
{
    if (m->entry != PVM_NO_ENTRY && m->entry >= m->nfuncs)
        return pvm_errorf(err, "entry function %u, but the module has %u functions", m->entry,
                          m->nfuncs);
    if (m->nglobals > PVM_MAX_GLOBALS || m->ntables > PVM_MAX_TABLES)
        return pvm_errorf(err, "%u globals and %u tables exceed the limits (%u, %u)",
                          m->nglobals, m->ntables, PVM_MAX_GLOBALS, PVM_MAX_TABLES);
    if (m->heap_min > m->heap_max || m->heap_max > PVM_MAX_HEAP)
        return pvm_errorf(err, "heap limits %llu..%llu are invalid (maximum %llu bytes)",
                          (unsigned long long)m->heap_min, (unsigned long long)m->heap_max,
                          (unsigned long long)PVM_MAX_HEAP);
    for (uint32_t i = 0; i < m->ndata; i++) {
        const pvm_data_segment *d = &m->data[i];
        if (d->offset > m->heap_min || d->size > m->heap_min - d->offset)
            return pvm_errorf(err, "data segment %u (%u bytes at %llu) lies outside the initial heap of %llu bytes",
                              i, d->size, (unsigned long long)d->offset,
                              (unsigned long long)m->heap_min);
    }
    if (pvm_module_check_state(m, err))
        return -1;
    /* Functions lie in the code blob in order, without overlapping: one
     * map of instruction starts then serves them all. */
    size_t end = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const pvm_function *f = &m->funcs[i];
        if (f->offset < end || (size_t)f->offset + f->size > m->code_size)
            return pvm_errorf(err, "function %s: code at %u (%u bytes) overlaps another function or lies outside the code",
                              f->name, f->offset, f->size);
        end = (size_t)f->offset + f->size;
    }
    return 0;
}

int pvm_verify_function(const pvm_module *m, const pvm_function *f, uint8_t *starts,
                        pvm_error *err)
{
    return decode_function(m, f, starts, err) || check_branches(m, f, starts, err) ? -1 : 0;
}

int pvm_verify_module(pvm_module *m, pvm_error *err)
{
    m->verified = false;
    if (check_module_tables(m, err))
        return -1;
    uint8_t *starts = calloc(pvm_insn_starts_bytes(m->code_size), 1);
    if (!starts)
        return pvm_errorf(err, "out of memory");
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        if (pvm_verify_function(m, &m->funcs[i], starts, err)) {
            free(starts);
            return -1;
        }
    }
    free(m->insn_starts);
    m->insn_starts = starts;
    m->verified = true;
    return 0;
}
