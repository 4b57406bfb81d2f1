/*
 * fuse_set.h - what a pulleyfuse_set (include/pulley/fusion.h) holds: the
 * set as fusion/ reads it and, once bound, its patterns, their index by
 * last opcode and what the cover needs to turn an outside interpreter's
 * instructions into fusion/'s.  Shared by fuse_set.c (reading,
 * inspecting) and fuse_cover.c (binding, covering).
 */
#ifndef PP_FUSE_SET_H
#define PP_FUSE_SET_H

#include <pulley/fusion.h>

#include "cover.h"
#include "macro_set.h"

struct pulleyfuse_set {
    char *name; /* the file, for messages */
    fu_set set;
    /* Bound (patterns not NULL): one pattern per macro op, in file order. */
    fu_pattern *patterns;
    fu_index index;
    /* Per opcode 0 .. nops - 1: 1 + the register operands its parts have,
     * 0 for an opcode no part names. */
    uint8_t *part_regs;
    uint32_t nops;
    uint16_t none_op; /* an opcode no part names, for those above 65535 */
};

/* Forget the binding (the set covers nothing until bound again). */
void pp__fuse_unbind(pulleyfuse_set *s);

#endif
