/*
 * func_rows.c - a function decoded into packed rows (see func_rows.h).
 * A row is its offset, length and opcode (4 bytes each, native order)
 * followed by text, regs, imms and targets, each NUL-terminated.
 */
#include "func_rows.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "func_checksum.h"
#include "stored_text.h"

void pp__func_decoder_free(func_decoder *d)
{
    free(d->insn.targets);
    free(d->targets);
    *d = (func_decoder){0};
}

/* Append n bytes to f's buffer, which has room for them. */
static void put(func_rows *f, const void *bytes, size_t n)
{
    memcpy(f->buf + f->len, bytes, n);
    f->len += n;
}

/* The targets as the list "12 40" in d->targets; 0 or -1. */
static int format_targets(func_decoder *d)
{
    const pulleyprof_insn *in = &d->insn;
    if (BASE_GROW(d->targets, d->targets_cap, in->ntargets * 11 + 1, 64) != 0)
        return -1;
    size_t len = 0;
    d->targets[0] = '\0';
    for (size_t i = 0; i < in->ntargets; i++) {
        if (i)
            d->targets[len++] = ' ';
        int64_t t = in->targets[i];
        fmt_write_ints(d->targets + len, d->targets_cap - len, &t, 1); /* fits: 10 digits */
        len += strlen(d->targets + len);
    }
    return 0;
}

/* Append the instruction just decoded at off; 0 or -1. */
static int add_row(func_rows *f, func_decoder *d, uint32_t off)
{
    const pulleyprof_insn *in = &d->insn;
    char regs[PULLEYPROF_MAX_REGS * 12], imms[PULLEYPROF_MAX_IMMS * 22];
    int64_t v[PULLEYPROF_MAX_REGS];
    for (unsigned i = 0; i < in->nregs; i++)
        v[i] = in->regs[i];
    fmt_write_ints(regs, sizeof regs, v, in->nregs);
    fmt_write_ints(imms, sizeof imms, in->imms, in->nimms);
    if (format_targets(d) != 0)
        return -1;
    uint32_t head[3] = {off, in->length, in->opcode};
    const char *strs[4] = {d->text, regs, imms, d->targets};
    size_t lens[4], need = f->len + sizeof head;
    for (int i = 0; i < 4; i++)
        need += lens[i] = strlen(strs[i]) + 1;
    if (BASE_GROW(f->buf, f->cap, need, 256) != 0)
        return -1;
    put(f, head, sizeof head);
    for (int i = 0; i < 4; i++)
        put(f, strs[i], lens[i]);
    f->checksum = pvm_checksum_row(f->checksum, off, in->length, in->opcode, d->text);
    f->checksum = pvm_checksum_operands(f->checksum, regs, imms, d->targets);
    f->nrows++;
    return 0;
}

int pp__func_rows_decode(func_rows *out, uint8_t *starts, uint8_t *ends, const isa_rows *isa,
                         const void *ctx, const uint8_t *code, size_t size, func_decoder *d)
{
    func_rows f = {.checksum = pvm_checksum_bytes(PVM_CHECKSUM_START, code, size)};
    for (size_t off = 0; off < size; off += d->insn.length) {
        const pulleyprof_opcode *row =
            pp__isa_rows_decode(isa, ctx, code, size, off, &d->insn, d->text, sizeof d->text);
        if (!row) {
            f.cut_short = true;
            break;
        }
        if (add_row(&f, d, (uint32_t)off) != 0) {
            free(f.buf);
            return -1;
        }
        starts[off / 8] |= (uint8_t)(1u << (off % 8));
        if (row->flags & PP_RUN_END_FLAGS)
            ends[off / 8] |= (uint8_t)(1u << (off % 8));
    }
    *out = f;
    return 0;
}

/* The string at *pos, advancing past its NUL. */
static const char *take_str(const func_rows *f, size_t *pos)
{
    const char *s = (const char *)f->buf + *pos;
    *pos += strlen(s) + 1;
    return s;
}

bool pp__func_rows_next(const func_rows *f, size_t *pos, func_row *row)
{
    if (!f->buf || *pos >= f->len)
        return false;
    uint32_t head[3];
    memcpy(head, f->buf + *pos, sizeof head);
    *pos += sizeof head;
    row->offset = head[0], row->length = head[1], row->opcode = head[2];
    row->text = take_str(f, pos);
    row->regs = take_str(f, pos);
    row->imms = take_str(f, pos);
    row->targets = take_str(f, pos);
    return true;
}

void pp__func_rows_release(func_rows *f)
{
    free(f->buf);
    f->buf = NULL;
    f->len = f->cap = 0;
}

size_t pp__func_rows_start_at(const uint8_t *starts, size_t off)
{
    for (size_t at = off + 1; at-- > 0;) {
        if (at % 8 == 7 && starts[at / 8] == 0) { /* a whole byte without a start */
            at -= 7;
            continue;
        }
        if (starts[at / 8] & (1u << (at % 8)))
            return at;
    }
    return off;
}
