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

/* A set of a function's registers, by id (an_insn.reg): ids are given to
 * the first AN_FUNC_REGS distinct registers a function names. */
#define AN_FUNC_REGS 256
typedef struct an_regset {
    uint64_t w[AN_FUNC_REGS / 64];
} an_regset;

typedef struct an_insn {
    uint32_t off, len;
    uint32_t block;   /* index of its basic block in the function */
    uint16_t op;      /* global opcode index (an_profile.opnames) */
    uint16_t mop;     /* the one n-grams and macro ops match it as: op, or
                       * its wide form (an_profile.opwide) */
    uint8_t flags;    /* AN_BRANCH ... */
    uint8_t nregs;
    /* Its registers in operand order, as the function's register ids
     * (an_func.regs names them): equal ids are the same register. */
    uint8_t reg[AN_MAX_REGS];
    uint8_t opaque;   /* its registers are not known (regs.h): taken to read
                       * every register, it matches no macro op */
    uint8_t implicit; /* it reads or writes windows of registers (an_func.implicit) */
    uint16_t uses;    /* bit i: operand i is read (the stored roles) */
    uint16_t defs;    /* bit i: operand i is written */
    uint8_t nimms;    /* immediates */
    uint8_t imm_kind; /* an_imm of imm */
    uint8_t leader;   /* starts a basic block */
    /* The first immediate that is not a branch offset, else the first. */
    int64_t imm;
    double count;     /* exact executions, or samples */
    double norm;      /* count / its run's counts, summed over the runs of a
                       * pool (run_pool.h) */
} an_insn;

typedef struct an_block {
    uint32_t first, n; /* instructions [first, first + n) */
    double freq;       /* estimated executions (raw units of the run) */
    double norm;       /* freq / its run's total, summed over the runs of a
                        * pool (run_pool.h) */
    double weight;     /* freq normalised per benchmark */
    double tweight;    /* a dispatch removed here, in time normalised per
                        * benchmark (time_model.h); 0: no time model */
    an_regset live_out; /* registers (ids) live at the end */
} an_block;

typedef struct an_edge {
    uint32_t from; /* instruction index */
    uint32_t to;   /* target byte offset */
} an_edge;

/* A register an instruction names: its kind (an_profile.kinds) and number. */
typedef struct an_reg {
    uint32_t number;
    uint8_t kind;
} an_reg;

/* A window of registers instruction `insn` reads or writes beyond its
 * operands (an opcode's stored register_ranges, evaluated): registers of
 * `kind` numbered first .. first + count - 1, or from first up with count
 * AN_OPEN. */
#define AN_OPEN UINT32_MAX
enum { AN_READS = 1, AN_WRITES = 2 };
typedef struct an_implicit {
    uint32_t insn;
    uint32_t first, count;
    uint8_t kind;
    uint8_t access; /* AN_READS | AN_WRITES */
} an_implicit;

/* What decides how a function is built: its code and stored checksum, its
 * run's opcode table (an_isa_fingerprint) and whether it is built from
 * the stored rows; equal keys (and names) build equal functions. */
typedef struct an_code_key {
    uint64_t code[2]; /* two hashes of its code bytes */
    uint64_t isa;
    int64_t checksum;
    uint32_t size;
    uint8_t known;    /* the key is set */
    uint8_t rows;     /* built from stored rows (then it has a checksum) */
} an_code_key;

typedef struct an_func {
    int64_t id;
    char *name;
    uint32_t serial; /* unique over the whole profile */
    an_insn *insns;
    uint32_t ninsns;
    an_reg *regs;     /* regs[id]: the register an instruction's reg[] id names */
    uint32_t nregs;
    an_implicit *implicit; /* in instruction order */
    uint32_t nimplicit;
    an_block *blocks;
    uint32_t nblocks;
    an_edge *edges;
    uint32_t nedges;
    /* Where it was read (NULL: its run's db and id); in a pool, the first
     * run that had it (run_pool.h). */
    const char *db;
    int64_t run_id;
    uint64_t hash; /* of its code as decoded and its name (run_pool.c) */
    an_code_key key;
    uint8_t copied; /* built as a copy of an equal function (run_pool.h) */
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
    uint64_t unanalysed; /* instructions whose registers the analysis does not
                          * know (regs.h: undeclared kinds, too many registers) */
    double total;    /* estimated dynamic instructions (raw units) */
    an_func *funcs;
    size_t nfuncs;
    /* What the build that ran costs (schema 8; time_model.h): machine
     * instructions per execution of each global opcode's handler (0: not
     * stored), opcost[0..nopcost), and per dispatch (0: not stored). */
    double *opcost;
    size_t nopcost;
    double dispatch_cost;
    /* A pool (run_pool.h): the runs folded into it (0 or 1: a run as
     * read), those with executed instructions (a total > 0) and with
     * counts or samples; its functions' index by hash. */
    size_t members, members_ran, members_counted;
    uint32_t *index;
    size_t index_cap;
} an_run;

/* A run read, as pulley-report's run list and the notes name it. */
typedef struct an_member {
    char *db;
    int64_t id;
    char *label;     /* may be NULL */
    char *benchmark;
    int exact;
    uint64_t unanalysed;
} an_member;

/* A macro op stored with a run (opcodes.flags & AN_MACRO, macro_parts):
 * the opcodes of its parts, in order, and which of its register operands
 * each part's register operands are. */
typedef struct an_opdef {
    uint8_t kind[AN_MAX_REGS];          /* each register operand's kind (an_profile.kinds) */
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
    char **kinds;     /* register kind names ("x", "f", "r"), merged over all runs */
    size_t nkinds;
    char **benches;
    size_t nbenches;
    uint32_t nfuncs;  /* functions loaded (serials) */
    /* The runs read, in order, when runs are pooled (run_pool.h): runs[]
     * then holds the pools. */
    an_member *members;
    size_t nmembers;
    struct an_code_cache *codes; /* the pools' functions by an_code_key */
} an_profile;

/* Runs read: the members of the pools, else nruns. */
size_t an_profile_nread(const an_profile *p);
/* Run i (< an_profile_nread) of those read, its strings p's. */
an_member an_profile_member(const an_profile *p, size_t i);
/* The database and the run function f of run was read from. */
const char *an_func_db(const an_run *run, const an_func *f);
int64_t an_func_run(const an_run *run, const an_func *f);

/* Global index of opcode `name` (added if new); -1 on allocation failure
 * or when there are AN_MAX_OPS already. */
#define AN_MAX_OPS 65000
int an_profile_intern_op(an_profile *p, const char *name, unsigned flags);
/* Global index of register kind `name` (added if new); -1 on allocation
 * failure or when there are AN_MAX_KINDS already. */
#define AN_MAX_KINDS 255
int an_profile_intern_kind(an_profile *p, const char *name);
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
