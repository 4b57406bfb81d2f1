/*
 * legacy_roles.h - how the rows of a version 1 or 2 profile database
 * (which stored no operand roles and no return flag, see schema.sql) are
 * read as version 3 rows: as SQL expressions over an `opcodes` row.  The
 * collector's migration writes them into the file; the readers, which
 * never write, select them when they open an older file.
 *
 * The rule is the one the analysis applied before version 3: the first
 * register operand is written when the semantics begin "x[a] =" or
 * "f[a] =" (or "f[a].f32 =" ...), every other register operand is read;
 * a terminator that does not branch and has no operands (ret) returns.
 * A version 2 row has at most 4 register operands, each a one-letter word
 * before any immediate.
 */
#ifndef PULLEY_SQL_LEGACY_ROLES_H
#define PULLEY_SQL_LEGACY_ROLES_H

/* Is the k-th word of `operands` a register (k < 4)? */
#define PVM_LEGACY_REG_WORD_(k)                                                \
    "(substr(operands, " #k " * 2 + 1, 1) IN ('x', 'f') AND"                   \
    " substr(operands, " #k " * 2 + 2, 1) IN (' ', ''))"

/* The number of register operands of the row. */
#define PVM_LEGACY_NREGS_SQL                                                   \
    "(" PVM_LEGACY_REG_WORD_(0) " + (" PVM_LEGACY_REG_WORD_(0) " AND "          \
    PVM_LEGACY_REG_WORD_(1) ") + (" PVM_LEGACY_REG_WORD_(0) " AND "            \
    PVM_LEGACY_REG_WORD_(1) " AND " PVM_LEGACY_REG_WORD_(2) ") + ("            \
    PVM_LEGACY_REG_WORD_(0) " AND " PVM_LEGACY_REG_WORD_(1) " AND "            \
    PVM_LEGACY_REG_WORD_(2) " AND " PVM_LEGACY_REG_WORD_(3) "))"

/* opcodes.roles: 'w r r', 'r', '' ... */
#define PVM_LEGACY_ROLES_SQL                                                   \
    "substr(CASE WHEN semantics GLOB 'x[[]a] = *' OR semantics GLOB 'f[[]a] = *'" \
    " OR semantics GLOB 'f[[]a].* = *' THEN 'w' ELSE 'r' END || ' r r r', 1, 2 * " \
    PVM_LEGACY_NREGS_SQL " - 1)"

/* opcodes.flags with the return flag (16) where it belongs. */
#define PVM_LEGACY_FLAGS_SQL                                                   \
    "(flags | CASE WHEN flags & 3 = 2 AND operands = '' THEN 16 ELSE 0 END)"

#endif
