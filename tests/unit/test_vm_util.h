/*
 * test_vm_util.h - what the interpreter's unit tests share: writing a test
 * function as an array of instructions, adding it to a module, verifying
 * the module and creating a VM for it.
 *
 * Test programs are arrays of tvm_insn written with INS / INSI / INST.
 * Branch offsets and jump-table entries count INSTRUCTIONS, not bytes:
 * INSI(jump, 2) skips the next instruction; tvm_add converts them.
 *
 *   static const tvm_insn add[] = {
 *       INSI(xconst8, 5, 0),        xconst8 x0, 5
 *       INS(xadd64, 0, 0, 0),       xadd64 x0, x0, x0
 *       INS(ret),
 *   };
 */
#ifndef PULLEY_TEST_VM_UTIL_H
#define PULLEY_TEST_VM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "module.h"
#include "verify.h"
#include "vm.h"

#define TVM_STACK 4096u   /* so the heap starts at data-space address 4096 */
#define TVM_HEAP 65536u   /* initial heap; it may grow to twice that */

typedef struct tvm_insn {
    uint16_t op;
    uint8_t reg[4];
    int64_t imm;             /* branches: in instructions */
    const int32_t *targets;  /* br_table: imm entries, in instructions */
} tvm_insn;

/* An instruction with registers only, with an immediate, a jump table. */
#define INS(op_, ...) {.op = PVM_OP_##op_, .reg = {__VA_ARGS__}}
#define INSI(op_, imm_, ...)                                                   \
    {.op = PVM_OP_##op_, .imm = (int64_t)(imm_), .reg = {__VA_ARGS__}}
#define INST(reg_, ...)                                                        \
    {.op = PVM_OP_br_table, .reg = {reg_},                                     \
     .imm = sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t),                \
     .targets = (const int32_t[]){__VA_ARGS__}}
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static inline uint32_t tvm_insn_length(const tvm_insn *in)
{
    uint32_t len = pvm_ops[in->op].length;
    return in->op == PVM_OP_br_table ? len + 4 * (uint32_t)in->imm : len;
}

/* Byte offset of instruction i of code (i == n: the end of the code). */
static inline uint32_t tvm_offset(const tvm_insn *code, size_t i)
{
    uint32_t off = 0;
    for (size_t k = 0; k < i; k++)
        off += tvm_insn_length(&code[k]);
    return off;
}

/* Byte distance from instruction i to instruction i + delta. */
static inline int64_t tvm_rel(const tvm_insn *code, size_t i, int64_t delta)
{
    return (int64_t)tvm_offset(code, (size_t)((int64_t)i + delta)) -
           (int64_t)tvm_offset(code, i);
}

/* Encode code[0..n) and add it to m as function `name` of the given
 * signature (type letters); returns its index. */
static inline uint32_t tvm_add_typed(pvm_module *m, const char *name, const char *params,
                                     const char *results, const tvm_insn *code, size_t n)
{
    pvm_buf buf = {0};
    for (size_t i = 0; i < n; i++) {
        const tvm_insn *in = &code[i];
        pvm_insn insn = {.op = in->op, .imm = in->imm};
        memcpy(insn.reg, in->reg, sizeof insn.reg);
        uint8_t table[4 * 16];
        if (pvm_formats[pvm_ops[in->op].format].imm[0] == PVM_IMM_REL32)
            insn.imm = tvm_rel(code, i, in->imm);
        if (in->op == PVM_OP_br_table) {
            assert_true(in->imm <= 16);
            for (int64_t k = 0; k < in->imm; k++)
                pvm_wr32(table + 4 * k, (uint32_t)tvm_rel(code, i, in->targets[k]));
            insn.table = table;
        }
        if (pvm_encode(&buf, &insn) == 0)
            fail_msg("function %s, instruction %zu (%s): does not encode", name, i,
                     pvm_ops[in->op].name);
    }
    pvm_error err;
    int index = pvm_module_add_function(m, name, params, results, buf.data, buf.len, &err);
    pvm_buf_free(&buf);
    if (index < 0)
        fail_msg("%s", err.msg);
    return (uint32_t)index;
}

/* The same for a function taking and returning nothing. */
static inline uint32_t tvm_add(pvm_module *m, const char *name, const tvm_insn *code,
                               size_t n)
{
    return tvm_add_typed(m, name, "", "", code, n);
}

/* A new module with the test heap limits. */
static inline pvm_module *tvm_module(void)
{
    pvm_module *m = pvm_module_new();
    assert_non_null(m);
    m->heap_min = TVM_HEAP;
    m->heap_max = 2 * TVM_HEAP;
    return m;
}

/* Verify m (the test fails if it is rejected) and create a VM for it. */
static inline pvm_vm *tvm_vm(pvm_module *m)
{
    pvm_error err;
    if (pvm_verify_module(m, &err) != 0)
        fail_msg("verifier: %s", err.msg);
    pvm_vm *vm = pvm_vm_new(m, &(pvm_vm_config){.stack_size = TVM_STACK}, &err);
    if (!vm)
        fail_msg("pvm_vm_new: %s", err.msg);
    return vm;
}

/* A Wasm heap access (the _g32 family): its base register holds a 32-bit
 * heap offset, where the other loads and stores take a data-space address. */
static inline bool is_wasm_heap_access(unsigned op)
{
    const char *name = pvm_ops[op].name;
    size_t n = name ? strlen(name) : 0;
    return n > 4 && strcmp(name + n - 4, "_g32") == 0;
}

#endif
