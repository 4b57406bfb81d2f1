/*
 * pulley/profile.h - libpulleyprof, the profiling library of the pulley
 * toolkit: the one public contract between a bytecode interpreter (this
 * project's VM or anybody else's) and the profile database that
 * pulley-ngrams, pulley-report, the SQL queries and the notebook read.
 * Every public name starts with pulleyprof_ (PULLEYPROF_ for macros).
 *
 * Build against it with `pkg-config --cflags --libs pulley-profile`, or in
 * CMake with find_package(PulleyProfile) and the target PulleyProfile::pulleyprof.
 *
 * The life of a run:
 *
 *   1. pulleyprof_open: open (or create) the profile database, start a
 *      run row, check and store the interpreter's opcode table
 *      (pulleyprof_isa), start the sampler and writer threads.
 *   2. Register every module and every bytecode function (code object) at
 *      any time before close, from any thread: a name, an address (what
 *      the interpreter publishes for its first instruction) and its code
 *      bytes (copied).  The library decodes them into instruction rows
 *      with the ISA's decoder.  Code that dies before the run ends
 *      (garbage-collected code objects) is unregistered first: the run
 *      keeps what it recorded of it, and its address may then be
 *      registered again for other code.
 *   3. Register the slot of each interpreter thread before it runs
 *      bytecode.  Before every instruction the interpreter stores the
 *      address of that instruction (function address + byte offset) into
 *      its slot - one relaxed atomic store (or only where a straight-line
 *      run starts: config.run_starts, pulleyprof_publish) - and 0 whenever control is
 *      outside bytecode (host code, return to the embedder).  The sampler
 *      thread reads every registered slot `sample_hz` times a second and
 *      records what it finds; a writer thread compresses the samples and
 *      stores them.  Neither thread ever blocks the interpreter.
 *      Unregister the slot before its memory goes away.  An interpreter
 *      that already keeps the current instruction's address in memory
 *      registers a reader instead, which the sampler calls to fetch it.
 *   4. Or count instead of sampling (config.exact): report exact
 *      per-instruction execution counts and taken control transfers.
 *   5. pulleyprof_set_outcome, then pulleyprof_close: stop sampling, write
 *      the rest and end the run.
 *
 * An address is attributed to the registered function whose
 * [address, address + size) contains it, at the offset of its instruction
 * that holds it (an address inside an instruction counts for that
 * instruction); 0 is host time.  Live functions must not overlap.  An
 * interpreter whose code objects have no stable address may give each one
 * an address range of its own (for example a counter times a large
 * stride).  Samples in no live function are attributed when the run ends,
 * so a function may be registered after samples landed in it.
 *
 * Stored addresses: functions stored with one run never overlap, because
 * readers attribute samples by address ranges.  A function is stored at
 * its own address, unless its range overlaps the stored range of a
 * function registered earlier in the run (one unregistered since, whose
 * memory the new code reuses): then the library stores it at a fresh
 * range that overlaps nothing registered (above 2^62 on 64-bit hosts),
 * and from then on the sampler translates each sampled address that lies
 * in a live function to that function's stored address + offset.  Without
 * unregistering, every function is stored at its own address.  (A slot
 * read just before its function is unregistered and its memory taken by
 * new code may be counted for the new code: at most one sample per slot
 * per such change.)
 *
 * Checked calls: every constraint this header states is checked when the
 * call is made.  A call that breaks one does nothing, returns -1 (NULL for
 * pulleyprof_open), and says what was wrong in pulleyprof_last_error();
 * the run goes on and is stored as if the call had not been made, except
 * that refused exact counts are counted (summary.counts_unmapped,
 * runs.counts_unmapped).
 *
 * Every function may be called from any thread, concurrently with the
 * others, except pulleyprof_close (once, and last).  Functions returning
 * int return 0 (or a handle >= 0) on success and -1 on failure
 * (pulleyprof_close also PULLEYPROF_RUN_LOST).  Strings
 * are copied.  Errors of open and close are one line of text written into
 * (err, errcap).
 */
#ifndef PULLEY_PROFILE_H
#define PULLEY_PROFILE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PULLEYPROF_API __attribute__((visibility("default")))
#else
#define PULLEYPROF_API
#endif

#define PULLEYPROF_DEFAULT_HZ 10000u
#define PULLEYPROF_MAX_HZ 1000000u
#define PULLEYPROF_MAX_REGS 16 /* register operands of one instruction */
#define PULLEYPROF_MAX_IMMS 8  /* immediates of one instruction */

/* What an opcode does: control flow, whether it is a macro op or adaptive;
 * stored as opcodes.flags. */
enum {
    PULLEYPROF_BRANCH = 1,     /* may transfer control to its targets */
    PULLEYPROF_TERMINATOR = 2, /* never falls through to the next instruction */
    PULLEYPROF_TRAPS = 4,      /* may trap (raise) */
    PULLEYPROF_CALL = 8,       /* calls another function */
    PULLEYPROF_RETURN = 16,    /* returns to the caller */
    PULLEYPROF_MACRO = 32,     /* a macro op: does the work of its parts */
    /* Adaptive: the interpreter rewrites this instruction in place while
     * the program runs (specialization, quickening: CPython's instructions
     * with inline caches), so no fixed macro op can contain it; the
     * analysis leaves it out of n-grams unless asked to mine it too. */
    PULLEYPROF_ADAPTIVE = 64,
};

/* One part of a macro op: the opcode whose work it does, and which of the
 * macro's operands its operands are (space-separated indices, "0 1 2").
 * Checked at pulleyprof_open: regs names as many indices as the part row
 * has register operands, each below the macro row's register operand
 * count; imms likewise for immediates (NULL counts as ""). */
typedef struct pulleyprof_part {
    unsigned opcode;   /* id of another row of the same table */
    const char *regs;  /* per register operand of the part: the macro's register operand */
    const char *imms;  /* per immediate of the part: the macro's immediate */
} pulleyprof_part;

/* Implicit register windows (pulleyprof_range.access). */
enum { PULLEYPROF_READS = 1, PULLEYPROF_WRITES = 2 };

/* A window of registers an instruction reads or writes beyond its
 * register operands (Lua's CALL A B C reads R[A]..R[A+B-1]; FORLOOP reads
 * and writes R[A]..R[A+3]): registers of the kind of register operand
 * `base`, from its register number + `offset`, `count` of them, where
 * count is the value of immediate `count_imm` (an index into the
 * instruction's immediates) plus `count_add`, or, with count_imm -1,
 * count_add alone.  open_if_zero: an immediate of 0 means "every register
 * from the start up" (Lua's B = 0), which readers take as reading all of
 * them, and as writing none they can name.
 *
 * Checked at pulleyprof_open: access is READS, WRITES or both; base is a
 * register operand of the row (below the number of its roles); count_imm
 * is -1 or an immediate of the row (below its immediate count: operand
 * kinds after the register ones); a fixed window (count_imm -1) has
 * count_add >= 1 and no open_if_zero; open_if_zero is 0 or 1. */
typedef struct pulleyprof_range {
    unsigned access;  /* PULLEYPROF_READS, PULLEYPROF_WRITES or both */
    unsigned base;    /* the register operand the window starts from */
    int offset;       /* added to base's register number */
    int count_imm;    /* the immediate holding the count, -1: none */
    int count_add;    /* added to it (the whole count with count_imm -1) */
    int open_if_zero; /* 1: an immediate of 0 means "from the start up" */
} pulleyprof_range;

/* One row of the interpreter's opcode table, stored with every run so that
 * a profile is read with the instruction set it was taken with. */
typedef struct pulleyprof_opcode {
    unsigned id;           /* opcode number, unique in the table */
    const char *name;      /* mnemonic (required) */
    const char *format;    /* operand format name, or NULL */
    /* Operand kinds, one word each, register operands first: "x x s32".
     * A register kind is any word naming its register class; immediate
     * words the analysis knows are s8 s16 s32 i64 u32 off32 rel32 (a
     * branch offset) and table (a jump table), others are indices.  NULL
     * or "": no operands declared (operand facts are then not reported). */
    const char *operands;
    /* Per register operand: "r" read, "w" written, "rw" both: "w r".  The
     * number of words is the number of register operands. */
    const char *roles;
    /* Encoded bytes of every instruction with this opcode; 0: it varies
     * and the decoder says. */
    unsigned length;
    unsigned flags;        /* PULLEYPROF_BRANCH ... */
    const char *semantics; /* one line, or NULL */
    const pulleyprof_part *parts; /* a macro op's parts, in order (NULL: not one) */
    unsigned nparts;
    /* Only for code in the Pulley VM's own byte encoding (interp/opcodes.def),
     * which the SQL extension can decode from raw code: 8.  0 for any other
     * encoding; readers then use the instruction rows stored by the library. */
    unsigned reg_bits;
    /* The name of the row whose operation this one is, with a narrower
     * immediate (Pulley's xconst8 is xconst64 with an 8-bit one): the same
     * roles, operand count and flags.  The analysis and macro ops then
     * match this opcode as that one.  NULL: none. */
    const char *wide_form;
    /* Machine instructions one execution of this opcode's handler takes,
     * its dispatch included, in the interpreter build that runs (measured,
     * for example under callgrind: bench/op_costs.sh does it for this
     * project's VM).  0: not measured.  With isa.dispatch_cost it lets the
     * analysis predict the time macro ops save, not only dispatches. */
    double cost;
    /* Register windows its instructions read or write beyond their
     * register operands (see pulleyprof_range), nimplicit of them; NULL
     * and 0: none.  Stored in register_ranges (schema version 9). */
    const pulleyprof_range *implicit;
    unsigned nimplicit;
} pulleyprof_opcode;

/* One decoded instruction, filled by the ISA's decoder.  The library
 * zeroes it and sets text/text_cap before each call. */
typedef struct pulleyprof_insn {
    unsigned length;                    /* encoded bytes, > 0 */
    unsigned opcode;                    /* a row's id */
    unsigned nregs;                     /* register operands, in the row's order */
    uint32_t regs[PULLEYPROF_MAX_REGS]; /* their register numbers */
    unsigned nimms;                     /* immediates, in the row's order */
    int64_t imms[PULLEYPROF_MAX_IMMS];  /* their values */
    char *text;                         /* disassembly to write (NUL-terminated); */
    size_t text_cap;                    /* left "" it becomes the mnemonic */
    /* Branch targets, added with pulleyprof_insn_add_target; the
     * library's own. */
    uint32_t *targets;
    size_t ntargets, targets_cap;
} pulleyprof_insn;

/* A control transfer of a branch instruction to `offset` (bytes from the
 * function's start).  0, or -1 when out of memory. */
PULLEYPROF_API int pulleyprof_insn_add_target(pulleyprof_insn *insn, uint32_t offset);

/* Decode the instruction at code[off] (off < size; never read code[size]):
 * fill insn.  ctx is the function's decode_ctx, or (NULL) the one its
 * module was registered with.  Returns 0, or -1 if the bytes do not
 * decode (the function's rows then stop there, and the run says how many
 * functions were cut short).  Called on the library's threads, or on the
 * caller's inside pulleyprof_unregister_function and the exact count
 * calls, under the library's lock: it must not call this library, nor
 * wait for a lock that a thread calling this library may hold (a global
 * interpreter lock), and it should be quick (the sampler may wait for
 * it).  Never called after the function is unregistered. */
typedef int (*pulleyprof_decode_fn)(const void *ctx, const uint8_t *code, size_t size,
                                    size_t off, pulleyprof_insn *insn);

/* The interpreter's instruction set. */
typedef struct pulleyprof_isa {
    const char *name;                  /* "pulley", "cpython-3.11" */
    uint64_t hash;                     /* identifies the opcode table; 0: computed from it */
    const pulleyprof_opcode *opcodes;  /* nopcodes rows */
    size_t nopcodes;
    /* NULL: each instruction is one opcode byte (the row's id) followed by
     * operand bytes the library does not read, row.length bytes in all;
     * such a table cannot declare register operands (roles), since no
     * register numbers could be stored for them. */
    pulleyprof_decode_fn decode;
    /* Machine instructions one dispatch (fetching and jumping to the next
     * handler) takes in this build: what a macro op saves per part after
     * its first.  0: not measured. */
    double dispatch_cost;
} pulleyprof_isa;

typedef struct pulleyprof_config {
    const char *db_path;          /* the SQLite profile database (required) */
    unsigned sample_hz;           /* 0: PULLEYPROF_DEFAULT_HZ; at most _MAX_HZ */
    const pulleyprof_isa *isa;    /* required; must outlive the agent */
    /* Stored in the run row; each may be NULL. */
    const char *label;            /* a name the user chose */
    const char *benchmark;        /* the program run */
    const char *command_line;
    const char *build_flags;      /* how the interpreter was built */
    const char *tool;             /* who collected: "pulley-collect 0.4" (NULL: the library) */
    int exact;                    /* 1: counts instead of samples (exact counts follow) */
    /* 1: the interpreter publishes an address only where a straight-line
     * run of instructions starts (see pulleyprof_publish), not before
     * every instruction.  0: before every instruction. */
    int run_starts;
} pulleyprof_config;

/* What a closed run recorded. */
typedef struct pulleyprof_summary {
    int64_t run_id;
    uint64_t samples_taken;   /* slot reads by the sampler */
    uint64_t samples_written; /* committed to the database */
    uint64_t samples_dropped; /* taken but not written (buffers full, write errors) */
    uint64_t ticks_missed;    /* deadlines the sampler woke too late for */
    uint64_t sampled_ns;      /* time during which at least one slot was registered */
    uint64_t bytes_stored;    /* compressed sample bytes written */
    uint64_t chunks;
    uint64_t counts_unmapped; /* exact counts refused: unknown function, offset
                               * outside it or not at an instruction start */
    int exact;                /* config.exact */
    uint64_t executed;        /* exact: instruction executions counted and stored */
    uint64_t duration_ns;     /* wall time from open to close */
    uint64_t functions_cut_short; /* whose code stopped decoding before its end */
    uint64_t samples_unattributed; /* written, at an address (not 0) in no registered
                                    * function: stored without a function */
    uint64_t sampler_cpu_ns;  /* CPU time the sampler thread took (0: not measured) */
} pulleyprof_summary;

typedef struct pulleyprof_agent pulleyprof_agent;

/* The library's version, "MAJOR.MINOR.PATCH". */
PULLEYPROF_API const char *pulleyprof_version(void);

/* Check the ISA, open the database (created if missing; a new run is
 * appended to an existing one) and start sampling.  Refuses, without
 * writing anything, an opcode table that is not one (duplicate ids, no
 * name, too many operands, a macro part of no row or whose regs and imms
 * do not fit the two rows, an implicit range that does not fit its row,
 * register operands without a decoder), naming the row; a file that is
 * not a profile database, one of a newer schema, or a damaged one.  NULL
 * with err (and pulleyprof_last_error) on failure. */
PULLEYPROF_API pulleyprof_agent *pulleyprof_open(const pulleyprof_config *cfg, char *err,
                                                 size_t errcap);

/* A module: its name and the context passed to isa->decode for its
 * functions (which must stay valid until each of them is unregistered or
 * pulleyprof_close returns).  Returns its handle. */
PULLEYPROF_API int pulleyprof_register_module(pulleyprof_agent *a, const char *name,
                                              const void *decode_ctx);

/* A bytecode function (code object), for pulleyprof_add_function.  Later
 * versions may add fields at the end, zero meaning what the versions
 * before did: initialise it with designated initialisers (the rest zero),
 * and rebuild against the header of the library you link. */
typedef struct pulleyprof_function {
    int module;         /* a handle from pulleyprof_register_module */
    uint32_t index;     /* its index in the module */
    const char *name;   /* required */
    uintptr_t address;  /* what the interpreter publishes for its first instruction */
    const uint8_t *code; /* its `size` code bytes (copied); size > 0 */
    size_t size;
    /* Passed to isa->decode for this function (its constants, say, so that
     * the disassembly can show them); NULL: its module's.  Must stay valid
     * until the function is unregistered or pulleyprof_close returns. */
    const void *decode_ctx;
} pulleyprof_function;

/* Register a function.  Refused (-1, pulleyprof_last_error): an unknown
 * module, no name, size 0, no code, or a range [address, address + size)
 * that overlaps a live (registered and not unregistered) function's.
 * Returns its handle. */
PULLEYPROF_API int pulleyprof_add_function(pulleyprof_agent *a, const pulleyprof_function *f);

/* The same with the fields as arguments (decode_ctx NULL). */
PULLEYPROF_API int pulleyprof_register_function(pulleyprof_agent *a, int module, uint32_t index,
                                                const char *name, uintptr_t address,
                                                const uint8_t *code, size_t size);

/* The function's code dies: after this returns the interpreter may free
 * its code and its decode context, and register other code at its
 * address.  The run keeps what it recorded: the function is stored with
 * the run (decoded before this returns), its samples stay attributed to
 * it, and exact counts reported later with its handle are still taken.
 * Refused: an unknown handle, or one unregistered already. */
PULLEYPROF_API int pulleyprof_unregister_function(pulleyprof_agent *a, int func);

/* Unregister func and add f (often at the same address): f's handle, or
 * -1 when either step is refused (func stays registered when f is). */
PULLEYPROF_API int pulleyprof_replace_function(pulleyprof_agent *a, int func,
                                               const pulleyprof_function *f);

/* Start / stop sampling an interpreter thread's slot.  After unregister
 * returns, the sampler no longer reads the slot.  Register functions
 * before the slot: the first slot tells the library the program is about
 * to run, and it then writes the functions registered so far while the
 * program runs, and later ones too, in batches of 256 as they come or
 * fewer once they waited 1 ms (the rest at close). */
PULLEYPROF_API int pulleyprof_register_slot(pulleyprof_agent *a, _Atomic(uintptr_t) *slot);
PULLEYPROF_API int pulleyprof_unregister_slot(pulleyprof_agent *a, _Atomic(uintptr_t) *slot);

/* Or, for an interpreter that keeps the current instruction's address
 * itself (CPython's frames do), a reader: a function the sampler thread
 * calls at each tick, returning the address of the instruction the
 * interpreter thread is executing (0: host code).  It runs on the
 * sampler's thread, under the sampler's lock, while the interpreter runs:
 * it must not block nor call this library, and must cope with memory the
 * interpreter changes under it.  Registered and unregistered like a slot
 * (a reader is the pair read, ctx). */
typedef uintptr_t (*pulleyprof_pc_reader)(void *ctx);
PULLEYPROF_API int pulleyprof_register_reader(pulleyprof_agent *a, pulleyprof_pc_reader read,
                                              void *ctx);
PULLEYPROF_API int pulleyprof_unregister_reader(pulleyprof_agent *a, pulleyprof_pc_reader read,
                                                void *ctx);

/* Publish the instruction at `address` (0: host code) in a slot: the one
 * relaxed store an interpreter makes before each instruction.
 *
 * Or, with config.run_starts, only where a straight-line run starts: when
 * bytecode is entered, at the target of every control transfer taken, and
 * at the instruction after one whose opcode is flagged BRANCH, TERMINATOR,
 * CALL or RETURN (whichever way it went on).  The run is the instructions
 * from the one published up to the first such instruction (or the
 * function's end), each run once per entry: the library spreads each
 * sample over them, equally or, when the opcode table gives costs, in
 * proportion to their opcodes' costs (pc_samples then holds each
 * instruction's share; the sample chunks keep the addresses published),
 * so that the interpreter stores once per run instead of once per
 * instruction. */
static inline void pulleyprof_publish(_Atomic(uintptr_t) *slot, uintptr_t address)
{
    atomic_store_explicit(slot, address, memory_order_relaxed);
}

/* Exact counts: the instruction at `offset` of function `func` ran
 * `count` more times; the control transfer (branch, call, return) at
 * offset `from` of `func` went to offset `to` of function `to_func`
 * `count` more times; _add_edge_count is a transfer inside `func`.
 * Offsets are instruction starts of their function (as its decoder reads
 * it); the function may be unregistered already.  A count with an unknown
 * function or an offset that is no instruction start is not stored, is
 * counted (summary.counts_unmapped) and makes the call return -1.  A
 * count above INT64_MAX is refused (-1; counts are stored as signed 64-bit
 * integers), and one that would pass INT64_MAX summed with the count
 * stored for the same instruction or transfer is not stored: close then
 * returns -1 saying so. */
PULLEYPROF_API int pulleyprof_add_exec_count(pulleyprof_agent *a, int func, uint32_t offset,
                                             uint64_t count);
PULLEYPROF_API int pulleyprof_add_transfer_count(pulleyprof_agent *a, int func, uint32_t from,
                                                 int to_func, uint32_t to, uint64_t count);
PULLEYPROF_API int pulleyprof_add_edge_count(pulleyprof_agent *a, int func, uint32_t from,
                                             uint32_t to, uint64_t count);

/* How the program ended ("return", "exit", "trap: ...", "signal SIGINT")
 * and its exit status; stored in the run row. */
PULLEYPROF_API void pulleyprof_set_outcome(pulleyprof_agent *a, const char *outcome,
                                           int exit_status);

/* pulleyprof_close's result when the database file was deleted, renamed
 * or replaced during the run: the file at db_path does not hold the run
 * (nothing of it was saved there; a file put in its place is left as it
 * is). */
#define PULLEYPROF_RUN_LOST (-2)

/* Stop sampling, write everything and end the run; frees the agent.  The
 * run row is ended even when something failed: then its outcome is
 * "incomplete: WHAT WAS LOST (OUTCOME)", and close returns -1 with err
 * (the summary says what was written).  Calls refused earlier do not make
 * the run incomplete: the caller was told.  When the path no longer names
 * the file opened, close returns PULLEYPROF_RUN_LOST with err ("run N was
 * not saved: ..."). */
PULLEYPROF_API int pulleyprof_close(pulleyprof_agent *a, pulleyprof_summary *summary, char *err,
                                    size_t errcap);

/* The message of the last call refused on the calling thread (one line,
 * naming the call and what was wrong), or "" if none was.  Valid until the
 * thread's next refused call. */
PULLEYPROF_API const char *pulleyprof_last_error(void);

#endif
