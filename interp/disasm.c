/*
 * disasm.c - the disassembler: one instruction as .pasm text, and a whole
 * module as a .pasm file that re-assembles to identical bytes.  Operands
 * are printed by the opcode's format (opcodes.def); names, strings and
 * floats are written so that asm_lexer.c reads them back unchanged.
 */
#include "disasm.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "asm_lexer.h"
#include "base/grow.h"

/* ---- text into a buffer ----------------------------------------------------- */

typedef struct strbuf {
    char *buf;
    size_t cap, len; /* len counts every character produced, even unstored */
    bool grow;       /* grow buf to fit; else truncate as snprintf does */
    bool failed;     /* growing ran out of memory */
} strbuf;

static void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    size_t room = sb->len < sb->cap ? sb->cap - sb->len : 0;
    int n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
    if (n >= 0 && (size_t)n >= room && sb->grow && !sb->failed) {
        size_t need = sb->len + (size_t)n + 1;
        if (BASE_GROW(sb->buf, sb->cap, need, 0) == 0)
            vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, again);
        else
            sb->failed = true;
    }
    va_end(again);
    va_end(ap);
    if (n > 0)
        sb->len += (size_t)n;
}

/* n characters, as sb_printf("%.*s") would append them, without formatting
 * (an instruction's text is most of a profile's catalog cost). */
static void sb_append(strbuf *sb, const char *s, size_t n)
{
    if (sb->len + n >= sb->cap && sb->grow && !sb->failed &&
        BASE_GROW(sb->buf, sb->cap, sb->len + n + 1, 0) != 0)
        sb->failed = true;
    if (sb->len < sb->cap) { /* as much as fits, and the NUL */
        size_t k = sb->cap - sb->len - 1 < n ? sb->cap - sb->len - 1 : n;
        memcpy(sb->buf + sb->len, s, k);
        sb->buf[sb->len + k] = '\0';
    }
    sb->len += n;
}

static void sb_str(strbuf *sb, const char *s) { sb_append(sb, s, strlen(s)); }

/* v in decimal, with its sign; plus: a '+' before one >= 0 too. */
static void sb_int(strbuf *sb, int64_t v, bool plus)
{
    char digits[24], *p = digits + sizeof digits;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0 || plus)
        *--p = v < 0 ? '-' : '+';
    sb_append(sb, p, (size_t)(digits + sizeof digits - p));
}

/* Bytes as they are written between double quotes. */
static void sb_escaped(strbuf *sb, const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char e[4];
        int n = pasm_escape_byte(e, bytes[i]);
        sb_printf(sb, "%.*s", n, e);
    }
}

/* A name, bare if it is an identifier, else quoted. */
static void sb_name(strbuf *sb, const char *name)
{
    size_t len = strlen(name);
    if (pasm_is_bare_name(name, len)) {
        sb_printf(sb, "%s", name);
        return;
    }
    sb_printf(sb, "\"");
    sb_escaped(sb, (const uint8_t *)name, len);
    sb_printf(sb, "\"");
}

/* A function or import operand: its name, or #N when it has none. */
static void sb_ref(strbuf *sb, const char *name, int64_t index)
{
    if (name)
        sb_name(sb, name);
    else
        sb_printf(sb, "#%" PRId64, index);
}

/* Type letters as the assembler's type names: " i32 i64 -> f64". */
static void sb_signature(strbuf *sb, const char *params, const char *results)
{
    for (const char *t = params; *t; t++)
        sb_printf(sb, " %s", pasm_type_name(*t));
    if (*results)
        sb_printf(sb, " ->");
    for (const char *t = results; *t; t++)
        sb_printf(sb, " %s", pasm_type_name(*t));
}

void pvm_format_float(uint64_t bits, bool f64, char text[PVM_FLOAT_TEXT_MAX])
{
    bool nan;
    if (f64) {
        double v = pvm_f64_from_bits(bits);
        nan = isnan(v);
        snprintf(text, PVM_FLOAT_TEXT_MAX, "%.17g", v);
    } else {
        float v = pvm_f32_from_bits((uint32_t)bits);
        nan = isnan(v);
        snprintf(text, PVM_FLOAT_TEXT_MAX, "%.9g", (double)v);
    }
    uint64_t back;
    if (!nan && !pasm_float_bits(text, strlen(text), f64, &back) && back == bits)
        return;
    if (f64)
        snprintf(text, PVM_FLOAT_TEXT_MAX, "0x%016" PRIx64, bits);
    else
        snprintf(text, PVM_FLOAT_TEXT_MAX, "0x%08" PRIx32, (uint32_t)bits);
}

static void sb_float(strbuf *sb, uint64_t bits, bool f64)
{
    char text[PVM_FLOAT_TEXT_MAX];
    pvm_format_float(bits, f64, text);
    sb_printf(sb, "%s", text);
}

/* ---- one instruction -------------------------------------------------------- */

/* Where a function's labels are: bit i set for offset i (0 <= i <= size). */
typedef struct label_map {
    const uint8_t *bits;
    size_t size;
} label_map;

static bool has_label(const label_map *labels, int64_t off)
{
    return labels && off >= 0 && (uint64_t)off <= labels->size &&
           (labels->bits[off >> 3] >> (off & 7) & 1);
}

/* A branch target `rel` bytes from the instruction at `at`. */
static void sb_target(strbuf *sb, size_t at, int32_t rel, const label_map *labels)
{
    int64_t target = (int64_t)at + rel;
    if (has_label(labels, target))
        sb_printf(sb, ".L%" PRIx64, (uint64_t)target);
    else
        sb_int(sb, rel, true);
}

/* Immediate i of insn. */
static void format_imm(strbuf *sb, const pvm_insn *insn, unsigned i, size_t at,
                       const pvm_module *m, const label_map *labels)
{
    pvm_imm_kind kind = (pvm_imm_kind)pvm_insn_format(insn)->imm[i];
    int64_t imm = insn->imms[i];
    switch (kind) {
    case PVM_IMM_REL32:
        sb_target(sb, at, (int32_t)imm, labels);
        break;
    case PVM_IMM_TABLE:
        for (uint32_t e = 0; e < (uint32_t)imm; e++) {
            sb_printf(sb, e ? ", " : "[");
            sb_target(sb, at, pvm_insn_table_entry(insn, e), labels);
        }
        sb_printf(sb, "]");
        break;
    case PVM_IMM_FUNC:
        sb_ref(sb, m && imm < m->nfuncs ? m->funcs[imm].name : NULL, imm);
        break;
    case PVM_IMM_HOST:
        sb_ref(sb, m && imm < m->nimports ? m->imports[imm] : NULL, imm);
        break;
    case PVM_IMM_TRAP:
        if (imm < PVM_TRAP_COUNT)
            sb_printf(sb, "%s", pvm_trap_name((unsigned)imm));
        else
            sb_printf(sb, "%" PRId64, imm);
        break;
    case PVM_IMM_F32:
    case PVM_IMM_F64:
        sb_float(sb, (uint64_t)imm, kind == PVM_IMM_F64);
        break;
    case PVM_IMM_GLOBAL:
    case PVM_IMM_TABLEIDX:
    case PVM_IMM_TYPE:
        sb_printf(sb, "#%" PRId64, imm);
        break;
    default: /* integers, held signed or zero-extended as the kind says */
        sb_int(sb, imm, false);
        break;
    }
}

static void format_insn(strbuf *sb, const pvm_insn *insn, size_t at, const pvm_module *m,
                        const label_map *labels)
{
    const pvm_format_info *fmt = pvm_insn_format(insn);
    sb_str(sb, pvm_ops[insn->op].name);
    for (unsigned i = 0; i < fmt->nregs; i++) {
        sb_str(sb, i ? ", " : " ");
        sb_append(sb, fmt->reg[i] == PVM_REG_X ? "x" : "f", 1);
        sb_int(sb, insn->reg[i], false);
    }
    for (unsigned i = 0; i < fmt->nimms; i++) {
        sb_str(sb, fmt->nregs || i ? ", " : " ");
        format_imm(sb, insn, i, at, m, labels);
    }
}

int pvm_format_insn(char *buf, size_t cap, const pvm_insn *insn, size_t at,
                    const pvm_module *m)
{
    strbuf sb = {.buf = buf, .cap = cap};
    if (cap)
        buf[0] = 0;
    format_insn(&sb, insn, at, m, NULL);
    return sb.len > INT32_MAX ? INT32_MAX : (int)sb.len;
}

/* ---- a whole module ------------------------------------------------------- */

static void set_bit(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }

/* Decode every instruction of f and fill `labels` (size / 8 + 1 zeroed
 * bytes, as `starts`): a bit for each branch target that is an instruction
 * start or the end of the function. */
static int find_labels(const pvm_module *m, const pvm_function *f, uint8_t *labels,
                       uint8_t *starts, pvm_error *err)
{
    const uint8_t *code = m->code + f->offset;
    for (size_t off = 0; off < f->size;) {
        pvm_insn insn;
        const char *msg = pvm_decode(code, f->size, off, &insn);
        if (msg)
            return pvm_errorf(err, "function %s, offset 0x%zx: %s", f->name, off, msg);
        set_bit(starts, (int64_t)off);
        const pvm_format_info *fmt = pvm_insn_format(&insn);
        for (unsigned k = 0; k < fmt->nimms; k++) {
            uint32_t ntargets = fmt->imm[k] == PVM_IMM_REL32   ? 1
                                : fmt->imm[k] == PVM_IMM_TABLE ? (uint32_t)insn.imms[k]
                                                               : 0;
            for (uint32_t i = 0; i < ntargets; i++) {
                int64_t target = (int64_t)off + (fmt->imm[k] == PVM_IMM_REL32
                                                     ? insn.imms[k]
                                                     : pvm_insn_table_entry(&insn, i));
                if (target >= 0 && target <= f->size)
                    set_bit(labels, target);
            }
        }
        off += insn.length;
    }
    set_bit(starts, f->size);
    for (size_t i = 0; i <= f->size / 8; i++)
        labels[i] &= starts[i];
    return 0;
}

/* Write the text gathered in sb and start a new line. */
static void emit(FILE *out, strbuf *sb)
{
    if (!sb->failed && sb->len)
        fwrite(sb->buf, 1, sb->len, out);
    sb->len = 0;
}

/* Pad the line in sb with spaces to column `col` (at least one space). */
static void sb_pad(strbuf *sb, size_t col)
{
    sb_printf(sb, "%*s", sb->len < col ? (int)(col - sb->len) : 1, "");
}

/* A function in a directive: its name, or #N where the name would read
 * as something else (null). */
static void sb_func(strbuf *sb, const pvm_module *m, uint32_t f)
{
    const char *name = f < m->nfuncs ? m->funcs[f].name : NULL;
    sb_ref(sb, name && strcmp(name, "null") != 0 ? name : NULL, f);
}

/* .heap_base, .start, .global, .table and .elem: the initial state beyond
 * code and data. */
static void print_state(strbuf *sb, const pvm_module *m)
{
    if (m->heap_reg != PVM_NO_HEAP_REG)
        sb_printf(sb, ".heap_base x%u\n", m->heap_reg);
    if (m->start != PVM_NO_ENTRY) {
        sb_printf(sb, ".start ");
        sb_func(sb, m, m->start);
        sb_printf(sb, "\n");
    }
    for (uint32_t i = 0; m->global_init && i < m->nglobals; i++)
        if (m->global_init[i])
            sb_printf(sb, ".global #%" PRIu32 " 0x%" PRIx64 "\n", i, m->global_init[i]);
    for (uint32_t i = 0; m->table_decl && i < m->ntables; i++)
        if (m->table_decl[i].size || m->table_decl[i].max)
            sb_printf(sb, ".table #%" PRIu32 " %" PRIu32 " %" PRIu32 "\n", i,
                      m->table_decl[i].size, m->table_decl[i].max);
    for (uint32_t i = 0; i < m->nelems; i++) {
        const pvm_elem_segment *e = &m->elems[i];
        sb_printf(sb, ".elem #%" PRIu32 " %" PRIu32, e->table, e->offset);
        for (uint32_t k = 0; k < e->count; k++) {
            sb_printf(sb, " ");
            if (e->funcs[k] == PVM_NO_ENTRY)
                sb_printf(sb, "null");
            else
                sb_func(sb, m, e->funcs[k]);
        }
        sb_printf(sb, "\n");
    }
}

static void print_directives(FILE *out, strbuf *sb, const pvm_module *m)
{
    if (m->entry != PVM_NO_ENTRY) {
        sb_printf(sb, ".entry ");
        sb_ref(sb, m->entry < m->nfuncs ? m->funcs[m->entry].name : NULL, m->entry);
        sb_printf(sb, "\n");
    } else if (pvm_module_find_function(m, "main") >= 0) {
        sb_printf(sb, ".noentry\n");
    }
    if (m->heap_min || m->heap_max)
        sb_printf(sb, ".memory %" PRIu64 " %" PRIu64 "\n", m->heap_min, m->heap_max);
    if (m->nglobals)
        sb_printf(sb, ".globals %" PRIu32 "\n", m->nglobals);
    if (m->ntables)
        sb_printf(sb, ".tables %" PRIu32 "\n", m->ntables);
    for (uint32_t i = 0; i < m->nimports; i++) {
        sb_printf(sb, ".import ");
        sb_name(sb, m->imports[i]);
        sb_printf(sb, "\n");
    }
    for (uint32_t i = 0; i < m->ntypes; i++) {
        size_t line_start = sb->len;
        sb_printf(sb, ".type");
        sb_signature(sb, m->types[i].params, m->types[i].results);
        sb_pad(sb, line_start + 36);
        sb_printf(sb, "; #%" PRIu32 "\n", i);
    }
    for (uint32_t i = 0; i < m->ndata; i++) {
        sb_printf(sb, ".data %" PRIu64 " \"", m->data[i].offset);
        sb_escaped(sb, m->data[i].bytes, m->data[i].size);
        sb_printf(sb, "\"\n");
    }
    print_state(sb, m);
    if (sb->len)
        sb_printf(sb, "\n");
    emit(out, sb);
}

/* The function's code, already known to decode, with labels. */
static void print_function(FILE *out, strbuf *sb, const pvm_module *m, uint32_t index,
                           const label_map *labels, const pvm_disasm_options *opt)
{
    const pvm_function *f = &m->funcs[index];
    sb_printf(sb, ".func ");
    sb_name(sb, f->name);
    sb_signature(sb, f->params, f->results);
    sb_pad(sb, 36);
    sb_printf(sb, "; #%" PRIu32 ", %" PRIu32 " bytes @%08" PRIx32 "\n", index, f->size,
              f->offset);
    emit(out, sb);

    const uint8_t *code = m->code + f->offset;
    pvm_insn insn;
    for (size_t off = 0; off < f->size; off += insn.length) {
        pvm_decode(code, f->size, off, &insn);
        if (has_label(labels, (int64_t)off))
            sb_printf(sb, ".L%zx:\n", off);
        size_t line_start = sb->len;
        sb_printf(sb, "    ");
        format_insn(sb, &insn, off, m, labels);
        sb_pad(sb, line_start + 36);
        sb_printf(sb, "; +%04zx @%08zx", off, f->offset + off);
        if (opt && opt->hex) {
            sb_printf(sb, " ");
            for (uint32_t i = 0; i < insn.length; i++)
                sb_printf(sb, " %02x", code[off + i]);
        }
        sb_printf(sb, "\n");
        emit(out, sb);
    }
    if (has_label(labels, f->size))
        sb_printf(sb, ".L%" PRIx32 ":\n", f->size);
    sb_printf(sb, ".end\n");
    emit(out, sb);
}

int pvm_disassemble_module(FILE *out, const pvm_module *m,
                           const pvm_disasm_options *opt, pvm_error *err)
{
    /* Labels of every function: decoding them all first also means that
     * nothing is printed for a module with undecodable code. */
    uint8_t **labels = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *labels);
    int r = labels ? 0 : pvm_errorf(err, "out of memory");
    for (uint32_t i = 0; r == 0 && i < m->nfuncs; i++) {
        size_t n = m->funcs[i].size / 8 + 1;
        uint8_t *starts = calloc(n, 1);
        if (!starts || !(labels[i] = calloc(n, 1)))
            r = pvm_errorf(err, "out of memory");
        else
            r = find_labels(m, &m->funcs[i], labels[i], starts, err);
        free(starts);
    }

    strbuf sb = {.grow = true};
    if (r == 0) {
        print_directives(out, &sb, m);
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            label_map map = {labels[i], m->funcs[i].size};
            if (i)
                fputc('\n', out);
            print_function(out, &sb, m, i, &map, opt);
        }
        if (sb.failed)
            r = pvm_errorf(err, "out of memory");
        else if (fflush(out) != 0 || ferror(out))
            r = pvm_errorf(err, "error writing the disassembly");
    }
    free(sb.buf);
    for (uint32_t i = 0; labels && i < m->nfuncs; i++)
        free(labels[i]);
    free(labels);
    return r;
}
