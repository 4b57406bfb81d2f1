/*
 * regvm_ops.h - the body of every regvm opcode, written in the convention
 * pulley-macrogen --outside reads (interp/gen/README.md): one body per
 * opcode between OPCODE(name) and END_OPCODE, its register operands named
 * A, B, C in operand order, its immediates IMM0, IMM1, ending in NEXT().
 * regvm.c defines the words they use: R(r) the register r, NEXT() on to
 * the next instruction, JUMP(offset) from this instruction, and the
 * calls into the machine (mem_at, eval, print, finish).
 */

OPCODE(halt)
    FINISH(0);
END_OPCODE

OPCODE(loadi)
    R(A) = IMM0;
    NEXT();
END_OPCODE

OPCODE(mov)
    R(A) = R(B);
    NEXT();
END_OPCODE

OPCODE(add)
    R(A) = (int64_t)((uint64_t)R(B) + (uint64_t)R(C));
    NEXT();
END_OPCODE

OPCODE(sub)
    R(A) = (int64_t)((uint64_t)R(B) - (uint64_t)R(C));
    NEXT();
END_OPCODE

OPCODE(mul)
    R(A) = (int64_t)((uint64_t)R(B) * (uint64_t)R(C));
    NEXT();
END_OPCODE

OPCODE(addi)
    R(A) = (int64_t)((uint64_t)R(B) + (uint64_t)IMM0);
    NEXT();
END_OPCODE

OPCODE(lt)
    R(A) = R(B) < R(C);
    NEXT();
END_OPCODE

OPCODE(load)
    R(A) = *MEM_AT(R(B));
    NEXT();
END_OPCODE

OPCODE(store)
    *MEM_AT(R(A)) = R(B);
    NEXT();
END_OPCODE

OPCODE(sum)
    uint64_t total = 0;
    for (int64_t i = 0; i < IMM0 && B + i < 256; i++)
        total += (uint64_t)R(B + i);
    R(A) = (int64_t)total;
    NEXT();
END_OPCODE

OPCODE(jmp)
    JUMP(IMM0);
END_OPCODE

OPCODE(jnz)
    if (R(A) != 0)
        JUMP(IMM0);
    NEXT();
END_OPCODE

OPCODE(jz)
    if (R(A) == 0)
        JUMP(IMM0);
    NEXT();
END_OPCODE

OPCODE(print)
    PRINT(R(A));
    NEXT();
END_OPCODE

OPCODE(eval)
    R(A) = EVAL(R(B));
    NEXT();
END_OPCODE

OPCODE(ret)
    FINISH(R(A));
END_OPCODE
