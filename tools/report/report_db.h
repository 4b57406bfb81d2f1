/*
 * report_db.h - what pulley-report reads from the databases beside the
 * profile model (profile_read.c): each run's summary row and host-time
 * samples, and the stored disassembly (`instructions` rows) of the
 * functions it shows.  Databases are never written (db_open.h).
 */
#ifndef RP_REPORT_DB_H
#define RP_REPORT_DB_H

#include <stddef.h>
#include <stdint.h>

#include "hot_code.h"
#include "profile_model.h"

typedef struct rp_run_info {
    char *start_time, *outcome, *build_flags, *host, *command_line, *collector;
    int64_t duration_ns;     /* -1: unknown (NULL in the row) */
    int64_t sample_hz;
    int64_t samples_taken, samples_written, samples_dropped; /* -1: unknown */
    int64_t host_samples;     /* samples outside any bytecode function */
    int64_t bytecode_samples; /* samples in functions */
} rp_run_info;

/* Read the summary of every run of p into info[0..p->nruns).  Returns 0,
 * or -1 with err naming the database. */
int rp_read_runs(const an_profile *p, rp_run_info *info, char *err, size_t cap);
void rp_free_runs(rp_run_info *info, size_t n);

/* Attach the stored disassembly to funcs[0..n) (hc_func.text; an
 * instruction without a row gets NULL).  Returns 0, or -1 with err. */
int rp_read_text(const an_profile *p, hc_func *funcs, size_t n, char *err, size_t cap);

/* The text of instruction i of h: its stored row, or else built from the
 * decoded instruction (opcode name and operands) into buf. */
const char *rp_insn_text(const an_profile *p, const hc_func *h, uint32_t i, char *buf, size_t cap);

#endif
