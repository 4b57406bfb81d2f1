/*
 * vm_ops.h - the body of every opcode, one per row of opcodes.def, in any
 * order (a row without a body fails tail and goto builds).  Written once;
 * vm_exec.c compiles it under the dispatch mode chosen by the build, with
 * the vocabulary of vm_dispatch.h (A, B, C, D, X(r), F32(r), IMM_*,
 * NEXT(), JUMP(), TRAP() ...).  The table's
 * semantics column says what each op does; the bodies say how, without
 * undefined behaviour: unsigned arithmetic wraps, shift counts are masked,
 * and every memory access is checked.  Immediates naming functions,
 * imports, globals, tables and types were checked by the verifier.
 */

/* ---- control ---------------------------------------------------------- */

OPCODE(nop)
    NEXT();
END_OPCODE

OPCODE(jump)
    JUMP(pc + IMM_S32);
END_OPCODE

OPCODE(br_if)
    if ((uint32_t)X(A) != 0)
        JUMP(pc + IMM_S32);
    NEXT();
END_OPCODE

OPCODE(br_if_not)
    if ((uint32_t)X(A) == 0)
        JUMP(pc + IMM_S32);
    NEXT();
END_OPCODE

OPCODE(br_table)
    uint32_t count = IMM_U32, i = (uint32_t)X(A);
    if (i >= count)
        i = count - 1;
    JUMP(pc + (int32_t)pvm_rd32(pc + OP_LEN_ + 4 * (size_t)i));
END_OPCODE

OPCODE(call)
    vm->lr = RETURN_ADDRESS();
    JUMP(FUNC_ENTRY(IMM_U32));
END_OPCODE

OPCODE(call_indirect)
    uint64_t ref = X(A);
    if (LIKELY(ref - 1 < vm->module->nfuncs)) { /* ref 0 wraps to the top */
        vm->lr = RETURN_ADDRESS();
        JUMP(FUNC_ENTRY(ref - 1));
    }
    if (UNLIKELY(ref == PVM_REF_NULL))
        TRAP(NULL_REFERENCE);
    if (UNLIKELY((ref ^ PVM_REF_HOST_BIT) >= vm->nhost_refs))
        TRAP(BAD_CALL);
    const pvm_host_ref *host = &vm->host_refs[ref ^ PVM_REF_HOST_BIT];
    CALL_HOST(host->fn, host->ctx);
    NEXT();
END_OPCODE

OPCODE(call_host)
    const pvm_host_binding *host = &vm->hosts[IMM_U32];
    if (UNLIKELY(!host->fn))
        TRAP(HOST_ERROR);
    CALL_HOST(host->fn, host->ctx);
    NEXT();
END_OPCODE

OPCODE(ret)
    uint64_t lr = vm->lr;
    if (lr == 0)
        RETURN_TO_EMBEDDER();
    if (UNLIKELY(!pvm_is_insn_start(vm->module, lr - 1)))
        TRAP(BAD_RETURN);
    JUMP(CODE + (lr - 1));
END_OPCODE

OPCODE(trap)
    unsigned kind = IMM_U8;
    TRAP_WITH(kind != PVM_TRAP_NONE && kind < PVM_TRAP_COUNT
                  ? (pvm_trap_kind)kind : PVM_TRAP_UNREACHABLE);
END_OPCODE

/* ---- constants and moves ---------------------------------------------- */

OPCODE(xconst8)
    X(A) = (uint64_t)(int64_t)IMM_S8;
    NEXT();
END_OPCODE

OPCODE(xconst16)
    X(A) = (uint64_t)(int64_t)IMM_S16;
    NEXT();
END_OPCODE

OPCODE(xconst32)
    X(A) = (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xconst64)
    X(A) = IMM_I64;
    NEXT();
END_OPCODE

OPCODE(xmov)
    X(A) = X(B);
    NEXT();
END_OPCODE

OPCODE(fconst32)
    FBITS(A) = IMM_U32;
    NEXT();
END_OPCODE

OPCODE(fconst64)
    FBITS(A) = IMM_I64;
    NEXT();
END_OPCODE

OPCODE(fmov)
    FBITS(A) = FBITS(B);
    NEXT();
END_OPCODE

OPCODE(xselect)
    X(A) = (uint32_t)X(B) != 0 ? X(C) : X(D);
    NEXT();
END_OPCODE

OPCODE(fselect)
    FBITS(A) = (uint32_t)X(B) != 0 ? FBITS(C) : FBITS(D);
    NEXT();
END_OPCODE

/* ---- integer arithmetic ----------------------------------------------- */

OPCODE(xadd32)
    X(A) = (uint32_t)(X(B) + X(C));
    NEXT();
END_OPCODE

OPCODE(xadd64)
    X(A) = X(B) + X(C);
    NEXT();
END_OPCODE

OPCODE(xsub32)
    X(A) = (uint32_t)(X(B) - X(C));
    NEXT();
END_OPCODE

OPCODE(xsub64)
    X(A) = X(B) - X(C);
    NEXT();
END_OPCODE

OPCODE(xmul32)
    X(A) = (uint32_t)(X(B) * X(C));
    NEXT();
END_OPCODE

OPCODE(xmul64)
    X(A) = X(B) * X(C);
    NEXT();
END_OPCODE

OPCODE(xdiv32_s)
    int32_t n = (int32_t)X(B), d = (int32_t)X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    if (UNLIKELY(n == INT32_MIN && d == -1))
        TRAP(INT_OVERFLOW);
    X(A) = (uint32_t)(n / d);
    NEXT();
END_OPCODE

OPCODE(xdiv32_u)
    uint32_t d = (uint32_t)X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    X(A) = (uint32_t)X(B) / d;
    NEXT();
END_OPCODE

OPCODE(xrem32_s)
    int32_t n = (int32_t)X(B), d = (int32_t)X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    X(A) = d == -1 ? 0 : (uint32_t)(n % d);
    NEXT();
END_OPCODE

OPCODE(xrem32_u)
    uint32_t d = (uint32_t)X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    X(A) = (uint32_t)X(B) % d;
    NEXT();
END_OPCODE

OPCODE(xdiv64_s)
    int64_t n = (int64_t)X(B), d = (int64_t)X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    if (UNLIKELY(n == INT64_MIN && d == -1))
        TRAP(INT_OVERFLOW);
    X(A) = (uint64_t)(n / d);
    NEXT();
END_OPCODE

OPCODE(xdiv64_u)
    uint64_t d = X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    X(A) = X(B) / d;
    NEXT();
END_OPCODE

OPCODE(xrem64_s)
    int64_t n = (int64_t)X(B), d = (int64_t)X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    X(A) = d == -1 ? 0 : (uint64_t)(n % d);
    NEXT();
END_OPCODE

OPCODE(xrem64_u)
    uint64_t d = X(C);
    if (UNLIKELY(d == 0))
        TRAP(DIV_BY_ZERO);
    X(A) = X(B) % d;
    NEXT();
END_OPCODE

/* ---- bitwise, shifts, bit counts -------------------------------------- */

OPCODE(xband32)
    X(A) = (uint32_t)(X(B) & X(C));
    NEXT();
END_OPCODE

OPCODE(xband64)
    X(A) = X(B) & X(C);
    NEXT();
END_OPCODE

OPCODE(xbor32)
    X(A) = (uint32_t)(X(B) | X(C));
    NEXT();
END_OPCODE

OPCODE(xbor64)
    X(A) = X(B) | X(C);
    NEXT();
END_OPCODE

OPCODE(xbxor32)
    X(A) = (uint32_t)(X(B) ^ X(C));
    NEXT();
END_OPCODE

OPCODE(xbxor64)
    X(A) = X(B) ^ X(C);
    NEXT();
END_OPCODE

OPCODE(xshl32)
    X(A) = (uint32_t)((uint32_t)X(B) << (X(C) & 31));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshl64)
    X(A) = X(B) << (X(C) & 63);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr32_s)
    X(A) = (uint32_t)((int32_t)X(B) >> (X(C) & 31));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr32_u)
    X(A) = (uint32_t)X(B) >> (X(C) & 31);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr64_s)
    X(A) = (uint64_t)((int64_t)X(B) >> (X(C) & 63));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr64_u)
    X(A) = X(B) >> (X(C) & 63);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xrotl32)
    X(A) = num_rotl32((uint32_t)X(B), (unsigned)X(C));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xrotl64)
    X(A) = num_rotl64(X(B), (unsigned)X(C));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xrotr32)
    X(A) = num_rotl32((uint32_t)X(B), 0u - (unsigned)X(C));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xrotr64)
    X(A) = num_rotl64(X(B), 0u - (unsigned)X(C));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xclz32)
    uint32_t v = (uint32_t)X(B);
    X(A) = v ? (uint64_t)__builtin_clz(v) : 32;
    NEXT();
END_OPCODE

OPCODE(xclz64)
    uint64_t v = X(B);
    X(A) = v ? (uint64_t)__builtin_clzll(v) : 64;
    NEXT();
END_OPCODE

OPCODE(xctz32)
    uint32_t v = (uint32_t)X(B);
    X(A) = v ? (uint64_t)__builtin_ctz(v) : 32;
    NEXT();
END_OPCODE

OPCODE(xctz64)
    uint64_t v = X(B);
    X(A) = v ? (uint64_t)__builtin_ctzll(v) : 64;
    NEXT();
END_OPCODE

OPCODE(xpopcnt32)
    X(A) = (uint64_t)__builtin_popcount((uint32_t)X(B));
    NEXT();
END_OPCODE

OPCODE(xpopcnt64)
    X(A) = (uint64_t)__builtin_popcountll(X(B));
    NEXT();
END_OPCODE

/* ---- integer comparisons ---------------------------------------------- */

OPCODE(xeq32)
    X(A) = (uint32_t)X(B) == (uint32_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xeq64)
    X(A) = X(B) == X(C);
    NEXT();
END_OPCODE

OPCODE(xne32)
    X(A) = (uint32_t)X(B) != (uint32_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xne64)
    X(A) = X(B) != X(C);
    NEXT();
END_OPCODE

OPCODE(xlt32_s)
    X(A) = (int32_t)X(B) < (int32_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xlt32_u)
    X(A) = (uint32_t)X(B) < (uint32_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xlt64_s)
    X(A) = (int64_t)X(B) < (int64_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xlt64_u)
    X(A) = X(B) < X(C);
    NEXT();
END_OPCODE

OPCODE(xle32_s)
    X(A) = (int32_t)X(B) <= (int32_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xle32_u)
    X(A) = (uint32_t)X(B) <= (uint32_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xle64_s)
    X(A) = (int64_t)X(B) <= (int64_t)X(C);
    NEXT();
END_OPCODE

OPCODE(xle64_u)
    X(A) = X(B) <= X(C);
    NEXT();
END_OPCODE

OPCODE(xeqz32)
    X(A) = (uint32_t)X(B) == 0;
    NEXT();
END_OPCODE

OPCODE(xeqz64)
    X(A) = X(B) == 0;
    NEXT();
END_OPCODE

/* ---- sign and zero extension ------------------------------------------ */

OPCODE(xsext8_32)
    X(A) = (uint32_t)(int32_t)(int8_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xsext16_32)
    X(A) = (uint32_t)(int32_t)(int16_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xsext8_64)
    X(A) = (uint64_t)(int64_t)(int8_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xsext16_64)
    X(A) = (uint64_t)(int64_t)(int16_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xsext32_64)
    X(A) = (uint64_t)(int64_t)(int32_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xzext8)
    X(A) = (uint8_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xzext16)
    X(A) = (uint16_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xzext32)
    X(A) = (uint32_t)X(B);
    NEXT();
END_OPCODE

/* ---- memory ----------------------------------------------------------- */

OPCODE(xload8_u)
    DATA(ADDR(B), 1, p, X(A) = *p);
    NEXT();
END_OPCODE

OPCODE(xload8_s32)
    DATA(ADDR(B), 1, p, X(A) = (uint32_t)(int32_t)(int8_t)*p);
    NEXT();
END_OPCODE

OPCODE(xload8_s64)
    DATA(ADDR(B), 1, p, X(A) = (uint64_t)(int64_t)(int8_t)*p);
    NEXT();
END_OPCODE

OPCODE(xload16_u)
    DATA(ADDR(B), 2, p, X(A) = pvm_rd16(p));
    NEXT();
END_OPCODE

OPCODE(xload16_s32)
    DATA(ADDR(B), 2, p, X(A) = (uint32_t)(int32_t)(int16_t)pvm_rd16(p));
    NEXT();
END_OPCODE

OPCODE(xload16_s64)
    DATA(ADDR(B), 2, p, X(A) = (uint64_t)(int64_t)(int16_t)pvm_rd16(p));
    NEXT();
END_OPCODE

OPCODE(xload32_u)
    DATA(ADDR(B), 4, p, X(A) = pvm_rd32(p));
    NEXT();
END_OPCODE

OPCODE(xload32_s64)
    DATA(ADDR(B), 4, p, X(A) = (uint64_t)(int64_t)(int32_t)pvm_rd32(p));
    NEXT();
END_OPCODE

OPCODE(xload64)
    DATA(ADDR(B), 8, p, X(A) = pvm_rd64(p));
    NEXT();
END_OPCODE

OPCODE(xstore8)
    DATA(ADDR(A), 1, p, *p = (uint8_t)X(B));
    NEXT();
END_OPCODE

OPCODE(xstore16)
    DATA(ADDR(A), 2, p, pvm_wr16(p, (uint16_t)X(B)));
    NEXT();
END_OPCODE

OPCODE(xstore32)
    DATA(ADDR(A), 4, p, pvm_wr32(p, (uint32_t)X(B)));
    NEXT();
END_OPCODE

OPCODE(xstore64)
    DATA(ADDR(A), 8, p, pvm_wr64(p, X(B)));
    NEXT();
END_OPCODE

OPCODE(fload32)
    DATA(ADDR(B), 4, p, FBITS(A) = pvm_rd32(p));
    NEXT();
END_OPCODE

OPCODE(fload64)
    DATA(ADDR(B), 8, p, FBITS(A) = pvm_rd64(p));
    NEXT();
END_OPCODE

OPCODE(fstore32)
    DATA(ADDR(A), 4, p, pvm_wr32(p, (uint32_t)FBITS(B)));
    NEXT();
END_OPCODE

OPCODE(fstore64)
    DATA(ADDR(A), 8, p, pvm_wr64(p, FBITS(B)));
    NEXT();
END_OPCODE

/* ---- Wasm heap accesses: a u32 address and an offset in the heap ------- */

OPCODE(xload8_u_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 1);
    X(A) = *p;
    NEXT();
END_OPCODE

OPCODE(xload8_s32_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 1);
    X(A) = (uint32_t)(int32_t)(int8_t)*p;
    NEXT();
END_OPCODE

OPCODE(xload8_s64_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 1);
    X(A) = (uint64_t)(int64_t)(int8_t)*p;
    NEXT();
END_OPCODE

OPCODE(xload16_u_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 2);
    X(A) = pvm_rd16(p);
    NEXT();
END_OPCODE

OPCODE(xload16_s32_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 2);
    X(A) = (uint32_t)(int32_t)(int16_t)pvm_rd16(p);
    NEXT();
END_OPCODE

OPCODE(xload16_s64_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 2);
    X(A) = (uint64_t)(int64_t)(int16_t)pvm_rd16(p);
    NEXT();
END_OPCODE

OPCODE(xload32_u_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 4);
    X(A) = pvm_rd32(p);
    NEXT();
END_OPCODE

OPCODE(xload32_s64_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 4);
    X(A) = (uint64_t)(int64_t)(int32_t)pvm_rd32(p);
    NEXT();
END_OPCODE

OPCODE(xload64_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 8);
    X(A) = pvm_rd64(p);
    NEXT();
END_OPCODE

OPCODE(fload32_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 4);
    FBITS(A) = pvm_rd32(p);
    NEXT();
END_OPCODE

OPCODE(fload64_g32)
    uint8_t *p;
    HEAP(p, X(B), IMM_S32, 8);
    FBITS(A) = pvm_rd64(p);
    NEXT();
END_OPCODE

OPCODE(xstore8_g32)
    uint8_t *p;
    HEAP(p, X(A), IMM_S32, 1);
    *p = (uint8_t)X(B);
    NEXT();
END_OPCODE

OPCODE(xstore16_g32)
    uint8_t *p;
    HEAP(p, X(A), IMM_S32, 2);
    pvm_wr16(p, (uint16_t)X(B));
    NEXT();
END_OPCODE

OPCODE(xstore32_g32)
    uint8_t *p;
    HEAP(p, X(A), IMM_S32, 4);
    pvm_wr32(p, (uint32_t)X(B));
    NEXT();
END_OPCODE

OPCODE(xstore64_g32)
    uint8_t *p;
    HEAP(p, X(A), IMM_S32, 8);
    pvm_wr64(p, X(B));
    NEXT();
END_OPCODE

OPCODE(fstore32_g32)
    uint8_t *p;
    HEAP(p, X(A), IMM_S32, 4);
    pvm_wr32(p, (uint32_t)FBITS(B));
    NEXT();
END_OPCODE

OPCODE(fstore64_g32)
    uint8_t *p;
    HEAP(p, X(A), IMM_S32, 8);
    pvm_wr64(p, FBITS(B));
    NEXT();
END_OPCODE

OPCODE(bcheck32)
    if (UNLIKELY((uint64_t)(uint32_t)X(A) + IMM_U32 > vm->memory->size))
        TRAP(HEAP_OOB);
    NEXT();
END_OPCODE

OPCODE(heap_base)
    X(A) = vm->heap_base;
    NEXT();
END_OPCODE

/* ---- references, globals, tables -------------------------------------- */

OPCODE(func_ref)
    X(A) = PVM_REF_FUNC(IMM_U32);
    NEXT();
END_OPCODE

OPCODE(sigcheck)
    uint64_t ref = X(A);
    uint32_t sig;
    if (LIKELY(ref - 1 < vm->module->nfuncs))
        sig = vm->func_sigs[ref - 1];
    else if (ref == PVM_REF_NULL)
        TRAP(NULL_REFERENCE);
    else if ((ref ^ PVM_REF_HOST_BIT) < vm->nhost_refs)
        sig = vm->host_refs[ref ^ PVM_REF_HOST_BIT].sig;
    else
        TRAP(BAD_CALL);
    if (UNLIKELY(sig != vm->type_sigs[IMM_U32]))
        TRAP(BAD_SIGNATURE);
    NEXT();
END_OPCODE

OPCODE(xglobal_get)
    X(A) = vm->globals[IMM_U32]->value;
    NEXT();
END_OPCODE

OPCODE(xglobal_set)
    vm->globals[IMM_U32]->value = X(A);
    NEXT();
END_OPCODE

OPCODE(fglobal_get)
    FBITS(A) = vm->globals[IMM_U32]->value;
    NEXT();
END_OPCODE

OPCODE(fglobal_set)
    vm->globals[IMM_U32]->value = FBITS(A);
    NEXT();
END_OPCODE

OPCODE(table_get)
    const pvm_table *t = vm->tables[IMM_U32];
    uint32_t i = (uint32_t)X(B);
    if (UNLIKELY(i >= t->size))
        TRAP(TABLE_OOB);
    X(A) = t->elems[i];
    NEXT();
END_OPCODE

/* ---- frames and the stack: sp stays within [0, stack_size] ----------- */

OPCODE(push_frame)
    if (UNLIKELY(SP < 16))
        TRAP(STACK_OVERFLOW);
    SP -= 16;
    pvm_wr64(vm->stack + SP + 8, vm->lr);
    pvm_wr64(vm->stack + SP, vm->fp);
    vm->fp = SP;
    NEXT();
END_OPCODE

OPCODE(pop_frame)
    if (UNLIKELY(vm->fp > vm->frame_limit))
        TRAP(STACK_UNDERFLOW);
    SP = vm->fp;
    vm->fp = pvm_rd64(vm->stack + SP);
    vm->lr = pvm_rd64(vm->stack + SP + 8);
    SP += 16;
    NEXT();
END_OPCODE

OPCODE(stack_alloc)
    uint32_t n = IMM_U32;
    if (UNLIKELY(n > SP))
        TRAP(STACK_OVERFLOW);
    SP -= n;
    NEXT();
END_OPCODE

OPCODE(stack_alloc_zero)
    uint32_t n = IMM_U32;
    if (UNLIKELY(n > SP))
        TRAP(STACK_OVERFLOW);
    SP -= n;
    memset(vm->stack + SP, 0, n);
    NEXT();
END_OPCODE

OPCODE(stack_free)
    uint32_t n = IMM_U32;
    if (UNLIKELY(n > vm->stack_size - SP))
        TRAP(STACK_UNDERFLOW);
    SP += n;
    NEXT();
END_OPCODE

OPCODE(xpush)
    if (UNLIKELY(SP < 8))
        TRAP(STACK_OVERFLOW);
    SP -= 8;
    pvm_wr64(vm->stack + SP, X(A));
    NEXT();
END_OPCODE

OPCODE(xpop)
    if (UNLIKELY(SP >= vm->stack_fast_end)) /* SP > stack_size - 8: one compare */
        TRAP(STACK_UNDERFLOW);
    X(A) = pvm_rd64(vm->stack + SP);
    SP += 8;
    NEXT();
END_OPCODE

OPCODE(fpush)
    if (UNLIKELY(SP < 8))
        TRAP(STACK_OVERFLOW);
    SP -= 8;
    pvm_wr64(vm->stack + SP, FBITS(A));
    NEXT();
END_OPCODE

OPCODE(fpop)
    if (UNLIKELY(SP >= vm->stack_fast_end)) /* SP > stack_size - 8 */
        TRAP(STACK_UNDERFLOW);
    FBITS(A) = pvm_rd64(vm->stack + SP);
    SP += 8;
    NEXT();
END_OPCODE

OPCODE(xget_sp)
    X(A) = SP;
    NEXT();
END_OPCODE

OPCODE(xget_fp)
    X(A) = vm->fp;
    NEXT();
END_OPCODE

/* ---- float arithmetic ------------------------------------------------- */

OPCODE(fadd32)
    SET_F32(A, F32(B) + F32(C));
    NEXT();
END_OPCODE

OPCODE(fadd64)
    SET_F64(A, F64(B) + F64(C));
    NEXT();
END_OPCODE

OPCODE(fsub32)
    SET_F32(A, F32(B) - F32(C));
    NEXT();
END_OPCODE

OPCODE(fsub64)
    SET_F64(A, F64(B) - F64(C));
    NEXT();
END_OPCODE

OPCODE(fmul32)
    SET_F32(A, F32(B) * F32(C));
    NEXT();
END_OPCODE

OPCODE(fmul64)
    SET_F64(A, F64(B) * F64(C));
    NEXT();
END_OPCODE

OPCODE(fdiv32)
    SET_F32(A, F32(B) / F32(C));
    NEXT();
END_OPCODE

OPCODE(fdiv64)
    SET_F64(A, F64(B) / F64(C));
    NEXT();
END_OPCODE

OPCODE(fmin32)
    SET_F32(A, num_fmin32(F32(B), F32(C)));
    NEXT();
END_OPCODE

OPCODE(fmin64)
    SET_F64(A, num_fmin64(F64(B), F64(C)));
    NEXT();
END_OPCODE

OPCODE(fmax32)
    SET_F32(A, num_fmax32(F32(B), F32(C)));
    NEXT();
END_OPCODE

OPCODE(fmax64)
    SET_F64(A, num_fmax64(F64(B), F64(C)));
    NEXT();
END_OPCODE

OPCODE(fabs32)
    FBITS(A) = (uint32_t)FBITS(B) & ~F32_SIGN;
    NEXT();
END_OPCODE

OPCODE(fabs64)
    FBITS(A) = FBITS(B) & ~F64_SIGN;
    NEXT();
END_OPCODE

OPCODE(fneg32)
    FBITS(A) = (uint32_t)FBITS(B) ^ F32_SIGN;
    NEXT();
END_OPCODE

OPCODE(fneg64)
    FBITS(A) = FBITS(B) ^ F64_SIGN;
    NEXT();
END_OPCODE

/* ---- float comparisons: false when unordered, except fne -------------- */

OPCODE(feq32)
    X(A) = F32(B) == F32(C);
    NEXT();
END_OPCODE

OPCODE(feq64)
    X(A) = F64(B) == F64(C);
    NEXT();
END_OPCODE

OPCODE(fne32)
    X(A) = F32(B) != F32(C);
    NEXT();
END_OPCODE

OPCODE(fne64)
    X(A) = F64(B) != F64(C);
    NEXT();
END_OPCODE

OPCODE(flt32)
    X(A) = F32(B) < F32(C);
    NEXT();
END_OPCODE

OPCODE(flt64)
    X(A) = F64(B) < F64(C);
    NEXT();
END_OPCODE

OPCODE(fle32)
    X(A) = F32(B) <= F32(C);
    NEXT();
END_OPCODE

OPCODE(fle64)
    X(A) = F64(B) <= F64(C);
    NEXT();
END_OPCODE

/* ---- integer operations with a constant operand ----------------------- */

OPCODE(xadd32_imm)
    X(A) = (uint32_t)(X(B) + (uint64_t)(int64_t)IMM_S32);
    NEXT();
END_OPCODE

OPCODE(xadd64_imm)
    X(A) = X(B) + (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xmul32_imm)
    X(A) = (uint32_t)(X(B) * (uint64_t)(int64_t)IMM_S32);
    NEXT();
END_OPCODE

OPCODE(xmul64_imm)
    X(A) = X(B) * (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xband32_imm)
    X(A) = (uint32_t)(X(B) & (uint64_t)(int64_t)IMM_S32);
    NEXT();
END_OPCODE

OPCODE(xband64_imm)
    X(A) = X(B) & (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xbor32_imm)
    X(A) = (uint32_t)(X(B) | (uint64_t)(int64_t)IMM_S32);
    NEXT();
END_OPCODE

OPCODE(xbor64_imm)
    X(A) = X(B) | (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xbxor32_imm)
    X(A) = (uint32_t)(X(B) ^ (uint64_t)(int64_t)IMM_S32);
    NEXT();
END_OPCODE

OPCODE(xbxor64_imm)
    X(A) = X(B) ^ (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xshl32_imm)
    X(A) = (uint32_t)((uint32_t)X(B) << (IMM_S32 & 31));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshl64_imm)
    X(A) = X(B) << (IMM_S32 & 63);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr32_s_imm)
    X(A) = (uint32_t)((int32_t)X(B) >> (IMM_S32 & 31));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr32_u_imm)
    X(A) = (uint32_t)X(B) >> (IMM_S32 & 31);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr64_s_imm)
    X(A) = (uint64_t)((int64_t)X(B) >> (IMM_S32 & 63));
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xshr64_u_imm)
    X(A) = X(B) >> (IMM_S32 & 63);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xrotl32_imm)
    X(A) = num_rotl32((uint32_t)X(B), (unsigned)IMM_S32);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xrotl64_imm)
    X(A) = num_rotl64(X(B), (unsigned)IMM_S32);
    AFTER_SHIFT();
    NEXT();
END_OPCODE

OPCODE(xeq32_imm)
    X(A) = (uint32_t)X(B) == (uint32_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xeq64_imm)
    X(A) = X(B) == (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xne32_imm)
    X(A) = (uint32_t)X(B) != (uint32_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xne64_imm)
    X(A) = X(B) != (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xlt32_s_imm)
    X(A) = (int32_t)X(B) < IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xlt32_u_imm)
    X(A) = (uint32_t)X(B) < (uint32_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xlt64_s_imm)
    X(A) = (int64_t)X(B) < (int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xlt64_u_imm)
    X(A) = X(B) < (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xgt32_s_imm)
    X(A) = (int32_t)X(B) > IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xgt32_u_imm)
    X(A) = (uint32_t)X(B) > (uint32_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xgt64_s_imm)
    X(A) = (int64_t)X(B) > (int64_t)IMM_S32;
    NEXT();
END_OPCODE

OPCODE(xgt64_u_imm)
    X(A) = X(B) > (uint64_t)(int64_t)IMM_S32;
    NEXT();
END_OPCODE

/* ==== extended opcodes ================================================= */

OPCODE(heap_size)
    X(A) = vm->memory->size;
    NEXT();
END_OPCODE

OPCODE(heap_grow)
    uint64_t old_size = pvm_memory_grow(vm->memory, X(B));
    RELOAD_HEAP();
    X(A) = old_size;
    NEXT();
END_OPCODE

/* ---- tables ----------------------------------------------------------- */

OPCODE(table_set)
    pvm_table *t = vm->tables[IMM_U32];
    uint32_t i = (uint32_t)X(A);
    if (UNLIKELY(i >= t->size))
        TRAP(TABLE_OOB);
    t->elems[i] = X(B);
    NEXT();
END_OPCODE

OPCODE(table_size)
    X(A) = vm->tables[IMM_U32]->size;
    NEXT();
END_OPCODE

OPCODE(table_grow)
    X(A) = pvm_table_grow(vm->tables[IMM_U32], (uint32_t)X(C), X(B));
    NEXT();
END_OPCODE

/* ---- float rounding, roots and signs ---------------------------------- */

OPCODE(fsqrt32)
    SET_F32(A, sqrtf(F32(B)));
    NEXT();
END_OPCODE

OPCODE(fsqrt64)
    SET_F64(A, sqrt(F64(B)));
    NEXT();
END_OPCODE

OPCODE(fceil32)
    SET_F32(A, pvm_quiet_f32(ceilf(F32(B))));
    NEXT();
END_OPCODE

OPCODE(fceil64)
    SET_F64(A, pvm_quiet_f64(ceil(F64(B))));
    NEXT();
END_OPCODE

OPCODE(ffloor32)
    SET_F32(A, pvm_quiet_f32(floorf(F32(B))));
    NEXT();
END_OPCODE

OPCODE(ffloor64)
    SET_F64(A, pvm_quiet_f64(floor(F64(B))));
    NEXT();
END_OPCODE

OPCODE(ftrunc32)
    SET_F32(A, pvm_quiet_f32(truncf(F32(B))));
    NEXT();
END_OPCODE

OPCODE(ftrunc64)
    SET_F64(A, pvm_quiet_f64(trunc(F64(B))));
    NEXT();
END_OPCODE

OPCODE(fnearest32)
    SET_F32(A, nearbyintf(F32(B)));
    NEXT();
END_OPCODE

OPCODE(fnearest64)
    SET_F64(A, nearbyint(F64(B)));
    NEXT();
END_OPCODE

OPCODE(fcopysign32)
    FBITS(A) = ((uint32_t)FBITS(B) & ~F32_SIGN) | ((uint32_t)FBITS(C) & F32_SIGN);
    NEXT();
END_OPCODE

OPCODE(fcopysign64)
    FBITS(A) = (FBITS(B) & ~F64_SIGN) | (FBITS(C) & F64_SIGN);
    NEXT();
END_OPCODE

/* ---- float to integer, trapping: NaN is BAD_CONVERSION, out of range is
 * INT_OVERFLOW.  The bounds are exclusive and exact as doubles. ---------- */

OPCODE(x32_from_f32_s)
    double v = F32(B);
    CHECK_TRUNC(v, -2147483649.0, 2147483648.0);
    X(A) = (uint32_t)(int32_t)v;
    NEXT();
END_OPCODE

OPCODE(x32_from_f32_u)
    double v = F32(B);
    CHECK_TRUNC(v, -1.0, 4294967296.0);
    X(A) = (uint32_t)v;
    NEXT();
END_OPCODE

OPCODE(x32_from_f64_s)
    double v = F64(B);
    CHECK_TRUNC(v, -2147483649.0, 2147483648.0);
    X(A) = (uint32_t)(int32_t)v;
    NEXT();
END_OPCODE

OPCODE(x32_from_f64_u)
    double v = F64(B);
    CHECK_TRUNC(v, -1.0, 4294967296.0);
    X(A) = (uint32_t)v;
    NEXT();
END_OPCODE

OPCODE(x64_from_f32_s)
    double v = F32(B);
    CHECK_TRUNC(v, S64_LOWER_BOUND, 9223372036854775808.0);
    X(A) = (uint64_t)(int64_t)v;
    NEXT();
END_OPCODE

OPCODE(x64_from_f32_u)
    double v = F32(B);
    CHECK_TRUNC(v, -1.0, 18446744073709551616.0);
    X(A) = (uint64_t)v;
    NEXT();
END_OPCODE

OPCODE(x64_from_f64_s)
    double v = F64(B);
    CHECK_TRUNC(v, S64_LOWER_BOUND, 9223372036854775808.0);
    X(A) = (uint64_t)(int64_t)v;
    NEXT();
END_OPCODE

OPCODE(x64_from_f64_u)
    double v = F64(B);
    CHECK_TRUNC(v, -1.0, 18446744073709551616.0);
    X(A) = (uint64_t)v;
    NEXT();
END_OPCODE

/* ---- float to integer, saturating: NaN is 0 --------------------------- */

OPCODE(x32_from_f32_s_sat)
    X(A) = (uint32_t)num_sat_s32(F32(B));
    NEXT();
END_OPCODE

OPCODE(x32_from_f32_u_sat)
    X(A) = num_sat_u32(F32(B));
    NEXT();
END_OPCODE

OPCODE(x32_from_f64_s_sat)
    X(A) = (uint32_t)num_sat_s32(F64(B));
    NEXT();
END_OPCODE

OPCODE(x32_from_f64_u_sat)
    X(A) = num_sat_u32(F64(B));
    NEXT();
END_OPCODE

OPCODE(x64_from_f32_s_sat)
    X(A) = (uint64_t)num_sat_s64(F32(B));
    NEXT();
END_OPCODE

OPCODE(x64_from_f32_u_sat)
    X(A) = num_sat_u64(F32(B));
    NEXT();
END_OPCODE

OPCODE(x64_from_f64_s_sat)
    X(A) = (uint64_t)num_sat_s64(F64(B));
    NEXT();
END_OPCODE

OPCODE(x64_from_f64_u_sat)
    X(A) = num_sat_u64(F64(B));
    NEXT();
END_OPCODE

/* ---- integer to float, float to float: rounded to nearest ------------- */

OPCODE(f32_from_x32_s)
    SET_F32(A, (float)(int32_t)X(B));
    NEXT();
END_OPCODE

OPCODE(f32_from_x32_u)
    SET_F32(A, (float)(uint32_t)X(B));
    NEXT();
END_OPCODE

OPCODE(f32_from_x64_s)
    SET_F32(A, (float)(int64_t)X(B));
    NEXT();
END_OPCODE

OPCODE(f32_from_x64_u)
    SET_F32(A, (float)X(B));
    NEXT();
END_OPCODE

OPCODE(f64_from_x32_s)
    SET_F64(A, (double)(int32_t)X(B));
    NEXT();
END_OPCODE

OPCODE(f64_from_x32_u)
    SET_F64(A, (double)(uint32_t)X(B));
    NEXT();
END_OPCODE

OPCODE(f64_from_x64_s)
    SET_F64(A, (double)(int64_t)X(B));
    NEXT();
END_OPCODE

OPCODE(f64_from_x64_u)
    SET_F64(A, (double)X(B));
    NEXT();
END_OPCODE

OPCODE(f32_from_f64)
    SET_F32(A, (float)F64(B));
    NEXT();
END_OPCODE

OPCODE(f64_from_f32)
    SET_F64(A, (double)F32(B));
    NEXT();
END_OPCODE

/* ---- reinterpretation of bits ----------------------------------------- */

OPCODE(xbits_from_f32)
    X(A) = (uint32_t)FBITS(B);
    NEXT();
END_OPCODE

OPCODE(xbits_from_f64)
    X(A) = FBITS(B);
    NEXT();
END_OPCODE

OPCODE(f32_from_xbits)
    FBITS(A) = (uint32_t)X(B);
    NEXT();
END_OPCODE

OPCODE(f64_from_xbits)
    FBITS(A) = X(B);
    NEXT();
END_OPCODE

/* ==== macro ops: bodies composed from the ones above by interp/gen ===== */
#ifdef PULLEY_MACRO_BODIES
#undef HANDLER_SECTION_
#define HANDLER_SECTION_ __attribute__((section(".text.pulley_macro_ops")))
#include PULLEY_MACRO_BODIES
#endif
