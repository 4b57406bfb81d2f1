/*
 * toy_ops.h - the op bodies of a toy register machine, written in
 * pulley-macrogen's convention for outside interpreters
 * (interp/gen/OUTSIDE.md): each body between OPCODE(NAME) and END_OPCODE,
 * its register operands A, B, C, D, its immediate IMM0, ending with
 * NEXT(); R(n) (register n) and JUMP(offset) are the machine's own words.
 * toy_harness.c compiles these bodies as its ops and
 * tests/e2e/macrogen_outside.sh composes macro ops from them.
 */

OPCODE(LOADK)
    R(A) = (uint64_t)IMM0;
    NEXT();
END_OPCODE

OPCODE(ADD)
    R(A) = R(B) + R(C);
    NEXT();
END_OPCODE

OPCODE(MUL)
    R(A) = R(B) * R(C);
    NEXT();
END_OPCODE

/* R(A) = |R(B)| as a signed number: a NEXT() before the end. */
OPCODE(ABS)
    if ((int64_t)R(B) >= 0) {
        R(A) = R(B);
        NEXT();
    }
    R(A) = -R(B);
    NEXT();
END_OPCODE

OPCODE(SELECT)
    R(A) = R(B) != 0 ? R(C) : R(D);
    NEXT();
END_OPCODE

OPCODE(JNZ)
    if (R(A) != 0)
        JUMP(IMM0);
    NEXT();
END_OPCODE

OPCODE(HALT)
    return 0;
END_OPCODE
