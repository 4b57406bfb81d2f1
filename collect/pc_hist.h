/*
 * pc_hist.h - how often each pc was sampled: an open-addressing hash map
 * from pc to count, filled by the writer thread and turned into pc_samples
 * rows when the run ends.
 */
#ifndef PULLEY_PC_HIST_H
#define PULLEY_PC_HIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct pc_hist_entry {
    uint64_t pc;
    uint64_t count; /* 0: empty slot */
} pc_hist_entry;

typedef struct pc_hist {
    pc_hist_entry *slots;
    size_t cap;   /* a power of two, or 0 */
    size_t used;
} pc_hist;

/* Count one more sample of pc.  Returns 0, or -1 when out of memory. */
int pp__pc_hist_add(pc_hist *h, uint64_t pc, uint64_t count);
void pp__pc_hist_free(pc_hist *h);

#endif
