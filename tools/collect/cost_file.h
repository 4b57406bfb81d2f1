/*
 * cost_file.h - what each opcode's handler costs in a build of the VM, as
 * bench/op_costs.sh measures it: a tab-separated file with a header line
 * naming its columns, of which `opcode` (a mnemonic) and `per_execution`
 * (machine instructions one execution of its handler takes, dispatch
 * included) are read; lines starting with '#' are comments.  The cost of
 * `nop`, whose handler is a dispatch and nothing else, is the dispatch
 * cost.
 */
#ifndef PULLEY_COST_FILE_H
#define PULLEY_COST_FILE_H

#include <pulley/profile.h>

#include <stddef.h>

/* Read path and set the cost of every row of rows[0..n) it names (others
 * keep theirs) and *dispatch_cost.  0, or -1 with err naming the file, the
 * line and what is wrong (a name of no row, a cost that is no positive
 * number, a missing column, no nop row). */
int cost_file_apply(const char *path, pulleyprof_opcode *rows, size_t n, double *dispatch_cost,
                    char *err, size_t cap);

#endif
