/*
 * profile_model.h - the in-memory model pulley-ngrams analyses: selected runs,
 * their decoded functions, instructions with samples or exact counts, and
 * basic blocks.  Memory is proportional to the bytecode, not the samples.
 */
#ifndef AN_PROFILE_MODEL_H
#define AN_PROFILE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define AN_MAX_N 8 /* longest n-gram mined */

/* Opcode flag bits, as stored in the opcodes table. */
enum {
    AN_BRANCH = 1,
    AN_TERM = 2,
    AN_TRAPS = 4,
    AN_CALL = 8,
    AN_RETURN = 16,
    AN_MACRO = 32,
    AN_ADAPTIVE = 64, /* rewritten in place at run time: in no n-gram unless asked */
};

/* What an immediate is, from its operand kind name. */
typedef enum an_imm {
    AN_IMM_NONE,
    AN_IMM_SIGNED,   /* s8 s16 s32 off32 i64: a number, sign-extended */
    AN_IMM_UNSIGNED, /* u32: a number */
    AN_IMM_REL,      /* rel32: a branch offset */
    AN_IMM_TABLE,    /* a jump table: count, then rel32 entries */
    AN_IMM_OTHER,    /* an index, trap kind or float bits */
} an_imm;

#define AN_MAX_REGS 16 /* register operands of one instruction (macro ops) */

typedef struct an_insn {
    uint32_t off, len;
    uint32_t block;   /* index of its basic block in the function */
    uint16_t op;      /* global opcode index (an_profile.opnames) */
    uint16_t mop;     /* the one n-grams and macro ops match it as: op, or
                       * its wide form (an_profile.opwide) */
    uint8_t flags;    /* AN_BRANCH ... */
    uint8_t nregs;
    uint8_t reg[AN_MAX_REGS]; /* register numbers in operand order */
    uint16_t regf;    /* bit i: operand i is an f register */
    uint16_t uses;    /* bit i: operand i is read (the stored roles) */
    uint16_t defs;    /* bit i: operand i is written */
    uint8_t nimms;    /* immediates */
    uint8_t imm_kind; /* an_imm of imm */
    uint8_t leader;   /* starts a basic block */
    /* The first immediate that is not a branch offset, else the first. */
    int64_t imm;
    double count;     /* exact executions, or samples */
} an_insn;

typedef struct an_block {
    uint32_t first, n; /* instructions [first, first + n) */
    double freq;       /* estimated executions (raw units of the run) */
    double weight;     /* freq normalised per benchmark */
    double tweight;    /* a dispatch removed here, in time normalised per
                        * benchmark (time_model.h); 0: no time model */
    uint64_t live_out; /* registers live at the end: x0..31, f0..31 */
} an_block;

typedef struct an_edge {
    uint32_t from; /* instruction index */
    uint32_t to;   /* target byte offset */
} an_edge;

typedef struct an_func {
    int64_t id;
    char *name;
    uint32_t serial; /* unique over the whole profile */
    an_insn *insns;
    uint32_t ninsns;
    an_block *blocks;
    uint32_t nblocks;
    an_edge *edges;
    uint32_t nedges;
} an_func;

typedef struct an_run {
    int64_t id;
    char *db;        /* path of its database */
    char *label;     /* may be NULL */
    char *benchmark;
    char *isa;       /* runs.isa_name: 'pulley', 'cpython-3.11', ... */
    uint32_t bench;  /* index into an_profile.benches */
    int exact;       /* counts are exact executions */
    int estimated;   /* its block frequencies are set (an_estimate_frequencies) */
    int operands_stored; /* instructions built from stored rows (schema 6) */
    uint64_t unanalysed; /* instructions whose register operands the analysis
                          * leaves out (not x/f registers below 32) */
    double total;    /* estimated dynamic instructions (raw units) */
    an_func *funcs;
    size_t nfuncs;
    /* What the build that ran costs (schema 8; time_model.h): machine
     * instructions per execution of each global opcode's handler (0: not
     * stored), opcost[0..nopcost), and per dispatch (0: not stored). */
    double *opcost;
    size_t nopcost;
    double dispatch_cost;
} an_run;

/* A macro op stored with a run (opcodes.flags & AN_MACRO, macro_parts):
 * the opcodes of its parts, in order, and which of its register operands
 * each part's register operands are. */
typedef struct an_opdef {
    uint16_t regf;                      /* bit i: the macro's register operand i is an f register */
    uint8_t nparts;
    uint16_t part[AN_MAX_N];            /* global opcode of each part */
    uint8_t nregs[AN_MAX_N];            /* the part's register operands */
    uint8_t reg[AN_MAX_N][AN_MAX_REGS]; /* the macro's register operand each one is */
    uint8_t nimms[AN_MAX_N];            /* the part's immediates */
} an_opdef;

/* A run (or, with id 0, a database) left out of the analysis, and why. */
typedef struct an_skip {
    char *db;
    int64_t id;
    char *why;
} an_skip;

typedef struct an_profile {
    an_run *runs;
    size_t nruns;
    an_skip *skipped; /* in the order met */
    size_t nskipped;
    char **opnames;   /* global opcode names, merged over all runs */
    uint8_t *opflags; /* their flags (from the first run that has them) */
    uint16_t *opwide; /* the one each is matched as: its wide form (a stored
                       * opcodes.wide_form), else itself */
    an_opdef **opdefs; /* a macro op's parts (the first run that has them), else NULL */
    size_t nops;
    char **benches;
    size_t nbenches;
    uint32_t nfuncs;  /* functions loaded (serials) */
} an_profile;

/* Global index of opcode `name` (added if new); -1 on allocation failure. */
int an_profile_intern_op(an_profile *p, const char *name, unsigned flags);
/* Record the parts of macro op `op` (a global index) unless it has them;
 * 0, or -1 when out of memory. */
int an_profile_define_op(an_profile *p, uint16_t op, const an_opdef *def);
/* Global index of benchmark `name` (added if new); -1 on failure. */
int an_profile_intern_bench(an_profile *p, const char *name);
/* Instructions of every function of every run: the size of the work. */
size_t an_profile_ninsns(const an_profile *p);
/* Note that run `id` of db (0: the database) is left out; 0 or -1 (out of
 * memory). */
int an_profile_skip(an_profile *p, const char *db, int64_t id, const char *why);
void an_run_free(an_run *run);

/* What a profile's shares are: of sampled time, of counted executions, or
 * both mixed (then neither exactly). */
typedef enum { AN_SHARES_NONE, AN_SHARES_SAMPLED, AN_SHARES_EXACT, AN_SHARES_MIXED } an_shares;
an_shares an_profile_shares(const an_profile *p);
const char *an_shares_word(an_shares s); /* "sampled", "exact", "mixed", "none" */
/* One sentence saying what the shares of p are and how sure they are:
 * "Shares are of sampled time (29122 samples; a 10.00% share is known to
 * +-0.35 points, 95%), every benchmark weighing the same." */
void an_shares_note(const an_profile *p, char *buf, size_t cap);
/* The samples behind a share of a sampled profile, every benchmark
 * weighing the same: B^2 / sum over benchmarks of 1/n_b (0 when a
 * benchmark has none or the profile is not sampled). */
double an_profile_effective_samples(const an_profile *p);
/* Half the width of the 95% binomial interval (normal approximation) of a
 * share p (0..1) estimated from n samples; 0 when n is 0. */
double an_share_halfwidth(double p, double n);
void an_profile_free(an_profile *p);

#endif
