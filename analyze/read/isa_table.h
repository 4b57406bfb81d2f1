/*
 * isa_table.h - the opcode table stored with a run, as the analysis sees
 * it: the rows' encoding (opcode_rows.h) and, beside each row, what the
 * analysis needs from it - its flags, which register operands it reads
 * and writes (the stored roles) and their kinds, the windows of registers
 * it reads or writes implicitly, its global opcode index.  insn_build.h
 * makes instructions with it.  Nothing here uses the compiled-in ISA, so
 * profiles taken with an older opcode table stay readable.
 */
#ifndef AN_ISA_TABLE_H
#define AN_ISA_TABLE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "opcode_rows.h"
#include "profile_model.h"

/* A window of registers an opcode reads or writes beyond its operands
 * (a stored register_ranges row, schema 9): of the kind of register
 * operand `base`, from its number + offset, as many as immediate
 * count_imm's value + count_add (count_imm -1: count_add); an immediate of
 * 0 with open_if_zero: every register from there up. */
typedef struct an_range {
    uint8_t access; /* AN_READS | AN_WRITES */
    uint8_t base;
    uint8_t open_if_zero;
    int8_t count_imm;
    int32_t offset, count_add;
} an_range;

/* What the analysis keeps about one opcode row. */
typedef struct an_isa_op {
    uint16_t gop;  /* global opcode index (an_profile.opnames) */
    uint16_t mgop; /* the global opcode it is matched as: its wide form's, or gop */
    uint8_t flags; /* AN_BRANCH ... */
    uint8_t kinds_known; /* the row names its register operands' kinds */
    uint8_t kind[AN_MAX_REGS]; /* each register operand's kind (an_profile.kinds) */
    uint16_t uses; /* bit i: register operand i is read */
    uint16_t defs; /* bit i: register operand i is written */
    uint32_t first_range, nranges; /* its windows: an_isa.ranges[first_range ..] */
    double cost;   /* machine instructions per execution (schema 8), 0: not stored */
} an_isa_op;

typedef struct an_isa {
    ot_table rows;  /* the encoding, sorted by id */
    an_isa_op *ops; /* ops[i] belongs to rows.ops[i] */
    size_t cap;
    an_range *ranges; /* every op's windows, grouped by op */
    size_t nranges, ranges_cap;
} an_isa;

/* Load the opcode table of `run` from db; opcode names are interned in p.
 * Returns 0; 1 with err when one of its rows is none a collector writes
 * (the run is damaged); -1 with err on other failures. */
int an_isa_load(sqlite3 *db, int64_t run, an_profile *p, an_isa *isa, char *err, size_t cap);

/* Is run's stored opcode table one to decode its code with?  0; 1 with
 * why when the run is damaged: it has no opcode rows, two rows share a
 * name (their opcodes would merge in every count), or its rows are of
 * another encoding (reg_bits 0) while its instruction rows carry no
 * operands (`operands_stored` 0), so nothing could be decoded; -1 with
 * why when SQLite fails. */
int an_isa_check(sqlite3 *db, int64_t run, int operands_stored, char *why, size_t cap);

/* Add one stored row (ids increasing; isa starts zeroed): its operand kinds
 * such as "x x s32" (the first words, as many as it has roles, are its
 * register operands' kinds, interned in p), the encoded length, the bits
 * of each register operand (8, or 5 in older profiles), the flags and the
 * role of each register operand ("w r r": r read, w written, rw both).
 * Returns 0, or -1 with err saying what is wrong with the row. */
int an_isa_add(an_isa *isa, an_profile *p, int64_t id, const char *name, const char *operands,
               int64_t length, int64_t reg_bits, int64_t flags, const char *roles, char *err,
               size_t cap);

/* Add a window of registers (an_range) to the row with id `opcode`, after
 * its others (rows' windows added in the order of their rows).  Returns
 * 0, or -1 with err saying what is wrong with it. */
int an_isa_add_range(an_isa *isa, int64_t opcode, int64_t access, int64_t base, int64_t offset,
                     int64_t count_imm, int64_t count_add, int64_t open_if_zero, char *err,
                     size_t cap);

void an_isa_free(an_isa *isa);

/* A hash of everything in isa that decides how code and instruction rows
 * become instructions (its costs excepted): two runs whose tables have the
 * same build their functions alike (run_pool.h). */
uint64_t an_isa_fingerprint(const an_isa *isa);

#endif
