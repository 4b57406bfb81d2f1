/*
 * spec_validate.c - checks the Wasm decoder and validator against the
 * WebAssembly spec test suite: for each .wast script (given, or found in a
 * given directory), wast2json converts it into a temporary directory, and
 * every command that carries a module is checked:
 *
 *   module, assert_unlinkable, assert_uninstantiable   must decode+validate
 *   assert_invalid, assert_malformed (binary)          must be rejected
 *   assert_malformed (text format)                     skipped (out of scope)
 *
 * Other commands (assert_return, ...) need an interpreter and are not
 * counted here (pulley-spec runs them all).  Prints a line per script,
 * then "N passed, N failed, N skipped" alone on the last line; exits 0
 * only if nothing failed.
 *
 *   wasm_spec_validate [--wast2json PATH] [-v] DIR|FILE.wast...
 *
 * -v also lists rejections whose message does not contain the text the
 * script expects (informative only: messages differ between engines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_script.h"
#include "wasm_module.h"

static void check_command(const spec_script *s, const spec_json *c, spec_totals *t)
{
    const char *type = spec_json_str(c, "type"), *filename = spec_json_str(c, "filename");
    const char *module_type = spec_json_str(c, "module_type"), *text = spec_json_str(c, "text");
    long line = 0;
    spec_json_long(c, "line", &line);
    if (!type)
        type = "(no type)";
    if (!text)
        text = "";
    bool expect_valid;
    if (!strcmp(type, "module") || !strcmp(type, "assert_unlinkable") ||
        !strcmp(type, "assert_uninstantiable"))
        expect_valid = true;
    else if (!strcmp(type, "assert_invalid") || !strcmp(type, "assert_malformed"))
        expect_valid = false;
    else
        return; /* needs an interpreter */
    if (module_type && !strcmp(module_type, "text")) {
        t->skipped++;
        return;
    }
    size_t size;
    uint8_t *bytes = spec_read_module(s, filename, &size);
    if (!bytes) {
        printf("  %s:%ld: %s: cannot read %s\n", s->name, line, type,
               filename ? filename : "(no filename)");
        t->failed++;
        return;
    }
    pvm_error err = {{0}};
    pvm_wasm_module *m = pvm_wasm_decode(bytes, size, &err);
    bool ok = (m != NULL) == expect_valid;
    if (!ok && expect_valid)
        printf("  %s:%ld: %s rejected: %s\n", s->name, line, type, err.msg);
    else if (!ok)
        printf("  %s:%ld: %s accepted (expected \"%s\")\n", s->name, line, type, text);
    else if (s->verbose && !m && !strstr(err.msg, text))
        printf("  note %s:%ld: expected \"%s\", got: %s\n", s->name, line, text, err.msg);
    ok ? t->passed++ : t->failed++;
    pvm_wasm_module_free(m);
    free(bytes);
}

static void check_script(const spec_script *s, spec_totals *t, void *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < s->commands->count; i++)
        check_command(s, &s->commands->items[i], t);
}

int main(int argc, char **argv)
{
    spec_options o = {.wast2json = NULL};
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            o.verbose = true;
        else if (!strcmp(argv[i], "--wast2json") && i + 1 < argc)
            o.wast2json = argv[++i];
        else
            break;
    }
    if (i == argc) {
        fprintf(stderr, "usage: wasm_spec_validate [--wast2json PATH] [-v] DIR|FILE.wast...\n");
        return 2;
    }
    spec_totals all = {0, 0, 0};
    if (spec_run_scripts(argv + i, argc - i, &o, check_script, NULL, &all))
        return 2;
    spec_print_totals(&all);
    return all.failed ? 1 : 0;
}
