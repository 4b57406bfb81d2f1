/*
 * pulley_isa_desc.h - the Pulley VM's instruction set described for the
 * profiling agent: the opcode table from pvm_ops[] and pvm_formats[] (never
 * a hand list) and a decoder that disassembles with pvm_format_insn.
 */
#ifndef PULLEY_ISA_DESC_H
#define PULLEY_ISA_DESC_H

#include <pulley/profile.h>

/* The descriptor; a module's decode context is its pvm_module (function
 * operands are then printed by name), or NULL. */
const pulleyprof_isa *pulley_agent_isa(void);

/* Give the descriptor's rows the costs of a cost file (cost_file.h) and
 * its dispatch cost, before any agent uses it.  0, or -1 with err set. */
int pulley_agent_isa_costs(const char *path, char *err, size_t cap);

#endif
