/*
 * profile_agent.h - the profiling agent: the one contract between a bytecode
 * VM and the collector library (collect/, CMake target pulley_collect).
 * Nothing in it is specific to Pulley: another interpreter embeds the
 * collector by describing its instruction set (pvm_agent_isa) and calling
 * these functions.
 *
 * The life of a run:
 *
 *   1. pvm_agent_open: open (or create) the profile database, start a run
 *      row, store the opcode table, start the sampler and writer threads.
 *   2. Register every module and every bytecode function (name, load
 *      address, code bytes), at any time before close; the code is copied.
 *   3. Register the PC slot of each VM instance before it runs bytecode.
 *      The VM must store, before every instruction, the address of that
 *      instruction into its slot (a relaxed atomic store is enough), and 0
 *      whenever control is outside bytecode (host calls, return to the
 *      embedder, traps).  The sampler thread reads every registered slot
 *      `sample_hz` times a second (absolute deadlines on CLOCK_MONOTONIC)
 *      and records (tick, pc) pairs; a writer thread compresses them and
 *      writes them to the database.  Neither thread ever blocks the VM.
 *      Unregister the slot before its memory goes away.
 *   4. Counting builds report exact per-instruction execution counts and
 *      taken control transfers, inside a function or between two
 *      (pvm_agent_add_exec_count / _add_transfer_count).
 *   5. pvm_agent_set_outcome, then pvm_agent_close: stop sampling, write the
 *      remaining samples, the functions, their decoded instructions, the
 *      per-instruction sample histogram and the counts, and end the run.
 *
 * A sampled pc is attributed to the registered function whose
 * [address, address + size) contains it (offset = pc - address); 0 is host
 * time.  Functions should not overlap.
 *
 * Every function may be called from any thread, concurrently with the
 * others, except pvm_agent_close (once, and last).  Functions returning int
 * return 0 (or a handle >= 0) on success and -1 on failure.  Strings are
 * copied.  Errors are written as one line of text into (err, errcap).
 */
#ifndef PULLEY_PROFILE_AGENT_H
#define PULLEY_PROFILE_AGENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PVM_AGENT_DEFAULT_HZ 10000u
#define PVM_AGENT_MAX_HZ 1000000u

/* One part of a macro op: the opcode whose work it does, and which of the
 * macro's operands its operands are (space-separated indices, "0 1 2"). */
typedef struct pvm_agent_part {
    unsigned opcode;   /* id of another row of the same table */
    const char *regs;  /* per register operand of the part: the macro's register operand */
    const char *imms;  /* per immediate of the part: the macro's immediate */
} pvm_agent_part;

/* One row of the VM's opcode table, stored with every run so that old
 * profiles are decoded with the instruction set they were taken with. */
typedef struct pvm_agent_opcode {
    unsigned id;           /* opcode number */
    const char *name;      /* mnemonic */
    const char *format;    /* operand format name */
    const char *operands;  /* operand kinds, registers first, e.g. "x x s32" ("" if none) */
    const char *roles;     /* per register operand "r", "w" or "rw", e.g. "w r" ("" if none) */
    unsigned length;       /* encoded bytes (variable parts excluded) */
    unsigned reg_bits;     /* bits of each register operand in its pack: 8 (a byte
                            * each) or 5 (packed from bit 0); 0: 8 */
    unsigned flags;        /* the VM's flag bits */
    const char *flag_names; /* the same, as text ("branch term") */
    const char *semantics; /* one line, or "" */
    const pvm_agent_part *parts; /* a macro op's parts, in order (NULL: not one) */
    unsigned nparts;
} pvm_agent_opcode;

/* Decode the instruction at code[off] (off < size; never read code[size]):
 * set *length (> 0) and *opcode, and write its text (NUL-terminated,
 * truncated to cap) into text.  module_ctx is what the function's module
 * was registered with.  Returns 0, or -1 if the bytes do not decode. */
typedef int (*pvm_agent_decode_fn)(const void *module_ctx, const uint8_t *code, size_t size,
                                   size_t off, unsigned *length, unsigned *opcode, char *text,
                                   size_t cap);

/* The VM's instruction set. */
typedef struct pvm_agent_isa {
    const char *name;                /* "pulley" */
    uint64_t hash;                   /* identifies the opcode table */
    const pvm_agent_opcode *opcodes; /* nopcodes rows */
    size_t nopcodes;
    pvm_agent_decode_fn decode;      /* NULL: no instructions are stored */
} pvm_agent_isa;

typedef struct pvm_agent_config {
    const char *db_path;      /* the SQLite profile database (required) */
    unsigned sample_hz;       /* 0: PVM_AGENT_DEFAULT_HZ; at most _MAX_HZ */
    const pvm_agent_isa *isa; /* required; must outlive the agent */
    /* Stored in the run row; each may be NULL. */
    const char *label;        /* a name the user chose */
    const char *benchmark;    /* the program run */
    const char *command_line;
    const char *build_flags;  /* how the VM was built: "dispatch=goto profile" */
    int exact;                /* 1: a counting build (exact counts follow) */
} pvm_agent_config;

/* What a closed run recorded. */
typedef struct pvm_agent_summary {
    int64_t run_id;
    uint64_t samples_taken;   /* slot reads by the sampler */
    uint64_t samples_written; /* committed to the database */
    uint64_t samples_dropped; /* taken but not written (buffers full, write errors) */
    uint64_t ticks_missed;    /* deadlines the sampler woke too late for */
    uint64_t sampled_ns;      /* time during which at least one slot was registered */
    uint64_t bytes_stored;    /* compressed sample bytes written */
    uint64_t chunks;
    uint64_t counts_unmapped; /* exact counts refused: unknown function, offset outside it */
    int exact;                /* the run was a counting build's (config.exact) */
    uint64_t executed;        /* exact: instruction executions counted and stored */
    uint64_t duration_ns;     /* wall time from open to close */
} pvm_agent_summary;

typedef struct pvm_agent pvm_agent;

/* Open the database (created if missing; a new run is appended to an
 * existing one) and start sampling.  Refuses, without writing anything, a
 * file that is not a profile database, one of a newer schema, or a damaged
 * one.  NULL with err on failure. */
pvm_agent *pvm_agent_open(const pvm_agent_config *cfg, char *err, size_t errcap);

/* A module: its name and the context passed to isa->decode for its
 * functions (which must stay valid until pvm_agent_close returns).
 * Returns its handle. */
int pvm_agent_register_module(pvm_agent *a, const char *name, const void *decode_ctx);

/* A bytecode function of module `module`: its index in the module, name,
 * load address (what the VM stores in its slot for its first instruction)
 * and its `size` code bytes (copied).  Returns its handle. */
int pvm_agent_register_function(pvm_agent *a, int module, uint32_t index, const char *name,
                                uintptr_t address, const uint8_t *code, size_t size);

/* Start / stop sampling a VM's PC slot.  After unregister returns, the
 * sampler no longer reads the slot.  Register a VM's functions before its
 * slot: the first slot tells the collector the program is about to run,
 * and it then writes the functions registered so far while the program
 * runs (later ones are written at close). */
int pvm_agent_register_slot(pvm_agent *a, _Atomic(uintptr_t) *slot);
int pvm_agent_unregister_slot(pvm_agent *a, _Atomic(uintptr_t) *slot);

/* Exact counts from a counting build: the instruction at `offset` of
 * function `func` ran `count` more times; the control transfer (branch,
 * call, return) at offset `from` of `func` went to offset `to` of function
 * `to_func` `count` more times; _add_edge_count is a transfer inside `func`.
 * Offsets are bytes from the start of the function and must lie inside
 * its code: a count with an unknown function or an offset outside it is
 * not stored, is counted (summary.counts_unmapped, runs.counts_unmapped)
 * and makes the call return -1. */
int pvm_agent_add_exec_count(pvm_agent *a, int func, uint32_t offset, uint64_t count);
int pvm_agent_add_transfer_count(pvm_agent *a, int func, uint32_t from, int to_func, uint32_t to,
                                 uint64_t count);
int pvm_agent_add_edge_count(pvm_agent *a, int func, uint32_t from, uint32_t to, uint64_t count);

/* How the program ended ("return", "exit", "trap: ...", "signal SIGINT")
 * and its exit status; stored in the run row. */
void pvm_agent_set_outcome(pvm_agent *a, const char *outcome, int exit_status);

/* Stop sampling, write everything and end the run; frees the agent.  The
 * run row is ended even when something failed: then its outcome is
 * "incomplete: WHAT WAS LOST (OUTCOME)" (or stays NULL when not even that
 * could be written), and close returns -1 with err (the summary says what
 * was written). */
int pvm_agent_close(pvm_agent *a, pvm_agent_summary *summary, char *err, size_t errcap);

#endif
