/*
 * spec_runner.c - the command loop of pulley-spec (see spec_runner.h).
 *
 * A script's modules live in one store; "module" makes the current
 * instance (and names it if the command has a "name"), "register" makes an
 * instance's exports importable, actions invoke an export or read a global
 * of the current or a named instance.  Assertions on modules check the
 * status instantiation reports; assert_invalid and binary assert_malformed
 * must be rejected by the decoder and validator alone.
 */
#include "spec_runner.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_spectest.h"
#include "spec_values.h"
#include "wasm_instance.h"

enum { WHY_CAP = 1024, VALUE_CAP = 96 };

typedef enum outcome { PASS, FAIL, SKIP } outcome;

typedef struct named {
    char *name;
    pvm_wasm_instance *inst;
} named;

typedef struct runner {
    const spec_script *s;
    pvm_wasm_store *store;
    pvm_wasm_instance *current; /* NULL: none, or the last module failed */
    named *names;
    size_t nnames;
    pvm_wasm_value args[PVM_WASM_MAX_PARAMS], results[PVM_WASM_MAX_RESULTS];
    char why[WHY_CAP]; /* what went wrong, for FAIL */
} runner;

static outcome failf(runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static outcome failf(runner *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return FAIL;
}

/* ---- instances by name ---------------------------------------------------- */

static pvm_wasm_instance *find_instance(runner *r, const char *name)
{
    if (!name)
        return r->current;
    for (size_t i = r->nnames; i-- > 0;)
        if (!strcmp(r->names[i].name, name))
            return r->names[i].inst;
    return NULL;
}

static int name_instance(runner *r, const char *name, pvm_wasm_instance *inst)
{
    named *names = realloc(r->names, (r->nnames + 1) * sizeof *names);
    if (!names)
        return -1;
    r->names = names;
    if (!(names[r->nnames].name = strdup(name)))
        return -1;
    names[r->nnames++].inst = inst;
    return 0;
}

/* ---- modules -------------------------------------------------------------- */

static const char *status_name(pvm_wasm_status st)
{
    static const char *const names[] = {"instantiated", "malformed or invalid", "unlinkable",
                                        "uninstantiable", "failed"};
    return st < sizeof names / sizeof names[0] ? names[st] : "?";
}

/* Instantiate the module of command c into *inst (NULL unless OK). */
static outcome instantiate(runner *r, const spec_json *c, pvm_wasm_status *st,
                           pvm_wasm_instance **inst, pvm_error *err)
{
    const char *filename = spec_json_str(c, "filename");
    size_t size;
    uint8_t *bytes = spec_read_module(r->s, filename, &size);
    *inst = NULL;
    if (!bytes)
        return failf(r, "cannot read module %s", filename ? filename : "(no filename)");
    *inst = pvm_wasm_instantiate(r->store, bytes, size, st, err);
    if (*inst)
        *st = PVM_WASM_OK;
    free(bytes);
    return PASS;
}

static outcome do_module(runner *r, const spec_json *c)
{
    pvm_wasm_status st;
    pvm_error err = {{0}};
    pvm_wasm_instance *inst;
    r->current = NULL;
    if (instantiate(r, c, &st, &inst, &err) == FAIL)
        return FAIL;
    const char *name = spec_json_str(c, "name");
    if (name && name_instance(r, name, inst)) /* a failed one hides its name */
        return failf(r, "out of memory");
    if (!inst)
        return failf(r, "module %s: %s", status_name(st), err.msg);
    r->current = inst;
    return PASS;
}

/* The message of the trap kind that `text` names ("uninitialized element
 * 2" names "uninitialized element"), or NULL. */
static const char *trap_named(const char *text)
{
    for (unsigned k = PVM_TRAP_NONE + 1; text && k < PVM_TRAP_COUNT; k++)
        if (!strncmp(text, pvm_trap_message(k), strlen(pvm_trap_message(k))))
            return pvm_trap_message(k);
    return NULL;
}

/* assert_unlinkable, assert_uninstantiable, assert_trap on a module.  An
 * uninstantiable module's message must name the expected trap. */
static outcome expect_status(runner *r, const spec_json *c, pvm_wasm_status want)
{
    pvm_wasm_status st;
    pvm_error err = {{0}};
    pvm_wasm_instance *inst;
    const char *text = spec_json_str(c, "text"), *trap = trap_named(text);
    if (instantiate(r, c, &st, &inst, &err) == FAIL)
        return FAIL;
    if (st == want && (want != PVM_WASM_UNINSTANTIABLE || !trap || strstr(err.msg, trap)))
        return PASS;
    return failf(r, "expected %s (\"%s\"), got %s%s%s", status_name(want), text ? text : "",
                 status_name(st), st == PVM_WASM_OK ? "" : ": ", st == PVM_WASM_OK ? "" : err.msg);
}

/* assert_invalid, assert_malformed: rejected by decoding and validation. */
static outcome expect_rejected(runner *r, const spec_json *c)
{
    const char *mt = spec_json_str(c, "module_type");
    if (mt && !strcmp(mt, "text"))
        return SKIP;
    const char *filename = spec_json_str(c, "filename");
    size_t size;
    uint8_t *bytes = spec_read_module(r->s, filename, &size);
    if (!bytes)
        return failf(r, "cannot read module %s", filename ? filename : "(no filename)");
    pvm_error err;
    pvm_wasm_module *m = pvm_wasm_decode(bytes, size, &err);
    free(bytes);
    pvm_wasm_module_free(m);
    return m ? failf(r, "module accepted, expected \"%s\"",
                     spec_json_str(c, "text") ? spec_json_str(c, "text") : "")
             : PASS;
}

static outcome do_register(runner *r, const spec_json *c)
{
    const char *name = spec_json_str(c, "name"), *as = spec_json_str(c, "as");
    pvm_wasm_instance *inst = find_instance(r, name);
    pvm_error err = {{0}};
    if (!as)
        return failf(r, "register without \"as\"");
    if (!inst)
        return failf(r, "no module %s to register", name ? name : "(current)");
    if (pvm_wasm_store_register(r->store, as, inst, &err))
        return failf(r, "register as %s: %s", as, err.msg);
    return PASS;
}

/* ---- actions -------------------------------------------------------------- */

static pvm_wasm_value to_wasm(const spec_value *v)
{
    uint64_t bits = v->kind == SPEC_VALUE_NULL  ? 0
                    : v->kind == SPEC_VALUE_REF ? v->bits + 1 /* externref v */
                                                : v->bits;
    return (pvm_wasm_value){v->type, bits};
}

static spec_value from_wasm(const pvm_wasm_value *w)
{
    spec_value v = {w->type, SPEC_VALUE_BITS, w->bits};
    if (w->type == PVM_WASM_I32 || w->type == PVM_WASM_F32)
        v.bits &= UINT32_MAX;
    if (w->type == PVM_WASM_FUNCREF || w->type == PVM_WASM_EXTERNREF) {
        v.kind = w->bits ? SPEC_VALUE_REF : SPEC_VALUE_NULL;
        v.bits = w->type == PVM_WASM_EXTERNREF && w->bits ? w->bits - 1 : w->bits;
    }
    return v;
}

/* Perform the command's action.  Returns -1 (why says it) if it could not
 * be performed, else PVM_TRAP_NONE with the results in r->results[0..*n),
 * or the trap kind. */
static int perform(runner *r, const spec_json *c, uint32_t *n)
{
    const spec_json *action = spec_json_get(c, "action");
    const char *type = spec_json_str(action, "type"), *field = spec_json_str(action, "field");
    const char *module = spec_json_str(action, "module");
    const spec_json *field_json = spec_json_get(action, "field");
    pvm_wasm_instance *inst = find_instance(r, module);
    pvm_error err = {{0}};
    *n = 0;
    if (!type || !field)
        return failf(r, "action without type or field"), -1;
    if (!inst)
        return failf(r, "no module %s (or it failed to instantiate)",
                     module ? module : "(current)"), -1;
    if (!strcmp(type, "get")) {
        if (pvm_wasm_global_value(inst, field, field_json->len, &r->results[0], &err))
            return failf(r, "get %s: %s", field, err.msg), -1;
        *n = 1;
        return PVM_TRAP_NONE;
    }
    const spec_json *args = spec_json_array(action, "args");
    if (strcmp(type, "invoke") || !args)
        return failf(r, "unknown action %s", type), -1;
    if (args->count > PVM_WASM_MAX_PARAMS)
        return failf(r, "too many arguments"), -1;
    for (size_t i = 0; i < args->count; i++) {
        spec_value v;
        if (!spec_value_parse(&args->items[i], false, &v, r->why, sizeof r->why))
            return -1;
        r->args[i] = to_wasm(&v);
    }
    int trap = pvm_wasm_invoke(inst, field, field_json->len, r->args, (uint32_t)args->count,
                               r->results, PVM_WASM_MAX_RESULTS, n, &err);
    if (trap < 0)
        return failf(r, "invoke %s: %s", field, err.msg), -1;
    return trap;
}

static const char *trap_text(int trap)
{
    return trap == PVM_TRAP_NONE ? "no trap" : pvm_trap_message((unsigned)trap);
}

static outcome do_action(runner *r, const spec_json *c)
{
    uint32_t n;
    int trap = perform(r, c, &n);
    if (trap < 0)
        return FAIL;
    return trap == PVM_TRAP_NONE ? PASS : failf(r, "trapped: %s", trap_text(trap));
}

/* "(i32:1 (0x1), f32:...)" of n values into buf. */
static void format_values(const spec_value *v, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len + VALUE_CAP + 4 < cap; i++) {
        char one[VALUE_CAP];
        spec_value_format(&v[i], one, sizeof one);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", one);
    }
}

static outcome do_assert_return(runner *r, const spec_json *c)
{
    const spec_json *expected = spec_json_array(c, "expected");
    if (!expected || expected->count > PVM_WASM_MAX_RESULTS)
        return failf(r, "bad \"expected\"");
    uint32_t n;
    int trap = perform(r, c, &n);
    if (trap < 0)
        return FAIL;
    if (trap != PVM_TRAP_NONE)
        return failf(r, "trapped: %s", trap_text(trap));
    spec_value *want = malloc((expected->count + n + 1) * sizeof *want), *got;
    if (!want)
        return failf(r, "out of memory");
    got = want + expected->count;
    outcome o = PASS;
    for (size_t i = 0; i < expected->count && o == PASS; i++)
        if (!spec_value_parse(&expected->items[i], true, &want[i], r->why, sizeof r->why))
            o = FAIL;
    for (uint32_t i = 0; i < n; i++)
        got[i] = from_wasm(&r->results[i]);
    bool same = o == PASS && n == expected->count;
    for (uint32_t i = 0; same && i < n; i++)
        same = spec_value_matches(&want[i], &got[i]);
    if (o == PASS && !same) {
        char w[WHY_CAP / 2], g[WHY_CAP / 2];
        format_values(want, expected->count, w, sizeof w);
        format_values(got, n, g, sizeof g);
        o = failf(r, "expected (%s), got (%s)", w, g);
    }
    free(want);
    return o;
}

/* assert_trap (on an action, or on a module: then it is uninstantiable)
 * and assert_exhaustion. */
static outcome do_assert_trap(runner *r, const spec_json *c)
{
    const char *text = spec_json_str(c, "text");
    if (!spec_json_get(c, "action"))
        return expect_status(r, c, PVM_WASM_UNINSTANTIABLE);
    uint32_t n;
    int trap = perform(r, c, &n);
    if (trap < 0)
        return FAIL;
    const char *type = spec_json_str(c, "type");
    bool exhaustion = !strcmp(type, "assert_exhaustion");
    bool ok = trap != PVM_TRAP_NONE &&
              (exhaustion ? trap == PVM_TRAP_STACK_OVERFLOW
                          : text && !strncmp(text, trap_text(trap), strlen(trap_text(trap))));
    return ok ? PASS : failf(r, "expected trap \"%s\", got %s", text ? text : "", trap_text(trap));
}

/* ---- the loop ---------------------------------------------------------- */

static outcome do_unlinkable(runner *r, const spec_json *c)
{
    return expect_status(r, c, PVM_WASM_UNLINKABLE);
}

static outcome do_uninstantiable(runner *r, const spec_json *c)
{
    return expect_status(r, c, PVM_WASM_UNINSTANTIABLE);
}

static const struct {
    const char *type;
    outcome (*run)(runner *r, const spec_json *c);
} commands[] = {
    {"module", do_module},
    {"register", do_register},
    {"action", do_action},
    {"assert_return", do_assert_return},
    {"assert_trap", do_assert_trap},
    {"assert_exhaustion", do_assert_trap},
    {"assert_invalid", expect_rejected},
    {"assert_malformed", expect_rejected},
    {"assert_unlinkable", do_unlinkable},
    {"assert_uninstantiable", do_uninstantiable},
};

static outcome run_command(runner *r, const spec_json *c)
{
    const char *type = spec_json_str(c, "type");
    for (size_t i = 0; type && i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(type, commands[i].type))
            return commands[i].run(r, c);
    return failf(r, "unknown command type %s", type ? type : "(none)");
}

void spec_run_commands(const spec_script *s, spec_totals *t, void *ctx)
{
    (void)ctx;
    runner *r = calloc(1, sizeof *r);
    pvm_error err = {{0}};
    if (r)
        r->store = pvm_wasm_store_new(0);
    if (!r || !r->store || spec_spectest_define(r->store, &err)) {
        printf("  %s: cannot make a store: %s\n", s->name, r ? err.msg : "out of memory");
        t->failed += s->commands->count ? (unsigned)s->commands->count : 1;
        goto done;
    }
    r->s = s;
    for (size_t i = 0; i < s->commands->count; i++) {
        const spec_json *c = &s->commands->items[i];
        r->why[0] = '\0';
        outcome o = run_command(r, c);
        if (o == PASS)
            t->passed++;
        else if (o == SKIP)
            t->skipped++;
        else
            t->failed++;
        if (o == FAIL && s->verbose) {
            long line = 0;
            spec_json_long(c, "line", &line);
            const char *type = spec_json_str(c, "type");
            printf("  %s:%ld: %s: %s\n", s->name, line, type ? type : "(no type)", r->why);
        }
    }
done:
    if (r) {
        pvm_wasm_store_free(r->store);
        for (size_t i = 0; i < r->nnames; i++)
            free(r->names[i].name);
        free(r->names);
        free(r);
    }
}
