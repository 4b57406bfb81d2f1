/*
 * test_lazy_translation.c - functions translated on their first call
 * (interp/lazy.h): a lazily translated module, once every function is
 * translated, holds each function's code byte for byte as the whole
 * translation (fused as pvm_fuse_module fuses it); an instance translates
 * only what it calls, and tells the observer of each function once; traps
 * are reported at the same function and offset as with the whole
 * translation; the function at every code offset is found; and a
 * translator that fails, or hands over code that does not verify, leaves
 * the function a stub and the call a host error, with the reason kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fuse.h"
#include "insn.h"
#include "lazy.h"
#include "test_wasm_instance_util.h"
#include "translate.h"
#include "verify.h"
#include "vm.h"

static const char *const modules[] = {"features", "traps", "quality", "standalone", "link_twice"};

/* Do instructions a (of module ma) and b (of mb) do the same?  The same
 * operation, registers and immediates, where host imports are the same
 * by name: a lazy translation declares every bulk operation's import up
 * front, so their numbers may differ. */
static void same_insn(const pvm_module *ma, const pvm_insn *a, const pvm_module *mb,
                      const pvm_insn *b)
{
    assert_int_equal(a->op, b->op);
    assert_int_equal(a->length, b->length);
    const pvm_format_info *fmt = pvm_insn_format(a);
    assert_memory_equal(a->reg, b->reg, fmt->nregs);
    for (unsigned k = 0; k < fmt->nimms; k++) {
        if (fmt->imm[k] == PVM_IMM_HOST)
            assert_string_equal(ma->imports[a->imms[k]], mb->imports[b->imms[k]]);
        else
            assert_int_equal(a->imms[k], b->imms[k]);
        for (uint32_t e = 0; fmt->imm[k] == PVM_IMM_TABLE && e < (uint32_t)a->imms[k]; e++)
            assert_int_equal(pvm_insn_table_entry(a, e), pvm_insn_table_entry(b, e));
    }
}

static void same_function(const pvm_module *ma, const pvm_function *fa, const pvm_module *mb,
                          const pvm_function *fb)
{
    assert_string_equal(fa->name, fb->name);
    assert_int_equal(fa->size, fb->size);
    pvm_insn a, b;
    for (uint32_t at = 0; at < fa->size; at += a.length) {
        assert_null(pvm_decode(ma->code + fa->offset, fa->size, at, &a));
        assert_null(pvm_decode(mb->code + fb->offset, fb->size, at, &b));
        same_insn(ma, &a, mb, &b);
    }
}

static void same_code_as_the_whole_translation(bool fuse)
{
    for (size_t k = 0; k < sizeof modules / sizeof *modules; k++) {
        pvm_wasm_module *wm = wt_decode(modules[k]);
        pvm_error err;
        pvm_module *whole = pvm_wasm_translate(wm, NULL, &err);
        assert_non_null(whole);
        if (fuse)
            assert_int_equal(pvm_fuse_module(whole, NULL, &err), 0);
        pvm_module *lazy = pvm_wasm_translate_lazy(wm, NULL, fuse, &err);
        if (!lazy)
            fail_msg("%s: %s", modules[k], err.msg);
        assert_int_equal(lazy->nfuncs, whole->nfuncs);
        uint32_t defined = wm->nfuncs - wm->nfunc_imports;
        assert_int_equal(pvm_lazy_stubs(lazy), defined);
        assert_int_equal(pvm_lazy_materialize_all(lazy, &err), 0);
        assert_int_equal(pvm_lazy_stubs(lazy), 0);
        assert_int_equal(pvm_lazy_translated(lazy), defined);
        for (uint32_t i = 0; i < whole->nfuncs; i++) {
            same_function(whole, &whole->funcs[i], lazy, &lazy->funcs[i]);
            assert_false(pvm_lazy_pending(lazy, i));
        }
        pvm_module_free(lazy);
        pvm_module_free(whole);
        pvm_wasm_module_free(wm);
    }
}

static void test_every_function_translated_lazily_is_the_whole_translations(void **state)
{
    (void)state;
    same_code_as_the_whole_translation(false);
}

static void test_and_fused_as_the_whole_module_is(void **state)
{
    (void)state;
    same_code_as_the_whole_translation(true);
}

/* The observer's record: how often each function was announced. */
typedef struct seen {
    unsigned times[64];
    unsigned calls;
} seen;

static void observe(void *ctx, const pvm_module *m, uint32_t func)
{
    seen *s = ctx;
    assert_true(func < 64);
    assert_false(pvm_lazy_pending(m, func)); /* announced once in place */
    s->times[func]++;
    s->calls++;
}

/* The function index of export `name`, or -1. */
static int exported(const pvm_wasm_instance *inst, const char *name)
{
    const pvm_wasm_module *wm = pvm_wasm_instance_module(inst);
    for (uint32_t i = 0; i < wm->nexports; i++)
        if (wm->exports[i].kind == PVM_WASM_EXTERN_FUNC && wm->exports[i].name.len == strlen(name) &&
            memcmp(wm->exports[i].name.str, name, strlen(name)) == 0)
            return (int)wm->exports[i].index;
    return -1;
}

static void test_an_instance_translates_only_what_it_calls(void **state)
{
    (void)state;
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "traps");
    pvm_vm *vm = pvm_wasm_instance_vm(inst);
    const pvm_module *m = vm->module;
    assert_non_null(m->lazy);
    uint32_t stubs = pvm_lazy_stubs(m);
    assert_int_equal(stubs, m->nfuncs); /* traps.wat imports nothing */
    seen record = {0};
    pvm_lazy_observe(m, observe, &record);

    /* call_indirect(0) calls $ok through the table: two functions. */
    assert_int_equal(wt_value(inst, "call_indirect", WT_ARGS(wt_i32(0))), 1);
    int f = exported(inst, "call_indirect");
    int ok = pvm_module_find_function(m, "ok");
    assert_true(f >= 0 && ok >= 0);
    assert_false(pvm_lazy_pending(m, (uint32_t)f));
    assert_false(pvm_lazy_pending(m, (uint32_t)ok));
    assert_int_equal(pvm_lazy_translated(m), 2);
    assert_int_equal(pvm_lazy_stubs(m), stubs - 2);
    assert_int_equal(record.calls, 2);
    assert_int_equal(record.times[f], 1);
    assert_int_equal(record.times[ok], 1);

    /* Calling again translates nothing more. */
    assert_int_equal(wt_value(inst, "call_indirect", WT_ARGS(wt_i32(0))), 1);
    assert_int_equal(record.calls, 2);

    /* Each offset of the code belongs to the function holding it. */
    for (uint32_t i = 0; i < m->nfuncs; i++)
        for (uint32_t at = 0; at < m->funcs[i].size; at++)
            assert_int_equal(pvm_vm_func_at(vm, m->funcs[i].offset + at), i);
    pvm_wasm_store_free(s);
}

/* The trap of calling export `name` with args, and where it was raised. */
typedef struct trap_place {
    int kind;
    char func[64];
    uint32_t offset;
} trap_place;

static trap_place trap_of(bool lazy, const char *name, const pvm_wasm_value *args, uint32_t n)
{
    pvm_wasm_store *s = pvm_wasm_store_new(64 * 1024);
    pvm_wasm_store_set_lazy(s, lazy);
    pvm_wasm_instance *inst = wt_instance(s, "traps");
    assert_true(pvm_wasm_instance_vm(inst)->module->lazy ? lazy : !lazy);
    trap_place t = {.kind = wt_call(inst, name, args, n, NULL)};
    snprintf(t.func, sizeof t.func, "%s", pvm_wasm_trap_function(inst));
    t.offset = pvm_wasm_trap_offset(inst);
    pvm_wasm_store_free(s);
    return t;
}

static void test_traps_are_reported_where_the_whole_translation_reports_them(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint32_t arg; /* i32, or the bits of an f32 */
        bool has_arg;
    } calls[] = {
        {"unreachable", 0, false}, {"div_by_zero", 0, true},  {"overflow", 0, false},
        {"conversion", 0x7fc00000, true}, {"load", 65535, true}, {"store_far", 1, true},
        {"call_indirect", 1, true}, {"deep", 0, true},       {"bad_type", 0, false},
    };
    for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
        pvm_wasm_value arg = {calls[k].name[0] == 'c' && calls[k].name[1] == 'o' ? PVM_WASM_F32
                                                                                 : PVM_WASM_I32,
                              calls[k].arg};
        uint32_t n = calls[k].has_arg ? 1 : 0;
        trap_place whole = trap_of(false, calls[k].name, &arg, n);
        trap_place lazy = trap_of(true, calls[k].name, &arg, n);
        assert_int_not_equal(whole.kind, PVM_TRAP_NONE);
        assert_int_equal(lazy.kind, whole.kind);
        assert_string_equal(lazy.func, whole.func);
        assert_int_equal(lazy.offset, whole.offset);
    }
}

/* ---- the attachment, with a translator of its own ------------------------ */

/* Function 0, `f`, is a stub that the translator replaces by what `give`
 * says: good code, a failure, or code that branches outside itself. */
typedef enum { GIVE_GOOD, GIVE_NOTHING, GIVE_BAD_BRANCH } give;

static int translate(void *ctx, uint32_t func, pvm_buf *out, pvm_error *err)
{
    give g = *(give *)ctx;
    assert_int_equal(func, 0);
    out->len = 0;
    if (g == GIVE_NOTHING)
        return pvm_errorf(err, "the translator failed on purpose");
    pvm_insn insns[] = {
        {.op = PVM_OP_xconst32, .reg = {0}, .imm = 42},
        {.op = g == GIVE_BAD_BRANCH ? PVM_OP_jump : PVM_OP_ret, .imm = 1000},
    };
    for (size_t i = 0; i < 2; i++)
        pvm_encode(out, &insns[i]);
    return 0;
}

static pvm_module *one_stub(give *g, bool fuse)
{
    pvm_error err;
    pvm_module *m = pvm_module_new();
    pvm_buf stub = {0};
    pvm_encode(&stub, &(pvm_insn){.op = PVM_OP_trap, .imm = PVM_TRAP_UNREACHABLE});
    assert_int_equal(pvm_module_add_function(m, "f", "", "i", stub.data, stub.len, &err), 0);
    pvm_buf_free(&stub);
    assert_int_equal(pvm_verify_module(m, &err), 0);
    bool pending[] = {true};
    assert_int_equal(pvm_lazy_attach(m, pending, translate, g, NULL, fuse, &err), 0);
    return m;
}

/* Call f from the embedder: its stub traps, pvm_vm_call translates it. */
static pvm_trap_kind call_f(const pvm_module *m, uint64_t *x0)
{
    pvm_error err;
    pvm_vm *vm = pvm_vm_new(m, &(pvm_vm_config){0}, &err);
    assert_non_null(vm);
    pvm_trap_kind kind = pvm_vm_call(vm, 0);
    *x0 = vm->x[0];
    pvm_vm_free(vm);
    return kind;
}

static void test_a_call_goes_on_at_the_translated_code(void **state)
{
    (void)state;
    give g = GIVE_GOOD;
    for (int fuse = 0; fuse <= 1; fuse++) {
        pvm_module *m = one_stub(&g, fuse);
        uint64_t x0 = 0;
        assert_int_equal(call_f(m, &x0), PVM_TRAP_NONE);
        assert_int_equal(x0, 42);
        assert_false(pvm_lazy_pending(m, 0));
        assert_string_equal(pvm_lazy_error(m), "");
        pvm_module_free(m);
    }
}

static void test_a_failed_translation_is_a_host_error_and_leaves_the_stub(void **state)
{
    (void)state;
    /* With fusion (in a macro build) the fusion pass finds the bad branch
     * before the verifier would. */
    for (int fuse = 0; fuse <= 1; fuse++)
        for (give g = GIVE_NOTHING; g <= GIVE_BAD_BRANCH; g++) {
            pvm_module *m = one_stub(&g, fuse);
            uint64_t x0 = 0;
            size_t code_size = m->code_size;
            assert_int_equal(call_f(m, &x0), PVM_TRAP_HOST_ERROR);
            assert_true(pvm_lazy_pending(m, 0));
            assert_int_equal(m->code_size, code_size);
            const char *why = pvm_lazy_error(m);
            if (g == GIVE_NOTHING)
                assert_non_null(strstr(why, "on purpose"));
            else
                assert_true(strstr(why, "outside the function") ||
                            strstr(why, "branches into an instruction"));
            /* Nothing of the refused code is left past the end. */
            for (size_t i = 0; i < PVM_CODE_PADDING; i++)
                assert_int_equal(m->code[code_size + i], 0);
            pvm_module_free(m);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_function_translated_lazily_is_the_whole_translations),
        cmocka_unit_test(test_and_fused_as_the_whole_module_is),
        cmocka_unit_test(test_an_instance_translates_only_what_it_calls),
        cmocka_unit_test(test_traps_are_reported_where_the_whole_translation_reports_them),
        cmocka_unit_test(test_a_call_goes_on_at_the_translated_code),
        cmocka_unit_test(test_a_failed_translation_is_a_host_error_and_leaves_the_stub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
