/*
 * emit.h - the chosen macro ops as a set a VM can be built with
 * (pulley-ngrams --emit-macros FILE; the .macros format is in
 * fusion/README.md).  When the profile was taken on a macro build, its
 * macro ops come first, as the stored table defines them, so that the
 * new set does the work of the old one and adds the new ops on top.
 */
#ifndef AN_EMIT_H
#define AN_EMIT_H

#include <stddef.h>

#include "macro_set.h"
#include "profile_model.h"
#include "propose.h"

/* The macro ops of p's opcode tables, then props[0..n) (each with its
 * saving as a share of `total`, in percent), into out (emptied first).
 * A proposal equal to an op already in the set is left out; one whose name
 * is taken gets a suffix.  Returns 0, or -1 with err. */
int an_macro_set(const an_profile *p, const an_proposal *props, size_t n, double total,
                 fu_set *out, char *err, size_t cap);

/* Write s to path (through a temporary file renamed into place, so that a
 * failed write leaves no half file under the name).  Returns 0, or -1 with
 * err naming the file and the reason. */
int an_write_macro_set(const char *path, const fu_set *s, const char *comment, char *err,
                       size_t cap);

#endif
