/*
 * test_wasm_decode.c - the Wasm binary format: what a module decodes to, and
 * each way a binary can be malformed (preamble, sections, LEB128, names,
 * counts, locals, instruction encodings), rejected with the byte offset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wasm_builder.h"
#include "wasm_insn.h"
#include "wasm_module.h"
#include "wasm_reader.h"
#include "wasm_sample.h"

#define M "\0asm\1\0\0\0"
#define REJECT(lit, offset, what) wb_expect_error((const uint8_t *)(lit), sizeof(lit) - 1, offset, what)
#define ACCEPT(lit) pvm_wasm_module_free(wb_expect_ok((const uint8_t *)(lit), sizeof(lit) - 1))

static void the_empty_module_is_valid(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok((const uint8_t *)M, 8);
    assert_int_equal(m->ntypes + m->nimports + m->nfuncs + m->ntables + m->nmemories +
                         m->nglobals + m->nexports + m->nelems + m->ndatas + m->ncustoms, 0);
    assert_int_equal(m->start, PVM_WASM_NONE);
    pvm_wasm_module_free(m);
}

static void the_preamble_is_magic_then_version_1(void **state)
{
    (void)state;
    REJECT("", 0, "unexpected end");
    REJECT("\0as", 3, "unexpected end");
    REJECT("asm\0\1\0\0\0", 0, "magic header not detected");
    REJECT("\0asm\1\0", 6, "unexpected end");
    REJECT("\0asm\2\0\0\0", 4, "unknown binary version");
    REJECT("\0asm\0\0\0\1", 4, "unknown binary version");
}

static void sections_have_known_ids_exact_sizes_and_an_order(void **state)
{
    (void)state;
    REJECT(M "\x0d\x00", 8, "malformed section id 13");
    REJECT(M "\x01\x05\x00", 8, "length out of bounds");
    REJECT(M "\x01\x02\x00\x00", 11, "section size mismatch");
    REJECT(M "\x01\x03\x01\x60\x00", 13, "unexpected end of section or function");
    REJECT(M "\x03\x01\x00" "\x01\x01\x00", 11, "unexpected content after last section");
    REJECT(M "\x01\x01\x00" "\x01\x01\x00", 11, "unexpected content after last section");
    ACCEPT(M "\x0c\x01\x00" "\x0a\x01\x00"); /* data count goes before code */
    REJECT(M "\x0a\x01\x00" "\x0c\x01\x00", 11, "unexpected content after last section");
}

static void leb128_length_and_unused_bits_follow_the_spec(void **state)
{
    (void)state;
    ACCEPT(M "\x01\x05\x80\x80\x80\x80\x00"); /* 0 in five bytes is fine */
    REJECT(M "\x01\x06\x80\x80\x80\x80\x80\x00", 10, "integer representation too long");
    REJECT(M "\x01\x05\x80\x80\x80\x80\x10", 10, "integer too large");

    wb w;
    /* i32.const -2^31 in five bytes; then with an unused bit not a sign copy */
    wb_header(&w);
    wb_section(&w, 6, T("\x01\x7f\x00\x41\x80\x80\x80\x80\x78\x0b"));
    pvm_wasm_module *m = wb_expect_ok(w.b, w.n);
    assert_int_equal(m->globals[0].init.kind, PVM_WASM_CONST_NUM);
    assert_int_equal(m->globals[0].init.bits, 0x80000000u);
    pvm_wasm_module_free(m);
    wb_header(&w);
    wb_section(&w, 6, T("\x01\x7f\x00\x41\x80\x80\x80\x80\x70\x0b"));
    EXPECT_ERROR(&w, 14, "integer too large");

    /* i64.const -1 and INT64_MIN in ten bytes; a bad tenth byte */
    wb_header(&w);
    wb_section(&w, 6, T("\x02\x7e\x00\x42\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x0b"
                        "\x7e\x00\x42\x80\x80\x80\x80\x80\x80\x80\x80\x80\x7f\x0b"));
    m = wb_expect_ok(w.b, w.n);
    assert_true(m->globals[0].init.bits == UINT64_MAX);
    assert_true(m->globals[1].init.bits == (uint64_t)1 << 63);
    pvm_wasm_module_free(m);
    wb_header(&w);
    wb_section(&w, 6, T("\x01\x7e\x00\x42\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x0b"));
    EXPECT_ERROR(&w, 14, "integer too large");
    wb_header(&w);
    wb_section(&w, 6, T("\x01\x7e\x00\x42\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x0b"));
    EXPECT_ERROR(&w, 14, "integer representation too long");
}

static void custom_sections_are_kept_anywhere_with_valid_names(void **state)
{
    (void)state;
    wb w;
    wb_header(&w);
    wb_section(&w, 1, T("\x00"));
    wb_section(&w, 0, T("\x02hixyz"));
    wb_section(&w, 3, T("\x00"));
    pvm_wasm_module *m = wb_expect_ok(w.b, w.n);
    assert_int_equal(m->ncustoms, 1);
    assert_true(pvm_wasm_name_is(m->customs[0].name, "hi"));
    assert_int_equal(m->customs[0].size, 3);
    assert_memory_equal(m->bytes + m->customs[0].start, "xyz", 3);
    pvm_wasm_module_free(m);

    REJECT(M "\x00\x03\x02\xc0\x80", 11, "malformed UTF-8 encoding");
    REJECT(M "\x00\x03\x05" "ab", 11, "length out of bounds");
    REJECT(M "\x00\x00", 10, "unexpected end of section or function");
}

static void names_must_be_utf8(void **state)
{
    (void)state;
    static const char *const good[] = {
        "", "a", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
        "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
    };
    static const char *const bad[] = {
        "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xc2\x41", "\xe0\x80\x80",
        "\xe0\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xe1\x80", "\xf0\x80\x80\x80",
        "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80",
        "\xfe", "\xff", "a\xc2",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(pvm_wasm_utf8_valid((const uint8_t *)good[i], strlen(good[i])));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(pvm_wasm_utf8_valid((const uint8_t *)bad[i], strlen(bad[i])));
    /* in an import's module name */
    REJECT(M "\x02\x08\x01\x02\xed\xa0\x00\x00\x00\x00", 12, "malformed UTF-8 encoding");
}

static void counts_must_agree_and_fit(void **state)
{
    (void)state;
    REJECT(M "\x01\x04\x01\x60\x00\x00" "\x03\x02\x01\x00", 18,
           "function and code section have inconsistent lengths");
    REJECT(M "\x01\x04\x01\x60\x00\x00" "\x03\x02\x01\x00" "\x0a\x07\x02\x02\x00\x0b\x02\x00\x0b",
           20, "function and code section have inconsistent lengths");
    REJECT(M "\x05\x03\x01\x00\x01" "\x0c\x01\x01", 16,
           "data count and data section have inconsistent lengths");
    REJECT(M "\x05\x03\x01\x00\x01" "\x0c\x01\x01" "\x0b\x07\x02\x01\x01\x61\x01\x01\x62", 18,
           "data count and data section have inconsistent lengths");
    /* a hostile count is refused before anything is allocated for it */
    REJECT(M "\x01\x05\xff\xff\xff\xff\x0f", 10, "unexpected end of section or function");
    REJECT(M "\x02\x05\xff\xff\xff\xff\x0f", 10, "unexpected end of section or function");
}

static void locals_are_counted_and_capped(void **state)
{
    (void)state;
    wb w;
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x02\xff\xff\xff\xff\x0f\x7f\x02\x7e\x0b"));
    EXPECT_ERROR(&w, w.body + 7, "too many locals");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x01\xd1\x86\x03\x7f\x0b")); /* 50001 */
    EXPECT_ERROR(&w, w.body - 1, "too many locals");
    wb_func_module(&w, 0, T("\x60\x01\x7f\x00"), T("\x01\xd0\x86\x03\x7f\x0b")); /* +1 param */
    EXPECT_ERROR(&w, w.body - 1, "too many locals");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x02\xd0\x86\x03\x7f\x00\x7e\x0b")); /* 50000 */
    pvm_wasm_module *m = wb_expect_ok(w.b, w.n);
    assert_int_equal(m->funcs[0].nlocals, 50000);
    assert_int_equal(m->funcs[0].nruns, 2);
    pvm_wasm_module_free(m);
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x01\x01\x7b\x0b"));
    EXPECT_ERROR(&w, w.body + 2, "v128");
}

static void instruction_encodings_are_checked(void **state)
{
    (void)state;
    wb w;
    wb_func_module(&w, WB_MEMORY, T("\x60\x00\x01\x7f"), T("\x00\x3f\x01\x0b"));
    EXPECT_ERROR(&w, w.body + 2, "zero byte expected");
    wb_func_module(&w, WB_MEMORY, T("\x60\x00\x01\x7f"), T("\x00\x3f\x80\x00\x0b"));
    EXPECT_ERROR(&w, w.body + 2, "zero byte expected");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\xff\x0b"));
    EXPECT_ERROR(&w, w.body + 1, "illegal opcode 0xff");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\xfd\x0c\x0b"));
    EXPECT_ERROR(&w, w.body + 1, "illegal opcode 0xfd");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\xfc\x63\x0b"));
    EXPECT_ERROR(&w, w.body + 1, "illegal opcode 0xfc 99");
    /* the 0xFC sub-opcode is a u32, so a padded encoding is fine */
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x43\0\0\0\0\xfc\x80\x00\x1a\x0b"));
    EXPECT_OK(&w);
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x02\x7b\x0b\x0b"));
    EXPECT_ERROR(&w, w.body + 2, "malformed block type");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\xd0\x7f\x1a\x0b"));
    EXPECT_ERROR(&w, w.body + 2, "malformed reference type");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x01"));
    EXPECT_ERROR(&w, w.body + 2, "END opcode expected");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x0b\x01"));
    EXPECT_ERROR(&w, w.body + 2, "section size mismatch");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x41\x80\x80"));
    EXPECT_ERROR(&w, w.body + 4, "unexpected end");
}

/* The sample module (wasm_sample.h) decodes to its types and imports. */
static void the_sample_decodes_to_its_types_and_imports(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    assert_int_equal(m->ntypes, 2);
    assert_int_equal(m->types[1].nparams, 2);
    assert_int_equal(m->types[1].nresults, 1);
    assert_int_equal(m->types[1].params[1], PVM_WASM_I32);
    assert_int_equal(m->types[1].results[0], PVM_WASM_I32);

    assert_int_equal(m->nimports, 4);
    assert_true(pvm_wasm_name_is(m->imports[0].module, "env"));
    assert_true(pvm_wasm_name_is(m->imports[0].name, "f"));
    static const uint8_t kinds[] = {PVM_WASM_EXTERN_FUNC, PVM_WASM_EXTERN_TABLE,
                                    PVM_WASM_EXTERN_MEMORY, PVM_WASM_EXTERN_GLOBAL};
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(m->imports[i].kind, kinds[i]);
        assert_int_equal(m->imports[i].index, 0);
    }
    pvm_wasm_module_free(m);
}

/* Functions are numbered imports first, with their names and types. */
static void functions_are_numbered_imports_first_with_their_names(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    /* functions: the import first, then $add and $start */
    assert_int_equal(m->nfuncs, 3);
    assert_int_equal(m->nfunc_imports, 1);
    assert_int_equal(m->funcs[0].import, 0);
    assert_int_equal(m->funcs[1].import, PVM_WASM_NONE);
    assert_int_equal(pvm_wasm_func_type(m, 1)->nparams, 2);
    assert_true(pvm_wasm_name_is(m->funcs[0].name, "f"));
    assert_true(pvm_wasm_name_is(m->funcs[1].name, "add"));
    assert_true(pvm_wasm_name_is(m->funcs[2].name, "start"));
    for (unsigned i = 0; i < 3; i++)
        assert_true(m->funcs[i].referenced); /* elements, export, ref.func */
    pvm_wasm_module_free(m);
}

/* A body: its locals in runs of one type, where it lies, its stack height
 * and nesting depth. */
static void a_body_is_decoded_to_its_locals_extent_and_limits(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    const pvm_wasm_func *add = &m->funcs[1];
    assert_int_equal(add->nlocals, 3);
    assert_int_equal(add->nruns, 2);
    assert_int_equal(add->runs[0].count, 2);
    assert_int_equal(add->runs[0].type, PVM_WASM_I64);
    assert_int_equal(add->runs[1].type, PVM_WASM_F32);
    assert_int_equal(m->bytes[add->body_pos], 0x20); /* local.get */
    assert_int_equal(m->bytes[add->body_end - 1], 0x0b);
    assert_int_equal(add->max_stack, 2);
    assert_int_equal(add->max_depth, 3);
    pvm_wasm_module_free(m);
}

/* Blocks: the block and the if inside it, the offsets of else and end,
 * the entry height, the block type. */
static void blocks_know_their_else_end_entry_height_and_type(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    const pvm_wasm_func *add = &m->funcs[1];
    assert_int_equal(add->nblocks, 2);
    const pvm_wasm_block *blk = &add->blocks[0], *iff = &add->blocks[1];
    assert_int_equal(blk->op, PVM_WASM_OP_BLOCK);
    assert_int_equal(iff->op, PVM_WASM_OP_IF);
    assert_int_equal(m->bytes[blk->pos], 0x02);
    assert_int_equal(m->bytes[iff->pos], 0x04);
    assert_int_equal(blk->else_pos, 0);
    assert_int_equal(m->bytes[iff->else_pos], 0x05);
    assert_int_equal(m->bytes[iff->end_pos], 0x0b);
    assert_int_equal(blk->end_pos, iff->end_pos + 1);
    assert_int_equal(blk->height, 1);
    assert_int_equal(iff->height, 1);
    assert_int_equal(blk->nparams, 0);
    assert_int_equal(blk->nresults, 1);
    assert_int_equal(blk->results[0], PVM_WASM_I32);
    pvm_wasm_module_free(m);
}

/* Tables, memories and globals, imported and defined: types, limits,
 * mutability, initialisers. */
static void tables_memories_and_globals_keep_limits_and_initialisers(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    assert_int_equal(m->ntables, 2);
    assert_int_equal(m->ntable_imports, 1);
    assert_int_equal(m->tables[0].elemtype, PVM_WASM_FUNCREF);
    assert_true(m->tables[0].limits.has_max);
    assert_int_equal(m->tables[0].limits.min, 2);
    assert_int_equal(m->tables[0].limits.max, 10);
    assert_int_equal(m->tables[1].elemtype, PVM_WASM_EXTERNREF);
    assert_false(m->tables[1].limits.has_max);
    assert_int_equal(m->tables[1].import, PVM_WASM_NONE);

    assert_int_equal(m->nmemories, 1);
    assert_int_equal(m->memories[0].import, 2);
    assert_int_equal(m->memories[0].limits.max, 2);

    assert_int_equal(m->nglobals, 3);
    assert_int_equal(m->nglobal_imports, 1);
    assert_false(m->globals[0].is_mutable);
    assert_true(m->globals[1].is_mutable);
    assert_int_equal(m->globals[1].type, PVM_WASM_I64);
    assert_true(m->globals[1].init.bits == (uint64_t)-5);
    assert_int_equal(m->globals[2].init.kind, PVM_WASM_CONST_REF_FUNC);
    assert_int_equal(m->globals[2].init.index, 1);
    pvm_wasm_module_free(m);
}

/* Exports are found by name and kind; the start function is kept. */
static void exports_are_found_by_name_and_kind_and_start_is_kept(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    assert_int_equal(m->nexports, 2);
    const pvm_wasm_export *e = pvm_wasm_find_export(m, "add", PVM_WASM_EXTERN_FUNC);
    assert_non_null(e);
    assert_int_equal(e->index, 1);
    assert_non_null(pvm_wasm_find_export(m, "mem", PVM_WASM_EXTERN_MEMORY));
    assert_null(pvm_wasm_find_export(m, "mem", PVM_WASM_EXTERN_FUNC));
    assert_int_equal(m->start, 2);
    pvm_wasm_module_free(m);
}

/* Element and data segments: active, passive or declarative, their offsets
 * and contents; custom sections are kept. */
static void segments_keep_their_mode_offset_and_contents(void **state)
{
    (void)state;
    pvm_wasm_module *m = wb_expect_ok(wasm_sample, sizeof wasm_sample);
    assert_int_equal(m->nelems, 3);
    assert_int_equal(m->elems[0].mode, PVM_WASM_SEG_ACTIVE);
    assert_int_equal(m->elems[0].offset.kind, PVM_WASM_CONST_NUM);
    assert_int_equal(m->elems[0].count, 2);
    assert_int_equal(m->elems[0].items[1].kind, PVM_WASM_CONST_REF_FUNC);
    assert_int_equal(m->elems[0].items[1].index, 2);
    assert_int_equal(m->elems[1].mode, PVM_WASM_SEG_PASSIVE);
    assert_int_equal(m->elems[1].items[0].kind, PVM_WASM_CONST_REF_NULL);
    assert_int_equal(m->elems[1].items[1].index, 0);
    assert_int_equal(m->elems[2].mode, PVM_WASM_SEG_DECLARATIVE);

    assert_int_equal(m->ndatas, 2);
    assert_int_equal(m->datas[0].mode, PVM_WASM_SEG_ACTIVE);
    assert_int_equal(m->datas[0].offset.kind, PVM_WASM_CONST_GLOBAL);
    assert_int_equal(m->datas[0].size, 2);
    assert_memory_equal(m->bytes + m->datas[0].start, "hi", 2);
    assert_int_equal(m->datas[1].mode, PVM_WASM_SEG_PASSIVE);
    assert_memory_equal(m->bytes + m->datas[1].start, "passive", 7);

    assert_int_equal(m->ncustoms, 1);
    assert_true(pvm_wasm_name_is(m->customs[0].name, "name"));
    pvm_wasm_module_free(m);
}

static void the_module_keeps_its_own_copy_of_the_bytes(void **state)
{
    (void)state;
    uint8_t copy[sizeof wasm_sample];
    memcpy(copy, wasm_sample, sizeof copy);
    pvm_wasm_module *m = wb_expect_ok(copy, sizeof copy);
    memset(copy, 0, sizeof copy);
    assert_true(pvm_wasm_name_is(m->exports[0].name, "add"));
    pvm_wasm_module_free(m);
}

static void the_opcode_table_is_consistent(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_WASM_OP_COUNT; op++) {
        const pvm_wasm_op_info *info = &pvm_wasm_ops[op];
        assert_non_null(info->text);
        assert_true(info->prefix == 0 || info->prefix == 0xFC);
        /* every opcode decodes back to itself */
        uint8_t buf[16] = {0};
        size_t n = 0;
        if (info->prefix)
            buf[n++] = info->prefix;
        buf[n++] = (uint8_t)info->code;
        memset(buf + n, 0, sizeof buf - n); /* zero immediates */
        if (info->imm == PVM_WASM_IMM_BLOCKTYPE)
            buf[n] = 0x40;
        if (info->imm == PVM_WASM_IMM_REFTYPE)
            buf[n] = 0x70;
        pvm_wasm_reader r = pvm_wasm_reader_at(buf, sizeof buf, 0, sizeof buf, NULL);
        pvm_wasm_insn in;
        assert_int_equal(pvm_wasm_insn_read(&r, &in), 0);
        assert_int_equal(in.op, op);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_empty_module_is_valid),
        cmocka_unit_test(the_preamble_is_magic_then_version_1),
        cmocka_unit_test(sections_have_known_ids_exact_sizes_and_an_order),
        cmocka_unit_test(leb128_length_and_unused_bits_follow_the_spec),
        cmocka_unit_test(custom_sections_are_kept_anywhere_with_valid_names),
        cmocka_unit_test(names_must_be_utf8),
        cmocka_unit_test(counts_must_agree_and_fit),
        cmocka_unit_test(locals_are_counted_and_capped),
        cmocka_unit_test(instruction_encodings_are_checked),
        cmocka_unit_test(the_sample_decodes_to_its_types_and_imports),
        cmocka_unit_test(functions_are_numbered_imports_first_with_their_names),
        cmocka_unit_test(a_body_is_decoded_to_its_locals_extent_and_limits),
        cmocka_unit_test(blocks_know_their_else_end_entry_height_and_type),
        cmocka_unit_test(tables_memories_and_globals_keep_limits_and_initialisers),
        cmocka_unit_test(exports_are_found_by_name_and_kind_and_start_is_kept),
        cmocka_unit_test(segments_keep_their_mode_offset_and_contents),
        cmocka_unit_test(the_module_keeps_its_own_copy_of_the_bytes),
        cmocka_unit_test(the_opcode_table_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
