/*
 * fuse_module.c - fusing a whole module (pvm_fuse_module in fuse.h): each
 * function through the pass of fuse.c, the new code swapped in and
 * verified again.
 */
#include <stdlib.h>
#include <string.h>

#include "fuse.h"
#include "verify.h"

/* Fuse every function of m into code: where each now starts in it and
 * its size into offsets[] and sizes[], the counts into st.  Returns 0, or
 * -1 (out of memory). */
static int fuse_functions(const pvm_module *m, pvm_buf *code, uint32_t *offsets,
                          uint32_t *sizes, pvm_fuse_stats *st)
{
    pvm_fuse_scratch *w = pvm_fuse_scratch_new();
    int rc = w ? 0 : -1;
    for (uint32_t fi = 0; rc == 0 && fi < m->nfuncs; fi++) {
        pvm_fuse_stats one;
        offsets[fi] = (uint32_t)code->len;
        rc = pvm_fuse_function(m, &m->funcs[fi], w, code, &one) == 0 ? 0 : -1;
        sizes[fi] = (uint32_t)code->len - offsets[fi];
        st->insns_before += one.insns_before;
        st->insns_after += one.insns_after;
        st->macros += one.macros;
    }
    pvm_fuse_scratch_free(w);
    return rc;
}

/* Swap the fused code in (blob: len bytes and the padding, which m takes;
 * the functions at offsets[] with sizes[]) and verify it; if - a bug - it
 * does not verify, put the old code back.  Returns 0, or -1 with err (m
 * unchanged then). */
static int install_code(pvm_module *m, uint8_t *blob, size_t len, const uint32_t *offsets,
                        const uint32_t *sizes, pvm_error *err)
{
    uint8_t *old_code = m->code;
    size_t old_size = m->code_size, old_cap = m->code_cap;
    uint32_t *old_off = malloc((m->nfuncs + 1) * sizeof *old_off);
    uint32_t *old_sz = malloc((m->nfuncs + 1) * sizeof *old_sz);
    if (!old_off || !old_sz) {
        free(old_off), free(old_sz), free(blob);
        return pvm_errorf(err, "fusing the module: out of memory");
    }
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        old_off[fi] = m->funcs[fi].offset, old_sz[fi] = m->funcs[fi].size;
        m->funcs[fi].offset = offsets[fi], m->funcs[fi].size = sizes[fi];
    }
    m->code = blob;
    m->code_size = len;
    m->code_cap = len + PVM_CODE_PADDING;
    pvm_error verr;
    if (pvm_verify_module(m, &verr) != 0) {
        free(m->code);
        m->code = old_code, m->code_size = old_size, m->code_cap = old_cap;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++)
            m->funcs[fi].offset = old_off[fi], m->funcs[fi].size = old_sz[fi];
        free(old_off), free(old_sz);
        pvm_verify_module(m, NULL);
        return pvm_errorf(err, "fused code does not verify (a bug of the fusion pass): %s",
                          verr.msg);
    }
    free(old_code);
    free(old_off), free(old_sz);
    return 0;
}

int pvm_fuse_module(pvm_module *m, pvm_fuse_stats *stats, pvm_error *err)
{
    pvm_fuse_stats st = {0};
    if (stats)
        *stats = st;
    if (!pvm_fuse_has_macros())
        return 0;
    pvm_buf code = {0};
    uint32_t *offsets = malloc((m->nfuncs + 1) * sizeof *offsets);
    uint32_t *sizes = malloc((m->nfuncs + 1) * sizeof *sizes);
    int rc = offsets && sizes ? fuse_functions(m, &code, offsets, sizes, &st) : -1;
    uint8_t *blob = NULL;
    if (rc == 0 && !code.failed && (blob = malloc(code.len + PVM_CODE_PADDING))) {
        if (code.len)
            memcpy(blob, code.data, code.len);
        memset(blob + code.len, 0, PVM_CODE_PADDING);
    } else {
        rc = -1;
    }
    st.bytes_before = m->code_size;
    st.bytes_after = code.len;
    size_t len = code.len;
    pvm_buf_free(&code);
    if (rc == 0)
        rc = install_code(m, blob, len, offsets, sizes, err);
    else
        rc = pvm_errorf(err, "fusing the module: out of memory");
    free(offsets);
    free(sizes);
    if (rc == 0 && stats)
        *stats = st;
    return rc;
}
