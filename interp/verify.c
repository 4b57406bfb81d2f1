/*
 * verify.c - the bytecode verifier: decodes every function once, checks
 * operands and control flow, and records where instructions start so the
 * interpreter can validate return addresses.
 */
#include "verify.h"

#include <stdlib.h>

#include "insn.h"

static void mark(uint8_t *bits, size_t i) { bits[i / 8] |= (uint8_t)(1u << (i % 8)); }
static int is_marked(const uint8_t *bits, size_t i) { return bits[i / 8] >> (i % 8) & 1; }

/* Is the target of a branch at function offset `at` with relative offset
 * `rel` an instruction start inside the function? */
static int target_ok(const pvm_function *f, const uint8_t *starts, uint32_t at, int64_t rel)
{
    int64_t target = (int64_t)at + rel;
    return target >= 0 && target < (int64_t)f->size &&
           is_marked(starts, f->offset + (size_t)target);
}

/* Pass 1: decode every instruction of f, check its operands, mark starts.
 * Returns 0, or -1 with err. */
static int decode_function(const pvm_module *m, uint32_t index, uint8_t *starts,
                           pvm_error *err)
{
    const pvm_function *f = &m->funcs[index];
    const uint8_t *code = m->code + f->offset;
    pvm_insn insn = {0};
    if (f->size == 0)
        return pvm_errorf(err, "function %s: empty body", f->name);
    for (uint32_t at = 0; at < f->size; at += insn.length) {
        const char *problem = pvm_decode(code, f->size, at, &insn);
        if (problem)
            return pvm_errorf(err, "function %s, offset %u: %s", f->name, at, problem);
        mark(starts, f->offset + (size_t)at);
        const pvm_format_info *fmt = pvm_insn_format(&insn);
        const char *name = pvm_ops[insn.op].name;
        if (fmt->imm == PVM_IMM_FUNC && (uint64_t)insn.imm >= m->nfuncs)
            return pvm_errorf(err, "function %s, offset %u: %s to function %lld, but the module has %u",
                              f->name, at, name, (long long)insn.imm, m->nfuncs);
        if (fmt->imm == PVM_IMM_HOST && (uint64_t)insn.imm >= m->nimports)
            return pvm_errorf(err, "function %s, offset %u: %s to import %lld, but the module has %u",
                              f->name, at, name, (long long)insn.imm, m->nimports);
        if (fmt->imm == PVM_IMM_TRAP && insn.imm >= PVM_TRAP_COUNT)
            return pvm_errorf(err, "function %s, offset %u: unknown trap kind %lld", f->name,
                              at, (long long)insn.imm);
        if (at + insn.length == f->size && !(pvm_ops[insn.op].flags & PVM_FLAG_TERM))
            return pvm_errorf(err, "function %s, offset %u: last instruction %s falls through the end",
                              f->name, at, name);
    }
    return 0;
}

/* Pass 2: every branch target of f is an instruction start inside f. */
static int check_branches(const pvm_module *m, uint32_t index, const uint8_t *starts,
                          pvm_error *err)
{
    const pvm_function *f = &m->funcs[index];
    const uint8_t *code = m->code + f->offset;
    pvm_insn insn = {0};
    for (uint32_t at = 0; at < f->size; at += insn.length) {
        pvm_decode(code, f->size, at, &insn); /* succeeded in pass 1 */
        const pvm_format_info *fmt = pvm_insn_format(&insn);
        if (fmt->imm == PVM_IMM_REL32 && !target_ok(f, starts, at, insn.imm))
            return pvm_errorf(err, "function %s, offset %u: branch target %+lld is not an instruction start in the function",
                              f->name, at, (long long)insn.imm);
        if (fmt->imm == PVM_IMM_TABLE) {
            for (uint32_t i = 0; i < (uint32_t)insn.imm; i++) {
                int32_t rel = pvm_insn_table_entry(&insn, i);
                if (!target_ok(f, starts, at, rel))
                    return pvm_errorf(err, "function %s, offset %u: jump table entry %u (%+d) is not an instruction start in the function",
                                      f->name, at, i, rel);
            }
        }
    }
    return 0;
}

static int check_module_tables(const pvm_module *m, pvm_error *err)
{
    if (m->entry != PVM_NO_ENTRY && m->entry >= m->nfuncs)
        return pvm_errorf(err, "entry function %u, but the module has %u functions", m->entry,
                          m->nfuncs);
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
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const pvm_function *f = &m->funcs[i];
        if ((size_t)f->offset + f->size > m->code_size)
            return pvm_errorf(err, "function %s: code %u..%u lies outside the code blob", f->name,
                              f->offset, f->offset + f->size);
    }
    return 0;
}

int pvm_verify_module(pvm_module *m, pvm_error *err)
{
    m->verified = false;
    if (check_module_tables(m, err))
        return -1;
    uint8_t *starts = calloc(m->code_size / 8 + 1, 1);
    if (!starts)
        return pvm_errorf(err, "out of memory");
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        if (decode_function(m, i, starts, err) || check_branches(m, i, starts, err)) {
            free(starts);
            return -1;
        }
    }
    free(m->insn_starts);
    m->insn_starts = starts;
    m->verified = true;
    return 0;
}
