/*
 * fuzz_fusion.h - one input through the fusion pass: a valid Wasm module
 * (its imports provided) is instantiated and every exported function called
 * (with zero arguments) twice, once as translated and once fused with the
 * build's macro ops; the results, traps, and the final memory, globals
 * and tables must be the same.  Each run happens in a child process with
 * a time limit (a fuzzed module may loop forever): a run that does not
 * finish in time is not compared.
 *
 * Shared by the libFuzzer target fuzz_fusion (PULLEY_FUZZ=ON) and the
 * replay test fusion_fuzz_regressions (macro builds).
 */
#ifndef PULLEY_FUZZ_FUSION_H
#define PULLEY_FUZZ_FUSION_H

#include <stddef.h>
#include <stdint.h>

typedef enum pulley_fusion_outcome {
    PULLEY_FUSION_SKIPPED,  /* not a valid module */
    PULLEY_FUSION_TIMEOUT,  /* a run did not finish in time */
    PULLEY_FUSION_SAME,     /* both ran, with the same outcome */
} pulley_fusion_outcome;

/* Run one input; on a difference, report it on stderr and abort(). */
pulley_fusion_outcome pulley_fuzz_fusion(const uint8_t *data, size_t size);

#endif
