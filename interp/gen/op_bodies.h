/*
 * op_bodies.h - the op bodies of an interpreter, as pulley-macrogen reads
 * them: each the lines between a line starting `OPCODE(NAME)` and the next
 * line starting `END_OPCODE` (interp/vm_ops.h, or an outside
 * interpreter's bodies file: interp/gen/OUTSIDE.md).
 */
#ifndef MG_OP_BODIES_H
#define MG_OP_BODIES_H

#include <stddef.h>

#include "macro_set.h"

typedef struct mg_body {
    char name[FU_MAX_NAME];
    char *text;    /* the lines between the markers, each with its '\n' */
    unsigned line; /* the line of the file the body's first line is */
} mg_body;

typedef struct mg_bodies {
    const char *path; /* the file, as messages name it */
    mg_body *v;
    size_t n, cap;
} mg_bodies;

/* Read the bodies of the file at path; dies naming the file and line of
 * a marker out of place, a name that is no identifier or one named twice. */
void mg_bodies_read(const char *path, mg_bodies *out);

/* The body of op `name`, or NULL. */
const mg_body *mg_body_of(const mg_bodies *b, const char *name);

void mg_bodies_free(mg_bodies *b);

#endif
