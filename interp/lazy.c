/*
 * lazy.c - functions translated when first called (lazy.h): the code's
 * reservation that never moves, the stubs still waiting, and each
 * function's translation fused (in a macro build), verified and appended.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "lazy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/grow.h"
#include "fuse.h"
#include "verify.h"

struct pvm_lazy {
    pvm_module *m;
    pvm_lazy_translate_fn translate;
    void *ctx;
    void (*free_ctx)(void *);
    bool *pending;          /* per function: still a stub */
    uint32_t nstubs;
    size_t stubs_end;       /* code below: as attached, functions in index order */
    size_t stub_run_begin, stub_run_end; /* the stubs, when no other code lies between */
    uint32_t *first_offset; /* each function's offset when attached */
    uint32_t *order;        /* functions translated since, in address order */
    size_t norder, order_cap;
    size_t reserved;        /* bytes of address space holding m->code */
    size_t usable;          /* of them, readable and writable (the rest: not yet) */
    size_t starts_cap;      /* bytes of m->insn_starts */
    pvm_lazy_observer_fn observe;
    void *observe_ctx;
    pvm_buf code, fused;    /* scratch: the translation, the fused code */
    pvm_fuse_scratch *fuser; /* with fusion: the fusion pass's arrays */
    pvm_error error; /* of the last failed materialisation */
};

void pvm_lazy_free(pvm_module *m)
{
    pvm_lazy *z = m->lazy;
    if (!z)
        return;
    if (z->free_ctx)
        z->free_ctx(z->ctx);
    munmap(m->code, z->reserved);
    m->code = NULL;
    free(z->pending);
    free(z->first_offset);
    free(z->order);
    pvm_buf_free(&z->code);
    pvm_buf_free(&z->fused);
    pvm_fuse_scratch_free(z->fuser);
    free(z);
    m->lazy = NULL;
}

static size_t whole_pages(size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t p = page > 0 ? (size_t)page : 4096;
    return (n + p - 1) / p * p;
}

/* The code from the first stub to the end of the last, if it holds only
 * stubs (else the run stays empty).  Functions as attached are in index
 * order. */
static void find_stub_run(pvm_lazy *z, const pvm_module *m)
{
    uint32_t first = m->nfuncs, last = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (z->pending[i]) {
            first = first < i ? first : i;
            last = i;
        }
    for (uint32_t i = first; i < last; i++)
        if (!z->pending[i] && m->funcs[i].size > 0)
            return;
    if (first < m->nfuncs) {
        z->stub_run_begin = m->funcs[first].offset;
        z->stub_run_end = (size_t)m->funcs[last].offset + m->funcs[last].size;
    }
}

int pvm_lazy_attach(pvm_module *m, const bool *pending, pvm_lazy_translate_fn translate,
                    void *ctx, void (*free_ctx)(void *), bool fuse, pvm_error *err)
{
    pvm_lazy *z = calloc(1, sizeof *z);
    if (!z) {
        if (free_ctx)
            free_ctx(ctx);
        return pvm_errorf(err, "out of memory");
    }
    *z = (pvm_lazy){.m = m, .translate = translate, .ctx = ctx, .free_ctx = free_ctx,
                    .stubs_end = m->code_size,
                    .reserved = whole_pages((size_t)PVM_MAX_CODE + PVM_CODE_PADDING),
                    .starts_cap = pvm_insn_starts_bytes(m->code_size)};
    z->pending = malloc(((size_t)m->nfuncs + 1) * sizeof *z->pending);
    z->first_offset = malloc(((size_t)m->nfuncs + 1) * sizeof *z->first_offset);
    if (fuse && pvm_fuse_has_macros())
        z->fuser = pvm_fuse_scratch_new();
    /* Reserved inaccessible, opened as code is written: a system that
     * counts committed memory strictly charges only what is used. */
    void *base = mmap(NULL, z->reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
    z->usable = whole_pages(m->code_size + PVM_CODE_PADDING);
    int rc = 0;
    if (!z->pending || !z->first_offset || (fuse && pvm_fuse_has_macros() && !z->fuser))
        rc = pvm_errorf(err, "out of memory");
    else if (base == MAP_FAILED)
        rc = pvm_errorf(err, "cannot reserve %zu bytes of address space for code: %s",
                        z->reserved, strerror(errno));
    else if (mprotect(base, z->usable, PROT_READ | PROT_WRITE) != 0)
        rc = pvm_errorf(err, "cannot make %zu bytes of code accessible: %s", z->usable,
                        strerror(errno));
    else if (!m->verified)
        rc = pvm_errorf(err, "the module is not verified");
    for (uint32_t i = 0; rc == 0 && i < m->nfuncs; i++) {
        z->pending[i] = pending[i];
        z->nstubs += pending[i];
        z->first_offset[i] = m->funcs[i].offset;
        if (i > 0 && m->funcs[i].offset < m->funcs[i - 1].offset)
            rc = pvm_errorf(err, "function %s: code not in the order of the functions",
                            m->funcs[i].name);
    }
    if (rc == 0)
        find_stub_run(z, m);
    if (rc != 0) { /* m stays as it was */
        if (base != MAP_FAILED)
            munmap(base, z->reserved);
        if (free_ctx)
            free_ctx(ctx);
        free(z->pending);
        free(z->first_offset);
        pvm_fuse_scratch_free(z->fuser);
        free(z);
        return -1;
    }
    memcpy(base, m->code, m->code_size + PVM_CODE_PADDING); /* the rest reads as zero */
    free(m->code);
    m->code = base;
    m->code_cap = z->reserved;
    m->lazy = z;
    return 0;
}

bool pvm_lazy_pending(const pvm_module *m, uint32_t func)
{
    return m->lazy && func < m->nfuncs && m->lazy->pending[func];
}

uint32_t pvm_lazy_translated(const pvm_module *m)
{
    return m->lazy ? (uint32_t)m->lazy->norder : 0;
}

uint32_t pvm_lazy_stubs(const pvm_module *m)
{
    return m->lazy ? m->lazy->nstubs : 0;
}

bool pvm_lazy_stub_code(const pvm_module *m, size_t *begin, size_t *end)
{
    const pvm_lazy *z = m->lazy;
    if (!z || z->stub_run_end == z->stub_run_begin)
        return false;
    *begin = z->stub_run_begin;
    *end = z->stub_run_end;
    return true;
}

void pvm_lazy_observe(const pvm_module *m, pvm_lazy_observer_fn observe, void *ctx)
{
    if (m->lazy) {
        m->lazy->observe = observe;
        m->lazy->observe_ctx = ctx;
    }
}

const char *pvm_lazy_error(const pvm_module *m)
{
    return m->lazy ? m->lazy->error.msg : "";
}

uint32_t pvm_lazy_func_at(const pvm_module *m, size_t off)
{
    const pvm_lazy *z = m->lazy;
    /* The last function starting at or before off: among the functions as
     * attached (an empty one shares its offset with the next), or among
     * those appended since. */
    uint32_t lo = 0, hi;
    if (off < z->stubs_end || z->norder == 0) {
        for (hi = m->nfuncs; hi - lo > 1;) {
            uint32_t mid = lo + (hi - lo) / 2;
            *(z->first_offset[mid] <= off ? &lo : &hi) = mid;
        }
        return lo;
    }
    for (hi = (uint32_t)z->norder; hi - lo > 1;) {
        uint32_t mid = lo + (hi - lo) / 2;
        *(m->funcs[z->order[mid]].offset <= off ? &lo : &hi) = mid;
    }
    return z->order[lo];
}

/* ---- materialising a function -------------------------------------------- */

/* Room in insn_starts for code up to offset end. */
static int grow_starts(pvm_lazy *z, size_t end)
{
    size_t need = pvm_insn_starts_bytes(end);
    if (need <= z->starts_cap)
        return 0;
    size_t cap = pvm_insn_starts_bytes(end + end / 2);
    uint8_t *s = realloc(z->m->insn_starts, cap);
    if (!s)
        return -1;
    memset(s + z->starts_cap, 0, cap - z->starts_cap);
    z->m->insn_starts = s;
    z->starts_cap = cap;
    return 0;
}

static void clear_starts(uint8_t *starts, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        starts[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* Room for len bytes of function func's code past m's code (and the
 * padding after them), opened for writing: 0, or -1 with err. */
static int room_for(pvm_lazy *z, uint32_t func, size_t len, pvm_error *err)
{
    const pvm_module *m = z->m;
    if (len > PVM_MAX_CODE - m->code_size || len == 0)
        return pvm_errorf(err, "function %s: %zu bytes of code%s", m->funcs[func].name, len,
                          len ? " would exceed the module's code limit" : ": nothing translated");
    size_t need = m->code_size + len + PVM_CODE_PADDING;
    if (need <= z->usable)
        return 0;
    size_t usable = whole_pages(need + need / 4); /* grown by a quarter at least */
    if (usable > z->reserved)
        usable = z->reserved;
    if (mprotect(m->code + z->usable, usable - z->usable, PROT_READ | PROT_WRITE) != 0)
        return pvm_errorf(err, "function %s: out of memory for its code", m->funcs[func].name);
    z->usable = usable;
    return 0;
}

/* Put len bytes past the module's code and verify them as function func's
 * code there: 0, or -1 with err (the bytes and their starts cleared). */
static int place_and_verify(pvm_lazy *z, uint32_t func, const uint8_t *code, size_t len,
                            pvm_error *err)
{
    pvm_module *m = z->m;
    size_t at = m->code_size;
    if (room_for(z, func, len, err) != 0)
        return -1;
    if (grow_starts(z, at + len) != 0)
        return pvm_errorf(err, "out of memory");
    memcpy(m->code + at, code, len);
    pvm_function view = m->funcs[func];
    view.offset = (uint32_t)at;
    view.size = (uint32_t)len;
    if (pvm_verify_function(m, &view, m->insn_starts, err) == 0)
        return 0;
    clear_starts(m->insn_starts, at, at + len);
    memset(m->code + at, 0, len);
    return -1;
}

static int materialize(pvm_lazy *z, uint32_t func, pvm_error *err)
{
    pvm_module *m = z->m;
    if (BASE_GROW(z->order, z->order_cap, z->norder + 1, 64) != 0)
        return pvm_errorf(err, "out of memory");
    if (z->translate(z->ctx, func, &z->code, err) != 0)
        return -1;
    if (z->code.failed)
        return pvm_errorf(err, "out of memory");
    size_t at = m->code_size, len = z->code.len;
    if (!z->fuser) {
        if (place_and_verify(z, func, z->code.data, len, err) != 0)
            return -1;
    } else {
        /* The translation goes past the code for the fusion pass to read,
         * unverified: the pass refuses code that does not decode or whose
         * branches land on no instruction, and what it writes is verified
         * (as eagerly: no code runs before it passed the verifier). */
        if (room_for(z, func, len, err) != 0)
            return -1;
        memcpy(m->code + at, z->code.data, len);
        pvm_function view = m->funcs[func];
        view.offset = (uint32_t)at;
        view.size = (uint32_t)len;
        z->fused.len = 0;
        int rc = pvm_fuse_function(m, &view, z->fuser, &z->fused, NULL);
        memset(m->code + at, 0, len);
        if (rc == PVM_FUSE_BAD_CODE)
            return pvm_errorf(err, "function %s: its translation does not decode or branches "
                              "into an instruction (a bug of the translator)",
                              m->funcs[func].name);
        if (rc != 0 || z->fused.failed)
            return pvm_errorf(err, "fusing function %s: out of memory", m->funcs[func].name);
        pvm_error verr;
        if (place_and_verify(z, func, z->fused.data, z->fused.len, &verr) != 0)
            return pvm_errorf(err, "fused code does not verify (a bug of the fusion pass): %s",
                              verr.msg);
        len = z->fused.len;
    }
    m->code_size = at + len; /* the padding after it reads as zero */
    m->funcs[func].offset = (uint32_t)at;
    m->funcs[func].size = (uint32_t)len;
    z->pending[func] = false;
    z->nstubs--;
    z->order[z->norder++] = func;
    if (z->observe)
        z->observe(z->observe_ctx, m, func);
    return 0;
}

int pvm_lazy_materialize(const pvm_module *m, uint32_t func, pvm_error *err)
{
    pvm_lazy *z = m->lazy;
    if (!pvm_lazy_pending(m, func))
        return 0;
    pvm_error local;
    if (!err)
        err = &local;
    int rc = materialize(z, func, err);
    if (rc != 0)
        z->error = *err;
    return rc;
}

int pvm_lazy_materialize_all(const pvm_module *m, pvm_error *err)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (pvm_lazy_materialize(m, i, err) != 0)
            return -1;
    return 0;
}
