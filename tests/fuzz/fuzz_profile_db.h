/*
 * fuzz_profile_db.h - one input through the profile database readers: the
 * bytes are written to a temporary file and read as a profile database, as
 * pulley-ngrams and pulley-report read one (an_profile_read_all, then
 * an_normalise; the report's view, run summaries and stored disassembly),
 * once as selected by default and, when that is refused, once more with
 * --skip-damaged.  Besides sanitizer reports it aborts on broken
 * invariants: a refusal without a message naming the file, a report read
 * that fails without a message.
 *
 * Shared by the libFuzzer target fuzz_profile_db (PULLEY_FUZZ=ON) and the
 * replay test profile_db_fuzz_regressions (every build).
 */
#ifndef PULLEY_FUZZ_PROFILE_DB_H
#define PULLEY_FUZZ_PROFILE_DB_H

#include <stddef.h>
#include <stdint.h>

typedef enum pulley_profile_db_outcome {
    PULLEY_PROFILE_DB_REFUSED, /* refused with a message naming the file */
    PULLEY_PROFILE_DB_EMPTY,   /* read, but no run was selected */
    PULLEY_PROFILE_DB_READ,    /* read, runs selected, normalised, viewed */
} pulley_profile_db_outcome;

/* Run one input; `why` gets the refusal or the runs left out (cap bytes). */
pulley_profile_db_outcome pulley_fuzz_profile_db(const uint8_t *data, size_t size, char *why,
                                                 size_t cap);

#endif
