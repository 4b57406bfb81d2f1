/*
 * test_module_io.c - the .pbc container: a module written and read back is
 * the same module; every kind of malformed file is rejected with the byte
 * offset of the problem; every truncation of a valid file is rejected;
 * hostile counts and lengths are rejected before anything is allocated
 * from them; random and corrupted bytes never crash the reader, and what
 * it accepts writes back identically and disassembles to text that
 * re-assembles identically (or is reported as undecodable).
 *
 * The library's malloc, calloc and realloc pass through wrappers here
 * (linked with --wrap, see tests/CMakeLists.txt) that remember the largest
 * request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm.h"
#include "disasm.h"
#include "module.h"

/* ---- watching allocation sizes ------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static size_t largest_request;

static void note_request(size_t size)
{
    if (size > largest_request)
        largest_request = size;
}

void *__wrap_malloc(size_t size)
{
    note_request(size);
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    note_request(size && n > SIZE_MAX / size ? SIZE_MAX : n * size);
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    note_request(size);
    return __real_realloc(p, size);
}

/* ---- building .pbc bytes field by field ----------------------------------- */

static void u32(pvm_buf *b, uint32_t v) { pvm_buf_u32(b, v); }
static void u64(pvm_buf *b, uint64_t v) { pvm_buf_u64(b, v); }

static void str(pvm_buf *b, const char *s)
{
    u32(b, (uint32_t)strlen(s));
    pvm_buf_append(b, s, strlen(s));
}

/* Magic, version 1, entry, heap limits, global and table counts: 36 bytes. */
static void header_with_counts(pvm_buf *b, uint32_t entry, uint64_t heap_min,
                               uint64_t heap_max, uint32_t nglobals, uint32_t ntables)
{
    pvm_buf_append(b, PVM_PBC_MAGIC, 4);
    u32(b, PVM_PBC_VERSION);
    u32(b, entry);
    u64(b, heap_min);
    u64(b, heap_max);
    u32(b, nglobals);
    u32(b, ntables);
}

/* The header without globals or tables. */
static void header(pvm_buf *b, uint32_t entry, uint64_t heap_min, uint64_t heap_max)
{
    header_with_counts(b, entry, heap_min, heap_max, 0, 0);
}

/* A function whose code is one `ret`: 17 bytes plus the strings. */
static void func(pvm_buf *b, const char *name, const char *params, const char *results)
{
    str(b, name);
    str(b, params);
    str(b, results);
    u32(b, 1);
    pvm_buf_u8(b, PVM_OP_ret);
}

/* What follows the data segments with no globals or tables: no start
 * function, no heap register, no element segment (12 bytes). */
static void no_state(pvm_buf *b)
{
    u32(b, PVM_NO_ENTRY);
    u32(b, PVM_NO_HEAP_REG);
    u32(b, 0);
}

/* The smallest valid file: no imports, types, functions or data (64 bytes). */
static void empty_module(pvm_buf *b)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0);
    u32(b, 0);
    u32(b, 0);
    no_state(b);
}

/* One function "f" (its count at 44, the function at 48..65), no data:
 * the state follows from offset 70. */
static void one_function(pvm_buf *b, uint32_t nglobals, uint32_t ntables)
{
    header_with_counts(b, PVM_NO_ENTRY, 0, 0, nglobals, ntables);
    u32(b, 0);
    u32(b, 0);
    u32(b, 1);
    func(b, "f", "", "");
    u32(b, 0);
}

#define IMAGE(name) static void name(pvm_buf *b)

IMAGE(empty_file) { (void)b; }
IMAGE(bad_magic) { pvm_buf_append(b, "\0PBX\1\0\0\0", 8); }
IMAGE(header_cut_after_magic) { pvm_buf_append(b, PVM_PBC_MAGIC, 4); }
IMAGE(unknown_version) /* version 1: 5-bit register packs, no longer read */
{
    pvm_buf_append(b, PVM_PBC_MAGIC, 4);
    u32(b, 1);
}
IMAGE(heap_min_above_max) { header(b, PVM_NO_ENTRY, 8, 4); }
IMAGE(heap_max_above_limit) { header(b, PVM_NO_ENTRY, 0, PVM_MAX_HEAP * 2); }
IMAGE(import_count_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, PVM_MAX_IMPORTS);
}
IMAGE(import_count_above_limit)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, UINT32_MAX);
}
IMAGE(import_name_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 1);
    u32(b, 1000);
}
IMAGE(import_name_above_limit)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 1);
    u32(b, PVM_MAX_NAME + 1);
    for (unsigned i = 0; i <= PVM_MAX_NAME; i++)
        pvm_buf_u8(b, 'a');
}
IMAGE(import_name_with_nul)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 1);
    u32(b, 3);
    pvm_buf_append(b, "a\0b", 3);
}
IMAGE(duplicate_import)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 2);
    str(b, "a"); /* at 40 */
    str(b, "a"); /* at 45 */
    u32(b, 0);
    u32(b, 0);
    u32(b, 0);
}
IMAGE(function_count_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, PVM_MAX_FUNCS);
}
IMAGE(function_count_above_limit)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, UINT32_MAX);
}
IMAGE(bad_type_letter)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 1);
    func(b, "f", "ix", ""); /* name at 48, params at 53 */
    u32(b, 0);
}
IMAGE(too_many_types)
{
    char params[PVM_MAX_TYPES + 2];
    memset(params, 'i', PVM_MAX_TYPES + 1);
    params[PVM_MAX_TYPES + 1] = 0;
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 1);
    func(b, "f", params, "");
    u32(b, 0);
}
IMAGE(code_size_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 1);
    str(b, "f");
    str(b, "");
    str(b, "");
    u32(b, PVM_MAX_CODE); /* at 61 */
}
IMAGE(code_size_above_limit)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 1);
    str(b, "f");
    str(b, "");
    str(b, "");
    u32(b, UINT32_MAX);
}
IMAGE(duplicate_function)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 2);
    func(b, "f", "", ""); /* at 48 */
    func(b, "f", "", ""); /* at 66 */
    u32(b, 0);
}
IMAGE(entry_out_of_range)
{
    header(b, 1, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 1);
    func(b, "f", "", "");
    u32(b, 0);
}
IMAGE(data_count_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 0);
    u32(b, UINT32_MAX);
}
IMAGE(data_size_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 64);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 0);
    u32(b, 1);
    u64(b, 0);   /* at 52 */
    u32(b, 100); /* at 60 */
}
IMAGE(data_outside_heap)
{
    header(b, PVM_NO_ENTRY, 0, 64);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 0);
    u32(b, 1);
    u64(b, 60);
    u32(b, 10);
    pvm_buf_append(b, "0123456789", 10);
}
IMAGE(data_offset_wrapping_around)
{
    header(b, PVM_NO_ENTRY, 0, 64);
    u32(b, 0);
    u32(b, 0); /* types */
    u32(b, 0);
    u32(b, 1);
    u64(b, UINT64_MAX);
    u32(b, 2);
    pvm_buf_append(b, "01", 2);
}
IMAGE(trailing_byte)
{
    empty_module(b);
    pvm_buf_u8(b, 0);
}
IMAGE(start_out_of_range)
{
    one_function(b, 0, 0);
    u32(b, 1);
    u32(b, PVM_NO_HEAP_REG);
    u32(b, 0);
}
IMAGE(heap_register_out_of_range)
{
    one_function(b, 0, 0);
    u32(b, PVM_NO_ENTRY);
    u32(b, 32);
    u32(b, 0);
}
IMAGE(global_values_beyond_bytes)
{
    one_function(b, 1000, 0);
    u32(b, PVM_NO_ENTRY);
    u32(b, PVM_NO_HEAP_REG);
    u64(b, 7);
}
IMAGE(table_above_its_maximum)
{
    one_function(b, 0, 1);
    u32(b, PVM_NO_ENTRY);
    u32(b, PVM_NO_HEAP_REG);
    u32(b, 4); /* at 78 */
    u32(b, 2);
    u32(b, 0);
}
/* An element segment of `table`, `offset`, one function `f` into a table
 * of 2 entries. */
static void elem(pvm_buf *b, uint32_t table, uint32_t offset, uint32_t f)
{
    one_function(b, 0, 1);
    u32(b, PVM_NO_ENTRY);
    u32(b, PVM_NO_HEAP_REG);
    u32(b, 2);
    u32(b, 2);
    u32(b, 1);
    u32(b, table); /* at 90 */
    u32(b, offset);
    u32(b, 1);
    u32(b, f);
}
IMAGE(element_table_out_of_range) { elem(b, 1, 0, 0); }
IMAGE(element_outside_the_table) { elem(b, 0, 2, 0); }
IMAGE(element_function_out_of_range) { elem(b, 0, 1, 1); }

IMAGE(header_cut_in_the_table_count)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    b->len -= 2;
}
IMAGE(global_count_above_limit)
{
    header_with_counts(b, PVM_NO_ENTRY, 0, 0, PVM_MAX_GLOBALS + 1, 0);
}
IMAGE(table_count_above_limit)
{
    header_with_counts(b, PVM_NO_ENTRY, 0, 0, 0, UINT32_MAX);
}
IMAGE(type_count_beyond_bytes)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, PVM_MAX_FUNCTYPES);
}
IMAGE(type_count_above_limit)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, UINT32_MAX);
}
IMAGE(bad_type_letter_in_the_type_table)
{
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 1);
    str(b, "q"); /* at 44 */
    str(b, "");
    u32(b, 0);
    u32(b, 0);
}
IMAGE(too_many_result_types_in_the_type_table)
{
    char results[PVM_MAX_TYPES + 2];
    memset(results, 'd', PVM_MAX_TYPES + 1);
    results[PVM_MAX_TYPES + 1] = 0;
    header(b, PVM_NO_ENTRY, 0, 0);
    u32(b, 0);
    u32(b, 1);
    str(b, "");
    str(b, results); /* at 48 */
    u32(b, 0);
    u32(b, 0);
}
static const struct bad_file {
    const char *what;
    void (*build)(pvm_buf *b);
    const char *message;
} bad_files[] = {
    {"empty file", empty_file, "offset 0: bad magic (not a .pbc file)"},
    {"bad magic", bad_magic, "offset 0: bad magic (not a .pbc file)"},
    {"header cut after the magic", header_cut_after_magic,
     "offset 4: format version runs past the end of the file"},
    {"unknown version", unknown_version, "offset 4: unknown format version 1 (expected 3)"},
    {"initial heap above the maximum", heap_min_above_max,
     "offset 12: initial heap 8 exceeds the maximum heap 4"},
    {"maximum heap above the limit", heap_max_above_limit,
     "offset 20: maximum heap 17179869184 exceeds the limit of 8589934592"},
    {"header cut in the table count", header_cut_in_the_table_count,
     "offset 32: table count runs past the end of the file"},
    {"global count above the limit", global_count_above_limit,
     "offset 28: global count 1048577 exceeds the limit of 1048576"},
    {"table count above the limit", table_count_above_limit,
     "offset 32: table count 4294967295 exceeds the limit of 1048576"},
    {"import count beyond the bytes", import_count_beyond_bytes,
     "offset 36: import count 65536 exceeds remaining bytes"},
    {"import count above the limit", import_count_above_limit,
     "offset 36: import count 4294967295 exceeds the limit of 65536"},
    {"import name beyond the bytes", import_name_beyond_bytes,
     "offset 40: import name length 1000 exceeds remaining bytes"},
    {"import name above the limit", import_name_above_limit,
     "offset 40: import name length 4097 exceeds the limit of 4096"},
    {"import name with a NUL byte", import_name_with_nul,
     "offset 44: import name contains a NUL byte"},
    {"duplicate import", duplicate_import, "offset 45: duplicate import name 'a'"},
    {"type count beyond the bytes", type_count_beyond_bytes,
     "offset 40: type count 1048576 exceeds remaining bytes"},
    {"type count above the limit", type_count_above_limit,
     "offset 40: type count 4294967295 exceeds the limit of 1048576"},
    {"bad type letter in the type table", bad_type_letter_in_the_type_table,
     "offset 44: bad parameter types 'q' (letters i, l, f, d, r, e)"},
    {"too many result types in the type table", too_many_result_types_in_the_type_table,
     "offset 48: result types length 1001 exceeds the limit of 1000"},
    {"function count beyond the bytes", function_count_beyond_bytes,
     "offset 44: function count 1048576 exceeds remaining bytes"},
    {"function count above the limit", function_count_above_limit,
     "offset 44: function count 4294967295 exceeds the limit of 1048576"},
    {"bad type letter", bad_type_letter,
     "offset 53: bad parameter types 'ix' (letters i, l, f, d, r, e)"},
    {"too many types", too_many_types,
     "offset 53: parameter types length 1001 exceeds the limit of 1000"},
    {"code size beyond the bytes", code_size_beyond_bytes,
     "offset 61: code size 1073741824 exceeds remaining bytes"},
    {"code size above the limit", code_size_above_limit,
     "offset 61: code size 4294967295 exceeds the limit of 1073741824"},
    {"duplicate function", duplicate_function, "offset 66: duplicate function name 'f'"},
    {"entry out of range", entry_out_of_range,
     "offset 8: entry function 1 out of range (1 functions)"},
    {"data segment count beyond the bytes", data_count_beyond_bytes,
     "offset 48: data segment count 4294967295 exceeds remaining bytes"},
    {"data segment size beyond the bytes", data_size_beyond_bytes,
     "offset 60: data segment size 100 exceeds remaining bytes"},
    {"data segment outside the heap", data_outside_heap,
     "offset 52: data segment 0 (10 bytes at heap offset 60) exceeds the maximum heap of 64 bytes"},
    {"data segment offset wrapping around", data_offset_wrapping_around,
     "offset 52: data segment 0 (2 bytes at heap offset 18446744073709551615) exceeds"},
    {"trailing byte", trailing_byte, "offset 64: 1 trailing byte(s) after the element segments"},
    {"start function out of range", start_out_of_range,
     "offset 70: start function 1 out of range (1 functions)"},
    {"heap register out of range", heap_register_out_of_range,
     "offset 74: heap register 32 does not exist"},
    {"global values beyond the bytes", global_values_beyond_bytes,
     "offset 78: 1000 global values exceed remaining bytes"},
    {"table above its maximum", table_above_its_maximum,
     "offset 78: table 0: size 4 above its maximum 2"},
    {"element segment of no table", element_table_out_of_range,
     "offset 90: element segment 0: table 1 out of range (1 tables)"},
    {"element segment outside its table", element_outside_the_table,
     "offset 90: element segment 0: 1 entries at 2 do not fit table 0 of 2 entries"},
    {"element segment of no function", element_function_out_of_range,
     "offset 90: element segment 0: function 1 out of range (1 functions)"},
};

static void test_each_malformed_file_is_rejected_with_its_offset(void **state)
{
    (void)state;
    unsigned failures = 0;
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        const struct bad_file *c = &bad_files[i];
        pvm_buf b = {0};
        c->build(&b);
        assert_false(b.failed);
        pvm_error err = {{0}};
        largest_request = 0;
        pvm_module *m = pvm_module_read(b.data, b.len, &err);
        if (m) {
            print_error("%s: accepted\n", c->what);
            pvm_module_free(m);
            failures++;
        } else if (strncmp(err.msg, c->message, strlen(c->message)) != 0) {
            print_error("%s:\n    got  %s\n    want %s\n", c->what, err.msg, c->message);
            failures++;
        } else if (largest_request > 4 * b.len + 4096) {
            print_error("%s: allocated %zu bytes for a %zu-byte file\n", c->what,
                        largest_request, b.len);
            failures++;
        }
        pvm_buf_free(&b);
    }
    assert_int_equal(failures, 0);
}

/* ---- a valid module --------------------------------------------------------- */

static pvm_module *sample_module(void)
{
    pvm_module *m = pvm_module_new();
    assert_non_null(m);
    pvm_error err;
    const uint8_t main_code[] = {PVM_OP_nop, PVM_OP_call, 1, 0, 0, 0, PVM_OP_ret};
    const uint8_t helper_code[] = {PVM_OP_call_host, 1, 0, 0, 0, PVM_OP_ret};
    const uint8_t data[] = {0, 1, 2, 0xff};
    assert_true(pvm_module_add_import(m, "print", &err) == 0);
    assert_true(pvm_module_add_import(m, "clock", &err) == 1);
    assert_true(pvm_module_add_function(m, "main", "il", "d", main_code, sizeof main_code,
                                        &err) == 0);
    assert_true(pvm_module_add_function(m, "helper", "fd", "", helper_code,
                                        sizeof helper_code, &err) == 1);
    assert_true(pvm_module_add_function(m, "empty", "", "", NULL, 0, &err) == 2);
    assert_true(pvm_module_add_data(m, 0, data, sizeof data, &err) == 0);
    assert_true(pvm_module_add_data(m, 100, data, 2, &err) == 1);
    assert_true(pvm_module_add_type(m, "ilre", "d", &err) == 0);
    assert_true(pvm_module_add_type(m, "", "", &err) == 1);
    m->nglobals = 3;
    m->ntables = 2;
    m->entry = 1;
    m->start = 2;
    m->heap_reg = 31;
    const uint32_t refs[] = {0, PVM_NO_ENTRY, 2};
    assert_true(pvm_module_set_global(m, 1, UINT64_C(0xfedcba9876543210), &err) == 0);
    assert_true(pvm_module_set_table(m, 1, 5, 9, &err) == 0);
    assert_true(pvm_module_add_elem(m, 1, 2, refs, 3, &err) == 0);
    m->heap_min = 4096;
    m->heap_max = 65536;
    return m;
}

static void write_module(const pvm_module *m, pvm_buf *out)
{
    pvm_error err;
    *out = (pvm_buf){0};
    if (pvm_module_write(m, out, &err) < 0)
        fail_msg("pvm_module_write: %s", err.msg);
}

static void test_a_written_module_reads_back_the_same(void **state)
{
    (void)state;
    pvm_module *m = sample_module();
    pvm_buf bytes;
    write_module(m, &bytes);
    pvm_error err;
    pvm_module *r = pvm_module_read(bytes.data, bytes.len, &err);
    if (!r)
        fail_msg("%s", err.msg);

    assert_int_equal(r->entry, 1);
    assert_int_equal(r->heap_min, 4096);
    assert_int_equal(r->heap_max, 65536);
    assert_int_equal(r->nglobals, 3);
    assert_int_equal(r->ntables, 2);
    assert_int_equal(r->nimports, 2);
    assert_string_equal(r->imports[1], "clock");
    assert_int_equal(r->ntypes, 2);
    assert_string_equal(r->types[0].params, "ilre");
    assert_string_equal(r->types[0].results, "d");
    assert_string_equal(r->types[1].params, "");
    assert_int_equal(r->nfuncs, 3);
    for (uint32_t i = 0; i < 3; i++) {
        assert_string_equal(r->funcs[i].name, m->funcs[i].name);
        assert_string_equal(r->funcs[i].params, m->funcs[i].params);
        assert_string_equal(r->funcs[i].results, m->funcs[i].results);
        assert_int_equal(r->funcs[i].size, m->funcs[i].size);
        assert_memory_equal(r->code + r->funcs[i].offset, m->code + m->funcs[i].offset,
                            m->funcs[i].size);
    }
    assert_int_equal(r->ndata, 2);
    assert_int_equal(r->data[1].offset, 100);
    assert_int_equal(r->data[1].size, 2);
    assert_memory_equal(r->data[0].bytes, m->data[0].bytes, 4);
    assert_int_equal(r->start, 2);
    assert_int_equal(r->heap_reg, 31);
    assert_true(r->global_init[0] == 0 && r->global_init[1] == UINT64_C(0xfedcba9876543210));
    assert_true(r->table_decl[0].size == 0 && r->table_decl[0].max == 0);
    assert_true(r->table_decl[1].size == 5 && r->table_decl[1].max == 9);
    assert_int_equal(r->nelems, 1);
    assert_true(r->elems[0].table == 1 && r->elems[0].offset == 2 && r->elems[0].count == 3);
    assert_memory_equal(r->elems[0].funcs, m->elems[0].funcs, 3 * sizeof(uint32_t));
    assert_false(r->verified);

    pvm_buf again;
    write_module(r, &again);
    assert_int_equal(again.len, bytes.len);
    assert_memory_equal(again.data, bytes.data, bytes.len);
    pvm_buf_free(&again);
    pvm_buf_free(&bytes);
    pvm_module_free(r);
    pvm_module_free(m);
}

static void test_every_truncation_is_rejected_with_an_offset(void **state)
{
    (void)state;
    pvm_module *m = sample_module();
    pvm_buf bytes;
    write_module(m, &bytes);
    for (size_t len = 0; len < bytes.len; len++) {
        uint8_t *cut = malloc(len ? len : 1); /* exact size: overreads are caught */
        assert_non_null(cut);
        memcpy(cut, bytes.data, len);
        pvm_error err;
        pvm_module *r = pvm_module_read(cut, len, &err);
        size_t at;
        if (r)
            fail_msg("the first %zu of %zu bytes are accepted", len, bytes.len);
        if (sscanf(err.msg, "offset %zu: ", &at) != 1 || at > len)
            fail_msg("cut at %zu: message without a plausible offset: %s", len, err.msg);
        free(cut);
    }
    pvm_buf_free(&bytes);
    pvm_module_free(m);
}

static void test_hostile_counts_allocate_nothing_from_the_count(void **state)
{
    (void)state;
    /* Every count and length field of a small file set to its maximum. */
    pvm_module *m = sample_module();
    pvm_buf bytes;
    write_module(m, &bytes);
    for (size_t at = 28; at + 4 <= bytes.len; at++) {
        uint8_t *copy = malloc(bytes.len);
        assert_non_null(copy);
        memcpy(copy, bytes.data, bytes.len);
        pvm_wr32(copy + at, UINT32_MAX);
        largest_request = 0;
        pvm_error err;
        pvm_module *r = pvm_module_read(copy, bytes.len, &err);
        pvm_module_free(r);
        if (largest_request > 65536)
            fail_msg("u32 field at %zu set to 0xffffffff: a %zu-byte allocation", at,
                     largest_request);
        free(copy);
    }
    pvm_buf_free(&bytes);
    pvm_module_free(m);
}

/* ---- random and corrupted bytes ------------------------------------------- */

static uint32_t rng = 2463534242u;

static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* The reader accepts or rejects len bytes without crashing; an accepted
 * module writes back the same bytes, and its disassembly re-assembles to
 * them (or is refused as undecodable). */
static void read_anything(const uint8_t *bytes, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, bytes, len);
    pvm_error err;
    pvm_module *m = pvm_module_read(copy, len, &err);
    if (m) {
        pvm_buf out;
        write_module(m, &out);
        if (out.len != len || memcmp(out.data, bytes, len) != 0)
            fail_msg("an accepted file does not write back identically");
        pvm_buf_free(&out);

        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        assert_non_null(f);
        int r = pvm_disassemble_module(f, m, NULL, &err);
        fclose(f);
        if (r == 0) {
            pvm_module *again = pvm_assemble("fuzz.pasm", text, size, &err);
            if (!again)
                fail_msg("disassembly does not assemble: %s\n%s", err.msg, text);
            write_module(again, &out);
            if (out.len != len || memcmp(out.data, bytes, len) != 0)
                fail_msg("disassembly re-assembles to different bytes:\n%s", text);
            pvm_buf_free(&out);
            pvm_module_free(again);
        }
        free(text);
        pvm_module_free(m);
    } else if (strncmp(err.msg, "offset ", 7) != 0) {
        fail_msg("message without an offset: %s", err.msg);
    }
    free(copy);
}

static void test_random_bytes_never_crash_the_reader(void **state)
{
    (void)state;
    uint8_t bytes[256];
    for (unsigned round = 0; round < 5000; round++) {
        size_t len = next_random() % sizeof bytes;
        for (size_t i = 0; i < len; i++)
            bytes[i] = (uint8_t)next_random();
        if (round % 2 && len >= 8) { /* get past the magic and version */
            memcpy(bytes, PVM_PBC_MAGIC, 4);
            pvm_wr32(bytes + 4, PVM_PBC_VERSION);
        }
        read_anything(bytes, len);
    }
}

static void test_corrupted_modules_never_crash_and_round_trip_when_accepted(void **state)
{
    (void)state;
    const char *src = ".memory 16 64\n.globals 2\n.tables 1\n.import put\n"
                      ".type i32 -> i64\n.data 8 \"abc\"\n"
                      ".func main i64 -> i64\n"
                      "top: xconst8 x0, 7\n    br_if x0, top\n"
                      "    br_table x0, [top, +2]\n    fconst32 f1, 1.5\n"
                      "    func_ref x2, f\n    sigcheck x2, #0\n    xglobal_set x0, #1\n"
                      "    table_grow x1, x2, x3, #0\n"
                      "    call f\n    call_host put\n    trap 3\n    ret\n.end\n"
                      ".func f\n    xadd64 x1, x2, x3\n    ret\n.end\n";
    pvm_error err;
    pvm_module *m = pvm_assemble("t.pasm", src, strlen(src), &err);
    if (!m)
        fail_msg("%s", err.msg);
    pvm_buf bytes;
    write_module(m, &bytes);
    uint8_t *copy = malloc(bytes.len);
    assert_non_null(copy);
    for (unsigned round = 0; round < 20000; round++) {
        memcpy(copy, bytes.data, bytes.len);
        for (unsigned k = 0; k <= round % 3; k++)
            copy[next_random() % bytes.len] = (uint8_t)next_random();
        read_anything(copy, bytes.len);
    }
    free(copy);
    pvm_buf_free(&bytes);
    pvm_module_free(m);
}

/* ---- files ----------------------------------------------------------------- */

static void test_read_file_returns_the_bytes_or_names_the_file(void **state)
{
    (void)state;
    char path[] = "/tmp/pulley_test_module_io_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "\0PBC", 4), 4);
    close(fd);

    pvm_error err;
    size_t size = 99;
    uint8_t *bytes = pvm_read_file(path, &size, &err);
    assert_non_null(bytes);
    assert_int_equal(size, 4);
    assert_memory_equal(bytes, "\0PBC", 4);
    free(bytes);
    unlink(path);

    assert_null(pvm_read_file(path, &size, &err));
    char want[128];
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(err.msg, want);

    assert_null(pvm_read_file("/", &size, &err));
    assert_string_equal(err.msg, "/: Is a directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_written_module_reads_back_the_same),
        cmocka_unit_test(test_each_malformed_file_is_rejected_with_its_offset),
        cmocka_unit_test(test_every_truncation_is_rejected_with_an_offset),
        cmocka_unit_test(test_hostile_counts_allocate_nothing_from_the_count),
        cmocka_unit_test(test_random_bytes_never_crash_the_reader),
        cmocka_unit_test(test_corrupted_modules_never_crash_and_round_trip_when_accepted),
        cmocka_unit_test(test_read_file_returns_the_bytes_or_names_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
