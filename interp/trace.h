/*
 * trace.h - the instruction tracer of PULLEY_TRACE builds (see vm_hooks.h).
 *
 * Output, to vm->trace_out or stderr, one block per executed instruction:
 *
 *   main+0003: xadd64 x0, x0, x1
 *       x0 = 0xc (12)
 *   main+0006: ret
 *
 * the function and the instruction's byte offset in it (hex), the
 * disassembly, then every register the instruction changed with its new
 * value (x, f, sp, fp, lr); an f register is shown as f32 if its upper half
 * is zero.  An instruction naming a global or a table also shows a change
 * of that global ("global #1 = 0x5 (5)"), of the table's size ("table #0
 * size = 4") or of its entry u32(x[a]) ("table #0[2] = 0x3 (3)").  A trap
 * adds "    trap: <message>".
 */
#ifndef PULLEY_TRACE_H
#define PULLEY_TRACE_H

#include <stdint.h>

#include "vm.h"

/* Called before the instruction at pc runs: prints what the previous traced
 * instruction changed, then this instruction. */
void pvm_trace_insn(pvm_vm *vm, const uint8_t *pc);
/* Called when control leaves the interpreter: prints what the last
 * instruction changed and, for a trap, its message. */
void pvm_trace_end(pvm_vm *vm, pvm_trap_kind kind);

#endif
