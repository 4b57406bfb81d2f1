/*
 * translate.c - the module level of the translator: the type table, host
 * imports (one per module and name of the Wasm function imports, then the
 * bulk operations), unique function names, trampolines for imported
 * functions, heap limits, global and table counts, each defined function's
 * translation, and the verifier's check; or, translating lazily, a stub
 * for each defined function and the translator of one attached (lazy.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "fuse.h"
#include "lazy.h"
#include "translate_internal.h"
#include "verify.h"

char pvm_wasm_type_letter(unsigned valtype)
{
    switch (valtype) {
    case PVM_WASM_I32: return 'i';
    case PVM_WASM_F32: return 'f';
    case PVM_WASM_F64: return 'd';
    case PVM_WASM_FUNCREF: return 'r';
    case PVM_WASM_EXTERNREF: return 'e';
    default: return 'l';
    }
}

/* Type letters of n value types; NULL when out of memory. */
static char *letters(const uint8_t *types, uint32_t n)
{
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        s[i] = pvm_wasm_type_letter(types[i]);
    s[n] = '\0';
    return s;
}

/* ---- host imports ------------------------------------------------------------- */

static bool same_name(pvm_wasm_name a, pvm_wasm_name b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.str, b.str, a.len) == 0);
}

/* The import that Wasm function i (an imported one) comes from. */
static const pvm_wasm_import *func_import(const pvm_wasm_module *wm, uint32_t i)
{
    return &wm->imports[wm->funcs[i].import];
}

/* The slot of first[] (cap a power of two; function import + 1, 0: free)
 * for function import i's module and name: free, or an earlier import's
 * with the same module and name. */
static size_t import_slot(const pvm_wasm_module *wm, const uint32_t *first, size_t cap,
                          uint32_t i)
{
    const pvm_wasm_import *imp = func_import(wm, i);
    uint64_t h = base_fnv1a64_bytes(BASE_FNV1A64_INIT, imp->module.str, imp->module.len);
    h = base_fnv1a64_bytes(h, imp->name.str, imp->name.len);
    for (size_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
        if (!first[k])
            return k;
        const pvm_wasm_import *o = func_import(wm, first[k] - 1);
        if (same_name(o->module, imp->module) && same_name(o->name, imp->name))
            return k;
    }
}

uint32_t *pvm_wasm_host_imports(const pvm_wasm_module *wm, uint32_t *nhosts, pvm_error *err)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)wm->nfunc_imports)
        cap *= 2;
    uint32_t *host = malloc(((size_t)wm->nfunc_imports + 1) * sizeof *host);
    uint32_t *first = calloc(cap, sizeof *first);
    if (!host || !first) {
        free(host);
        free(first);
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    *nhosts = 0;
    for (uint32_t i = 0; i < wm->nfunc_imports; i++) {
        size_t k = import_slot(wm, first, cap, i);
        if (first[k]) {
            host[i] = host[first[k] - 1];
        } else {
            first[k] = i + 1;
            host[i] = (*nhosts)++;
        }
    }
    free(first);
    return host;
}

int tr_host_import(tr_module *mod, const char *name)
{
    /* Past the Wasm imports' host imports, which may have any name. */
    for (uint32_t i = mod->nhosts; i < mod->m->nimports; i++)
        if (strcmp(mod->m->imports[i], name) == 0)
            return (int)i;
    if (mod->lazy) /* a VM may run the module already: its imports are fixed */
        return pvm_errorf(mod->err, "host import %s was not declared (a bug of the translator)",
                          name);
    return pvm_module_add_import(mod->m, name, mod->err);
}

int tr_bulk_import(tr_module *mod, tr_bulk_op op)
{
    static const char *const names[TR_BULK_COUNT] = {
#define TR_BULK_NAME(op, name) PVM_WASM_BULK_PREFIX name,
        TR_BULK_OPS(TR_BULK_NAME)
#undef TR_BULK_NAME
    };
    return tr_host_import(mod, names[op]);
}

/* A lazy translation declares every bulk operation's host import up
 * front, since a VM may run the module before its functions are
 * translated. */
static int declare_bulk_imports(tr_module *mod)
{
    for (unsigned op = 0; op < TR_BULK_COUNT; op++)
        if (tr_bulk_import(mod, (tr_bulk_op)op) < 0)
            return -1;
    return 0;
}

/* ---- names ------------------------------------------------------------------ */

/* A set of names, open addressing (FNV-1a). */
typedef struct name_set {
    char **slots;
    size_t cap;
} name_set;

static size_t name_hash(const char *s)
{
    return (size_t)base_fnv1a64_str(BASE_FNV1A64_INIT, s);
}

/* Insert s unless present; true if inserted. */
static bool name_insert(name_set *set, char *s)
{
    size_t i = name_hash(s) & (set->cap - 1);
    for (; set->slots[i]; i = (i + 1) & (set->cap - 1))
        if (strcmp(set->slots[i], s) == 0)
            return false;
    set->slots[i] = s;
    return true;
}

/* The name of function i: from the name section (printable ASCII kept,
 * other bytes as '_'), else "func[i]"; made unique with "#i", "#i.1" ... */
static char *function_name(const pvm_wasm_module *wm, uint32_t i, name_set *set)
{
    pvm_wasm_name n = wm->funcs[i].name;
    size_t len = n.len < PVM_MAX_NAME - 32 ? n.len : PVM_MAX_NAME - 32;
    char *s = malloc(len + 32);
    if (!s)
        return NULL;
    if (len == 0)
        len = (size_t)snprintf(s, 32, "func[%" PRIu32 "]", i);
    else {
        for (size_t k = 0; k < len; k++) {
            char c = n.str[k];
            s[k] = c > ' ' && c < 127 ? c : '_';
        }
        s[len] = '\0';
    }
    for (uint32_t again = 0; !name_insert(set, s); again++) {
        if (again == 0)
            snprintf(s + len, 32, "#%" PRIu32, i);
        else
            snprintf(s + len, 32, "#%" PRIu32 ".%" PRIu32, i, again);
    }
    return s;
}

/* ---- functions ------------------------------------------------------------- */

/* Function i's code (a trampoline for an import, else its translation,
 * or in a lazy translation a stub: a trap that lazy.h takes for a call
 * to translate it), added to the module. */
static int add_function(tr_module *mod, uint32_t i, const char *name, pvm_buf *code)
{
    const pvm_wasm_functype *ft = pvm_wasm_func_type(mod->wm, i);
    char *params = letters(ft->params, ft->nparams);
    char *results = letters(ft->results, ft->nresults);
    int rc = -1;
    bool ok = params && results; /* else, or when translation fails: err says why */
    code->len = 0;
    code->failed = false;
    if (!ok)
        pvm_errorf(mod->err, "out of memory");
    else if (mod->wm->funcs[i].import != PVM_WASM_NONE) {
        pvm_encode(code, &(pvm_insn){.op = PVM_OP_call_host, .imm = mod->host_of[i]});
        pvm_encode(code, &(pvm_insn){.op = PVM_OP_ret});
    } else if (mod->lazy)
        pvm_encode(code, &(pvm_insn){.op = PVM_OP_trap, .imm = PVM_TRAP_UNREACHABLE});
    else
        ok = tr_function(mod, i, code) == 0;
    if (ok && code->failed)
        pvm_errorf(mod->err, "out of memory");
    else if (ok)
        rc = pvm_module_add_function(mod->m, name, params, results, code->data, code->len,
                                     mod->err);
    free(params);
    free(results);
    return rc < 0 ? -1 : 0;
}

static int add_functions(tr_module *mod)
{
    const pvm_wasm_module *wm = mod->wm;
    name_set set = {NULL, 16};
    while (set.cap < 2 * (size_t)wm->nfuncs)
        set.cap *= 2;
    set.slots = calloc(set.cap, sizeof *set.slots);
    if (!set.slots)
        return pvm_errorf(mod->err, "out of memory");
    int rc = 0;
    pvm_buf code = {0};
    for (uint32_t i = 0; i < wm->nfuncs && rc == 0; i++) {
        char *name = function_name(wm, i, &set);
        if (!name)
            rc = pvm_errorf(mod->err, "out of memory");
        else
            rc = add_function(mod, i, name, &code);
    }
    pvm_buf_free(&code);
    for (size_t k = 0; k < set.cap; k++)
        free(set.slots[k]);
    free(set.slots);
    return rc;
}

/* ---- the module --------------------------------------------------------------- */

static int declare(tr_module *mod)
{
    const pvm_wasm_module *wm = mod->wm;
    pvm_module *m = mod->m;
    for (uint32_t t = 0; t < wm->ntypes; t++) {
        char *params = letters(wm->types[t].params, wm->types[t].nparams);
        char *results = letters(wm->types[t].results, wm->types[t].nresults);
        int rc = params && results ? pvm_module_add_type(m, params, results, mod->err)
                                   : pvm_errorf(mod->err, "out of memory");
        free(params);
        free(results);
        if (rc < 0)
            return -1;
    }
    mod->host_of = pvm_wasm_host_imports(wm, &mod->nhosts, mod->err);
    if (!mod->host_of)
        return -1;
    for (uint32_t i = 0; i < wm->nfunc_imports; i++) {
        if (mod->host_of[i] < m->nimports)
            continue; /* named by an earlier import */
        const pvm_wasm_import *imp = func_import(wm, i);
        size_t len = (size_t)imp->module.len + imp->name.len + 2;
        char *name = malloc(len);
        if (!name)
            return pvm_errorf(mod->err, "out of memory");
        snprintf(name, len, "%.*s.%.*s", (int)imp->module.len, imp->module.str,
                 (int)imp->name.len, imp->name.str);
        int rc = pvm_module_add_import(m, name, mod->err);
        free(name);
        if (rc < 0)
            return -1;
    }
    m->nglobals = wm->nglobals;
    m->ntables = wm->ntables;
    m->heap_reg = PVM_NUM_XREGS - 1; /* x31, TRANSLATION.md */
    if (wm->nmemories > 0) {
        const pvm_wasm_limits *lim = &wm->memories[0].limits;
        m->heap_min = (uint64_t)lim->min * PVM_WASM_PAGE;
        m->heap_max = (uint64_t)(lim->has_max ? lim->max : PVM_WASM_MAX_PAGES) * PVM_WASM_PAGE;
    }
    return 0;
}

/* ---- lazy translation ------------------------------------------------------- */

static int translate_one(void *ctx, uint32_t func, pvm_buf *out, pvm_error *err)
{
    tr_module *mod = ctx;
    mod->err = err;
    return tr_function(mod, func, out);
}

static void free_translator(void *ctx)
{
    tr_module *mod = ctx;
    free(mod->host_of);
    free(mod->body);
    free(mod);
}

/* The translator of m's pending functions attached: 0, or -1 with err
 * (mod freed either way). */
static int attach_translator(tr_module *mod, bool fuse, pvm_error *err)
{
    const pvm_wasm_module *wm = mod->wm;
    bool *pending = malloc(((size_t)wm->nfuncs + 1) * sizeof *pending);
    if (!pending) {
        free_translator(mod);
        return pvm_errorf(err, "out of memory");
    }
    for (uint32_t i = 0; i < wm->nfuncs; i++)
        pending[i] = wm->funcs[i].import == PVM_WASM_NONE;
    int rc = pvm_lazy_attach(mod->m, pending, translate_one, mod, free_translator, fuse, err);
    free(pending);
    return rc;
}

pvm_module *pvm_wasm_translate_lazy(const pvm_wasm_module *wm, const uint64_t *func_refs,
                                    bool fuse, pvm_error *err)
{
    tr_module *mod = calloc(1, sizeof *mod);
    pvm_module *m = mod ? pvm_module_new() : NULL;
    if (!m) {
        free(mod);
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    *mod = (tr_module){.wm = wm, .func_refs = func_refs, .err = err, .m = m};
    int rc = declare(mod) != 0 || declare_bulk_imports(mod) != 0 ? -1 : 0;
    mod->lazy = true; /* the imports are fixed from here on */
    if (rc != 0 || add_functions(mod) != 0 ||
        pvm_verify_module(m, err) != 0 || (fuse && pvm_fuse_module(m, NULL, err) != 0)) {
        free_translator(mod);
        pvm_module_free(m);
        return NULL;
    }
    if (attach_translator(mod, fuse, err) != 0) {
        /* No address space for the code (a ulimit, strict overcommit):
         * translate it all now. */
        pvm_module_free(m);
        m = pvm_wasm_translate_all(wm, func_refs, fuse, err);
    }
    return m;
}

pvm_module *pvm_wasm_translate_all(const pvm_wasm_module *wm, const uint64_t *func_refs,
                                   bool fuse, pvm_error *err)
{
    pvm_module *m = pvm_wasm_translate(wm, func_refs, err);
    if (m && fuse && pvm_fuse_module(m, NULL, err) != 0) {
        pvm_module_free(m);
        m = NULL;
    }
    return m;
}

/* ---- whole modules ------------------------------------------------------------- */

pvm_module *pvm_wasm_translate(const pvm_wasm_module *wm, const uint64_t *func_refs,
                               pvm_error *err)
{
    tr_module mod = {.wm = wm, .func_refs = func_refs, .err = err, .m = pvm_module_new()};
    if (!mod.m) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    if (declare(&mod) != 0 || add_functions(&mod) != 0 || pvm_verify_module(mod.m, err) != 0) {
        pvm_module_free(mod.m);
        mod.m = NULL;
    }
    free(mod.host_of);
    free(mod.body);
    return mod.m;
}
