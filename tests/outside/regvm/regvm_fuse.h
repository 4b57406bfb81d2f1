/*
 * regvm_fuse.h - regvm's macro ops: the build's set (a .macros file made by
 * pulley-ngrams --emit-macros, compiled in), added to the opcode table,
 * and the fusion pass that rewrites a function's code with them using the
 * library's cover (<pulley/fusion.h>), the very cover pulley-ngrams
 * predicted with.
 */
#ifndef REGVM_FUSE_H
#define REGVM_FUSE_H

#include <stddef.h>
#include <stdint.h>

struct pulleyfuse_set;

/* The build's macro ops, bound to regvm's opcodes (regvm_macros_init). */
extern struct pulleyfuse_set *regvm_macro_set;

/* How the build was made, for the profile's run row. */
extern const char *const regvm_build_flags;

/* Add the build's macro ops to regvm_ops and the library's rows, after
 * the base ops; 0, or -1 with a message on stderr. */
int regvm_macros_init(void);

/* The code of a function, fused (when `fuse` and the build has macro
 * ops) or copied: *out (malloc'd), *outsize.  0, or -1 when out of memory
 * or the code does not decode. */
int regvm_fuse(const uint8_t *code, size_t size, int fuse, uint8_t **out, size_t *outsize);

#endif
