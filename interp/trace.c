/*
 * trace.c - the instruction tracer of PULLEY_TRACE builds: before each
 * instruction, print the registers (and the global or table entry) the
 * previous one changed and then the instruction itself (function+offset and
 * its disassembly).  The format is described in trace.h; offsets are hex,
 * as in the disassembler's comments.
 */
#include "trace.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "disasm.h"
#include "insn.h"

static FILE *trace_file(const pvm_vm *vm)
{
    return vm->trace_out ? vm->trace_out : stderr;
}

static void print_x(FILE *out, const char *name, uint64_t v)
{
    fprintf(out, "    %s = 0x%" PRIx64 " (%" PRId64 ")\n", name, v, (int64_t)v);
}

/* An f register holds an f32 in its low half (upper half zero) or an f64. */
static void print_f(FILE *out, unsigned r, uint64_t bits)
{
    if (bits >> 32 == 0)
        fprintf(out, "    f%u = 0x%" PRIx64 " (f32 %.9g)\n", r, bits,
                (double)pvm_f32_from_bits((uint32_t)bits));
    else
        fprintf(out, "    f%u = 0x%" PRIx64 " (f64 %.17g)\n", r, bits, pvm_f64_from_bits(bits));
}

/* Snapshot the global or table the instruction names, if any (a macro op:
 * its first global; the table entry its part changes is not known here). */
static void snapshot_item(const pvm_vm *vm, const pvm_insn *insn, pvm_trace_state *t)
{
    const pvm_format_info *fmt = pvm_insn_format(insn);
    bool macro = pvm_ops[insn->op].macro != NULL;
    t->imm_kind = PVM_IMM_NONE;
    for (unsigned i = 0; i < fmt->nimms && t->imm_kind == PVM_IMM_NONE; i++)
        if (fmt->imm[i] == PVM_IMM_GLOBAL || (fmt->imm[i] == PVM_IMM_TABLEIDX && !macro)) {
            t->imm_kind = fmt->imm[i];
            t->imm = (uint32_t)insn->imms[i];
        }
    if (t->imm_kind == PVM_IMM_GLOBAL) {
        t->value = vm->globals[t->imm]->value;
    } else if (t->imm_kind == PVM_IMM_TABLEIDX) {
        const pvm_table *table = vm->tables[t->imm];
        t->table_size = table->size;
        t->entry = (uint32_t)vm->x[insn->reg[0]];
        t->value = t->entry < table->size ? table->elems[t->entry] : 0;
    }
}

/* Print what changed in the global or table of the snapshot. */
static void print_item_changes(const pvm_vm *vm, const pvm_trace_state *t, FILE *out)
{
    char name[40];
    if (t->imm_kind == PVM_IMM_GLOBAL && vm->globals[t->imm]->value != t->value) {
        snprintf(name, sizeof name, "global #%" PRIu32, t->imm);
        print_x(out, name, vm->globals[t->imm]->value);
    }
    if (t->imm_kind != PVM_IMM_TABLEIDX)
        return;
    const pvm_table *table = vm->tables[t->imm];
    uint32_t i = t->entry;
    if (table->size != t->table_size) {
        fprintf(out, "    table #%" PRIu32 " size = %" PRIu32 "\n", t->imm, table->size);
    } else if (i < table->size && table->elems[i] != t->value) {
        snprintf(name, sizeof name, "table #%" PRIu32 "[%" PRIu32 "]", t->imm, i);
        print_x(out, name, table->elems[i]);
    }
}

/* Print the registers that differ from the snapshot taken before the
 * pending instruction, and drop the snapshot. */
static void print_changes(pvm_vm *vm)
{
    pvm_trace_state *t = &vm->trace;
    if (!t->pc)
        return;
    FILE *out = trace_file(vm);
    char name[8];
    for (unsigned r = 0; r < PVM_NUM_XREGS; r++) {
        if (vm->x[r] != t->x[r]) {
            snprintf(name, sizeof name, "x%u", r);
            print_x(out, name, vm->x[r]);
        }
    }
    for (unsigned r = 0; r < PVM_NUM_FREGS; r++)
        if (vm->f[r].bits != t->f[r].bits)
            print_f(out, r, vm->f[r].bits);
    if (vm->sp != t->sp)
        print_x(out, "sp", vm->sp);
    if (vm->fp != t->fp)
        print_x(out, "fp", vm->fp);
    if (vm->lr != t->lr)
        print_x(out, "lr", vm->lr);
    print_item_changes(vm, t, out);
    t->pc = NULL;
}

void pvm_trace_insn(pvm_vm *vm, const uint8_t *pc)
{
    print_changes(vm);

    const pvm_module *m = vm->module;
    size_t off = (size_t)(pc - m->code);
    const pvm_function *f = &m->funcs[pvm_vm_func_at(vm, off)];
    size_t at = off - f->offset;
    char text[256];
    pvm_insn insn;
    const char *problem = pvm_decode(m->code, m->code_size, off, &insn);
    if (problem)
        snprintf(text, sizeof text, "(%s)", problem);
    else
        pvm_format_insn(text, sizeof text, &insn, at, m);
    fprintf(trace_file(vm), "%s+%04zx: %s\n", f->name, at, text);

    pvm_trace_state *t = &vm->trace;
    t->imm_kind = PVM_IMM_NONE;
    if (!problem)
        snapshot_item(vm, &insn, t);
    memcpy(t->x, vm->x, sizeof t->x);
    memcpy(t->f, vm->f, sizeof t->f);
    t->sp = vm->sp;
    t->fp = vm->fp;
    t->lr = vm->lr;
    t->pc = pc;
}

void pvm_trace_end(pvm_vm *vm, pvm_trap_kind kind)
{
    print_changes(vm);
    if (kind != PVM_TRAP_NONE)
        fprintf(trace_file(vm), "    trap: %s\n", pvm_trap_message(kind));
}
