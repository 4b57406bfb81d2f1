/*
 * spec_spectest.h - the `spectest` host module the spec test scripts
 * import from: print functions that do nothing, four immutable globals of
 * 666 / 666.6, a funcref table of 10..20 entries and a memory of 1..2
 * pages (as the reference interpreter defines them).
 */
#ifndef PULLEY_SPEC_SPECTEST_H
#define PULLEY_SPEC_SPECTEST_H

#include "error.h"
#include "wasm_instance.h"

/* Define the spectest items in the store.  0, or -1 with err. */
int spec_spectest_define(pvm_wasm_store *s, pvm_error *err);

#endif
