/*
 * asm.c - the .pasm assembler: parses the tokens of asm_lexer.c into a
 * module.  Mnemonics are looked up in the opcode table and operands are
 * parsed by the opcode's format, so no opcode is named here.  Labels are
 * resolved when their function ends, function and import names when the
 * file ends, so both may be used before they are defined.
 */
#include "asm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_lexer.h"
#include "base/grow.h"
#include "base/hash.h"
#include "insn.h"

/* ---- symbol tables: name -> value, remembering the defining line --------- */

typedef struct symbol {
    char *name; /* NULL: an empty slot */
    size_t len;
    uint32_t value;
    unsigned line;
} symbol;

typedef struct symtab {
    symbol *slots;
    size_t cap, count; /* cap is 0 or a power of two */
} symtab;

static size_t hash_name(const char *s, size_t len)
{
    return (size_t)base_fnv1a64_bytes(BASE_FNV1A64_INIT, s, len);
}

/* The slot holding name, or the empty slot where it belongs. */
static symbol *sym_slot(symbol *slots, size_t cap, const char *name, size_t len)
{
    for (size_t i = hash_name(name, len) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        symbol *s = &slots[i];
        if (!s->name || (s->len == len && memcmp(s->name, name, len) == 0))
            return s;
    }
}

static const symbol *sym_find(const symtab *t, const char *name, size_t len)
{
    if (t->cap == 0)
        return NULL;
    const symbol *s = sym_slot(t->slots, t->cap, name, len);
    return s->name ? s : NULL;
}

/* Add a name that is not in t yet.  Returns -1 when out of memory. */
static int sym_add(symtab *t, const char *name, size_t len, uint32_t value,
                   unsigned line)
{
    if (2 * (t->count + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        symbol *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].name)
                *sym_slot(slots, cap, t->slots[i].name, t->slots[i].len) = t->slots[i];
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    symbol *s = sym_slot(t->slots, t->cap, name, len);
    if (!(s->name = malloc(len + 1)))
        return -1;
    memcpy(s->name, name, len);
    s->name[len] = 0;
    s->len = len;
    s->value = value;
    s->line = line;
    t->count++;
    return 0;
}

static void sym_free(symtab *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].name);
    free(t->slots);
    *t = (symtab){0};
}

/* ---- references resolved later -------------------------------------------- */

typedef enum ref_kind { REF_LABEL, REF_FUNC, REF_HOST } ref_kind;

typedef struct fixup {
    char *name;
    ref_kind kind;
    uint32_t func; /* the function holding the operand */
    uint32_t at;   /* offset in that function of the 4 bytes to patch */
    uint32_t insn; /* REF_LABEL: offset of the branching instruction */
    unsigned line, col;
} fixup;

typedef struct fixup_list {
    fixup *v;
    size_t n, cap;
} fixup_list;

static void fixups_clear(fixup_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    l->n = 0;
}

/* ---- the assembler's state and error reports ------------------------------ */

typedef struct assembler {
    pasm_lexer lx;
    pasm_token tok; /* the current token */
    pvm_module *m;
    symtab funcs, imports, labels;
    fixup_list refs;       /* function and import names, resolved at the end */
    fixup_list label_refs; /* labels of the current function, at its .end */
    /* the function being assembled */
    bool in_func;
    char *func_name;
    unsigned func_line;
    char params[PVM_MAX_TYPES + 1], results[PVM_MAX_TYPES + 1];
    pvm_buf code;
    pvm_buf bytes; /* a jump table's entries, or a data segment's bytes */
    /* module directives */
    unsigned entry_line, entry_col; /* 0: no .entry or .noentry seen */
    char *entry_name;               /* .entry NAME */
    uint32_t entry;                 /* .entry #N, or .noentry */
    unsigned memory_line;           /* 0: no .memory seen */
    unsigned globals_line, tables_line; /* 0: no .globals / .tables seen */
    unsigned start_line, start_col; /* 0: no .start seen */
    char *start_name;               /* .start NAME */
    fixup_list elem_refs; /* .elem function names: func = segment, at = entry */
    uint32_t *elem_funcs; /* the .elem being parsed */
    size_t elem_cap;
} assembler;

static int error_at(const assembler *A, unsigned line, unsigned col,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int error_at(const assembler *A, unsigned line, unsigned col,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pasm_verrorf(&A->lx, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

#define AT(t) (t)->line, (t)->col
#define SHOWN(len) (int)((len) > 40 ? 40 : (len)) /* precision for %.*s */

static int out_of_memory(const assembler *A)
{
    return error_at(A, AT(&A->tok), "out of memory");
}

/* "expected WHAT, found TOKEN" at the current token. */
static int expected(const assembler *A, const char *what)
{
    const pasm_token *t = &A->tok;
    switch (t->kind) {
    case PASM_TOK_EOF: return error_at(A, AT(t), "expected %s, found end of file", what);
    case PASM_TOK_NEWLINE: return error_at(A, AT(t), "expected %s, found end of line", what);
    case PASM_TOK_STRING: return error_at(A, AT(t), "expected %s, found a string", what);
    default:
        return error_at(A, AT(t), "expected %s, found '%.*s'", what, SHOWN(t->len), t->text);
    }
}

static bool is_token(const pasm_token *t, const char *text)
{
    return t->len == strlen(text) && memcmp(t->text, text, t->len) == 0;
}

static int advance(assembler *A) { return pasm_next(&A->lx, &A->tok); }

static bool at_end_of_line(const assembler *A)
{
    return A->tok.kind == PASM_TOK_NEWLINE || A->tok.kind == PASM_TOK_EOF;
}

/* ---- operands ------------------------------------------------------------- */

/* How each immediate kind is named in messages, and the range of those
 * written as integers. */
static const struct {
    const char *operand, *range;
} imm_kinds[] = {
    [PVM_IMM_NONE] = {"", ""},
    [PVM_IMM_S8] = {"s8", "-128..127"},
    [PVM_IMM_S16] = {"s16", "-32768..32767"},
    [PVM_IMM_S32] = {"s32", "-2147483648..2147483647"},
    [PVM_IMM_I64] = {"i64", "-9223372036854775808..18446744073709551615"},
    [PVM_IMM_U32] = {"u32", "0..4294967295"},
    [PVM_IMM_OFF32] = {"offset", "-2147483648..2147483647"},
    [PVM_IMM_REL32] = {"target", "-2147483648..+2147483647"},
    [PVM_IMM_FUNC] = {"function", ""},
    [PVM_IMM_HOST] = {"import", ""},
    [PVM_IMM_TRAP] = {"trap", "0..255"},
    [PVM_IMM_F32] = {"f32", ""},
    [PVM_IMM_F64] = {"f64", ""},
    [PVM_IMM_TABLE] = {"[targets]", ""},
    [PVM_IMM_GLOBAL] = {"#global", ""},
    [PVM_IMM_TABLEIDX] = {"#table", ""},
    [PVM_IMM_TYPE] = {"#type", ""},
};

/* The current NUMBER token as a value of immediate kind k; advances. */
static int parse_int(assembler *A, pvm_imm_kind k, int64_t *out)
{
    const pasm_token *t = &A->tok;
    if (t->kind != PASM_TOK_NUMBER)
        return expected(A, "an integer");
    pasm_int v;
    const char *msg = pasm_integer(t->text, t->len, &v);
    if (msg)
        return error_at(A, AT(t), "%s: '%.*s'", msg, SHOWN(t->len), t->text);
    uint64_t limit = v.negative ? UINT64_C(1) << 63
                     : k == PVM_IMM_I64 ? UINT64_MAX : (uint64_t)INT64_MAX;
    int64_t x = (int64_t)(v.negative ? 0 - v.magnitude : v.magnitude);
    if (v.magnitude > limit || !pvm_imm_fits(k, x))
        return error_at(A, AT(t), "%.*s is out of range for %s (%s)", SHOWN(t->len),
                        t->text, imm_kinds[k].operand, imm_kinds[k].range);
    *out = x;
    return advance(A);
}

/* A non-negative 64-bit amount (heap sizes and offsets); advances. */
static int parse_u64(assembler *A, uint64_t *out)
{
    const pasm_token *t = &A->tok;
    pasm_int v;
    if (t->kind != PASM_TOK_NUMBER || pasm_integer(t->text, t->len, &v) ||
        (v.negative && v.magnitude))
        return expected(A, "a non-negative integer");
    *out = v.magnitude;
    return advance(A);
}

/* The current INDEX token (#N); advances. */
static int parse_index(assembler *A, uint32_t *out)
{
    const pasm_token *t = &A->tok;
    pasm_int v;
    if (pasm_integer(t->text, t->len, &v) || v.magnitude > UINT32_MAX)
        return error_at(A, AT(t), "index #%.*s is out of range", SHOWN(t->len), t->text);
    *out = (uint32_t)v.magnitude;
    return advance(A);
}

/* Is the current token a name (bare or quoted) without NUL bytes? */
static int check_name(const assembler *A, const char *what)
{
    const pasm_token *t = &A->tok;
    if (t->kind != PASM_TOK_NAME && t->kind != PASM_TOK_STRING)
        return expected(A, what);
    if (memchr(t->text, 0, t->len))
        return error_at(A, AT(t), "a name cannot contain a NUL byte");
    return 0;
}

/* The current name as a new NUL-terminated string; advances. */
static char *take_name(assembler *A, const char *what)
{
    if (check_name(A, what))
        return NULL;
    char *s = malloc(A->tok.len + 1);
    if (!s) {
        out_of_memory(A);
        return NULL;
    }
    memcpy(s, A->tok.text, A->tok.len);
    s[A->tok.len] = 0;
    if (advance(A)) {
        free(s);
        return NULL;
    }
    return s;
}

/* Record the current name as a reference to patch at offset `at` of the
 * current function (for a label, relative to the instruction at `insn`). */
static int add_ref(assembler *A, fixup_list *l, ref_kind kind, size_t insn, size_t at)
{
    static const char *const what[] = {[REF_LABEL] = "a label",
                                       [REF_FUNC] = "a function name or #N",
                                       [REF_HOST] = "an import name or #N"};
    if (BASE_GROW(l->v, l->cap, l->n + 1, 16) != 0)
        return out_of_memory(A);
    fixup *f = &l->v[l->n];
    *f = (fixup){.kind = kind, .func = (uint32_t)(A->funcs.count - 1),
                 .at = (uint32_t)at, .insn = (uint32_t)insn, .line = A->tok.line,
                 .col = A->tok.col};
    if (!(f->name = take_name(A, what[kind])))
        return -1;
    l->n++;
    return 0;
}

static int parse_reg(assembler *A, pvm_reg_kind kind, uint8_t *out)
{
    const pasm_token *t = &A->tok;
    char prefix = kind == PVM_REG_X ? 'x' : 'f';
    int n = t->kind == PASM_TOK_NAME ? pasm_register(t->text, t->len, prefix) : -1;
    if (n < 0)
        return expected(A, kind == PVM_REG_X ? "an x register" : "an f register");
    if (n >= 32)
        return error_at(A, AT(t), "register %c%d out of range (%c0..%c31)", prefix, n,
                        prefix, prefix);
    *out = (uint8_t)n;
    return advance(A);
}

/* A branch target: a label, patched at `at` when the function ends, or an
 * offset with an explicit sign from the instruction at `insn`. */
static int parse_target(assembler *A, size_t insn, size_t at, int64_t *out)
{
    const pasm_token *t = &A->tok;
    *out = 0;
    if (t->kind == PASM_TOK_NAME)
        return add_ref(A, &A->label_refs, REF_LABEL, insn, at);
    if (t->kind == PASM_TOK_NUMBER && t->text[0] != '+' && t->text[0] != '-')
        return error_at(A, AT(t), "a branch offset needs a sign (+%.*s or -%.*s), or use a label",
                        SHOWN(t->len), t->text, SHOWN(t->len), t->text);
    if (t->kind == PASM_TOK_NUMBER)
        return parse_int(A, PVM_IMM_REL32, out);
    return expected(A, "a label or a signed offset");
}

/* [target, ...]: the entries go to A->bytes, *count is their number. */
static int parse_table(assembler *A, size_t insn, size_t entries_at, int64_t *count)
{
    if (A->tok.kind != PASM_TOK_LBRACKET)
        return expected(A, "'[' and a list of branch targets");
    if (advance(A))
        return -1;
    A->bytes.len = 0;
    for (;;) {
        int64_t entry;
        if (parse_target(A, insn, entries_at + A->bytes.len, &entry))
            return -1;
        pvm_buf_u32(&A->bytes, (uint32_t)entry);
        if (A->tok.kind == PASM_TOK_RBRACKET)
            break;
        if (A->tok.kind != PASM_TOK_COMMA)
            return expected(A, "',' or ']'");
        if (advance(A))
            return -1;
    }
    if (A->bytes.failed)
        return out_of_memory(A);
    *count = (int64_t)(A->bytes.len / 4);
    return advance(A);
}

/* A function or import: a name (resolved at the end) or #N. */
static int parse_ref(assembler *A, ref_kind kind, size_t at, int64_t *out)
{
    *out = 0;
    if (A->tok.kind == PASM_TOK_INDEX) {
        uint32_t index = 0;
        int r = parse_index(A, &index);
        *out = index;
        return r;
    }
    return add_ref(A, &A->refs, kind, 0, at);
}

/* A global, table or type: #N (the verifier checks that it exists). */
static int parse_index_operand(assembler *A, pvm_imm_kind k, int64_t *out)
{
    static const char *const what[] = {[PVM_IMM_GLOBAL] = "a global #N",
                                       [PVM_IMM_TABLEIDX] = "a table #N",
                                       [PVM_IMM_TYPE] = "a type #N"};
    uint32_t index = 0;
    if (A->tok.kind != PASM_TOK_INDEX)
        return expected(A, what[k]);
    int r = parse_index(A, &index);
    *out = index;
    return r;
}

static int parse_float(assembler *A, bool f64, int64_t *out)
{
    const pasm_token *t = &A->tok;
    if (t->kind != PASM_TOK_NUMBER && t->kind != PASM_TOK_NAME)
        return expected(A, f64 ? "an f64 constant" : "an f32 constant");
    uint64_t bits;
    const char *msg = pasm_float_bits(t->text, t->len, f64, &bits);
    if (msg)
        return error_at(A, AT(t), "%s: '%.*s'", msg, SHOWN(t->len), t->text);
    *out = (int64_t)bits;
    return advance(A);
}

static int parse_trap(assembler *A, int64_t *out)
{
    const pasm_token *t = &A->tok;
    if (t->kind != PASM_TOK_NAME)
        return parse_int(A, PVM_IMM_TRAP, out);
    int kind = pvm_trap_by_name(t->text, t->len);
    if (kind < 0)
        return error_at(A, AT(t), "unknown trap kind '%.*s'", SHOWN(t->len), t->text);
    *out = kind;
    return advance(A);
}

/* Immediate i of insn, which starts at offset `start`. */
static int parse_imm(assembler *A, pvm_insn *insn, unsigned i, size_t start)
{
    const pvm_op_info *info = &pvm_ops[insn->op];
    const pvm_format_info *fmt = &pvm_formats[info->format];
    pvm_imm_kind kind = (pvm_imm_kind)fmt->imm[i];
    int64_t *out = &insn->imms[i];
    /* where its bytes go */
    size_t at = start + info->length - fmt->imm_bytes + fmt->imm_at[i];
    switch (kind) {
    case PVM_IMM_REL32: return parse_target(A, start, at, out);
    case PVM_IMM_TABLE: return parse_table(A, start, start + info->length, out);
    case PVM_IMM_FUNC: return parse_ref(A, REF_FUNC, at, out);
    case PVM_IMM_HOST: return parse_ref(A, REF_HOST, at, out);
    case PVM_IMM_TRAP: return parse_trap(A, out);
    case PVM_IMM_F32: return parse_float(A, false, out);
    case PVM_IMM_F64: return parse_float(A, true, out);
    case PVM_IMM_GLOBAL:
    case PVM_IMM_TABLEIDX:
    case PVM_IMM_TYPE: return parse_index_operand(A, kind, out);
    default: return parse_int(A, kind, out);
    }
}

/* Registers, then the immediates. */
static unsigned operand_count(const pvm_format_info *fmt)
{
    return fmt->nregs + fmt->nimms;
}

/* "'xadd32' takes 3 operands (x, x, x), found 2" at the current token. */
static int operand_count_error(const assembler *A, const pvm_op_info *info, unsigned found)
{
    const pvm_format_info *fmt = &pvm_formats[info->format];
    unsigned n = operand_count(fmt);
    if (n == 0)
        return error_at(A, AT(&A->tok), "'%s' takes no operands", info->name);
    char sig[256] = "", count[16] = "more";
    for (unsigned i = 0; i < n; i++) {
        const char *kind = i < fmt->nregs ? (fmt->reg[i] == PVM_REG_X ? "x" : "f")
                                          : imm_kinds[fmt->imm[i - fmt->nregs]].operand;
        snprintf(sig + strlen(sig), sizeof sig - strlen(sig), "%s%s", i ? ", " : "", kind);
    }
    if (found < n)
        snprintf(count, sizeof count, "%u", found);
    return error_at(A, AT(&A->tok), "'%s' takes %u operand%s (%s), found %s", info->name,
                    n, n == 1 ? "" : "s", sig, count);
}

static int parse_insn(assembler *A, const pasm_token *mnemonic)
{
    int op = pvm_op_by_name(mnemonic->text, mnemonic->len);
    if (op < 0)
        return error_at(A, AT(mnemonic), "unknown mnemonic '%.*s'", SHOWN(mnemonic->len),
                        mnemonic->text);
    if (!A->in_func)
        return error_at(A, AT(mnemonic), "instruction outside a function (missing .func?)");
    const pvm_op_info *info = &pvm_ops[op];
    const pvm_format_info *fmt = &pvm_formats[info->format];
    unsigned n = operand_count(fmt);
    size_t start = A->code.len;
    pvm_insn insn = {.op = (uint16_t)op};
    for (unsigned i = 0; i < n; i++) {
        if (i > 0 && A->tok.kind != PASM_TOK_COMMA)
            return at_end_of_line(A) ? operand_count_error(A, info, i) : expected(A, "','");
        if (i > 0 && advance(A))
            return -1;
        if (at_end_of_line(A))
            return operand_count_error(A, info, i);
        if (i < fmt->nregs ? parse_reg(A, fmt->reg[i], &insn.reg[i])
                           : parse_imm(A, &insn, i - fmt->nregs, start))
            return -1;
    }
    if (A->tok.kind == PASM_TOK_COMMA || (n == 0 && !at_end_of_line(A)))
        return operand_count_error(A, info, n + 1);
    insn.table = A->bytes.data;
    if (!pvm_encode(&A->code, &insn))
        return out_of_memory(A);
    if (A->code.len > PVM_MAX_CODE)
        return error_at(A, AT(mnemonic), "function code exceeds %u bytes", PVM_MAX_CODE);
    return 0;
}

/* ---- directives ----------------------------------------------------------- */

static int define_label(assembler *A, const pasm_token *t)
{
    if (!A->in_func)
        return error_at(A, AT(t), "label outside a function");
    const symbol *s = sym_find(&A->labels, t->text, t->len);
    if (s)
        return error_at(A, AT(t), "duplicate label '%.*s' (first defined at line %u)",
                        SHOWN(t->len), t->text, s->line);
    if (sym_add(&A->labels, t->text, t->len, (uint32_t)A->code.len, t->line))
        return out_of_memory(A);
    return 0;
}

/* Type names (i32 ...) into type letters (i ...); advances past them. */
static int parse_types(assembler *A, char letters[PVM_MAX_TYPES + 1])
{
    size_t n = 0;
    for (; A->tok.kind == PASM_TOK_NAME; n++) {
        const pasm_token *t = &A->tok;
        char letter = pasm_type_letter(t->text, t->len);
        if (!letter)
            return error_at(A, AT(t), "unknown type '%.*s' (use i32, i64, f32, f64, funcref, externref)",
                            SHOWN(t->len), t->text);
        if (n == PVM_MAX_TYPES)
            return error_at(A, AT(t), "more than %d types", PVM_MAX_TYPES);
        letters[n] = letter;
        if (advance(A))
            return -1;
    }
    letters[n] = 0;
    return 0;
}

static int dir_func(assembler *A, const pasm_token *d)
{
    if (A->in_func)
        return error_at(A, AT(d), "missing .end of function '%s' (started at line %u)",
                        A->func_name, A->func_line);
    pasm_token name_tok = A->tok;
    char *name = take_name(A, "a function name");
    if (!name)
        return -1;
    A->func_name = name;
    const symbol *prev = sym_find(&A->funcs, name, strlen(name));
    if (prev)
        return error_at(A, AT(&name_tok), "duplicate function '%s' (first defined at line %u)",
                        name, prev->line);
    if (sym_add(&A->funcs, name, strlen(name), (uint32_t)A->funcs.count, d->line))
        return out_of_memory(A);
    A->in_func = true;
    A->func_line = d->line;
    A->code.len = 0;
    if (parse_types(A, A->params))
        return -1;
    A->results[0] = 0;
    if (A->tok.kind != PASM_TOK_ARROW)
        return 0;
    return advance(A) || parse_types(A, A->results) ? -1 : 0;
}

static int dir_end(assembler *A, const pasm_token *d)
{
    if (!A->in_func)
        return error_at(A, AT(d), ".end outside a function");
    for (size_t i = 0; i < A->label_refs.n; i++) {
        const fixup *f = &A->label_refs.v[i];
        const symbol *s = sym_find(&A->labels, f->name, strlen(f->name));
        if (!s)
            return error_at(A, f->line, f->col, "undefined label '%s'", f->name);
        pvm_wr32(A->code.data + f->at, (uint32_t)((int64_t)s->value - f->insn));
    }
    if (A->code.failed)
        return out_of_memory(A);
    pvm_error e;
    if (pvm_module_add_function(A->m, A->func_name, A->params, A->results, A->code.data,
                                A->code.len, &e) < 0)
        return error_at(A, AT(d), "%s", e.msg);
    fixups_clear(&A->label_refs);
    sym_free(&A->labels);
    free(A->func_name);
    A->func_name = NULL;
    A->in_func = false;
    return 0;
}

static int dir_entry(assembler *A, const pasm_token *d)
{
    if (A->entry_line)
        return error_at(A, AT(d), "duplicate .entry (first at line %u)", A->entry_line);
    A->entry_line = A->tok.line;
    A->entry_col = A->tok.col;
    A->entry = PVM_NO_ENTRY;
    if (is_token(d, ".noentry"))
        return 0;
    if (A->tok.kind == PASM_TOK_INDEX)
        return parse_index(A, &A->entry);
    A->entry_name = take_name(A, "a function name or #N");
    return A->entry_name ? 0 : -1;
}

static int dir_memory(assembler *A, const pasm_token *d)
{
    if (A->memory_line)
        return error_at(A, AT(d), "duplicate .memory (first at line %u)", A->memory_line);
    if (A->m->ndata)
        return error_at(A, AT(d), ".memory must come before .data");
    pasm_token t = A->tok;
    uint64_t min = 0, max = 0;
    if (parse_u64(A, &min))
        return -1;
    max = min;
    if (A->tok.kind == PASM_TOK_NUMBER && parse_u64(A, &max))
        return -1;
    if (max > PVM_MAX_HEAP)
        return error_at(A, AT(&t), "maximum heap %llu exceeds the limit of %llu bytes",
                        (unsigned long long)max, (unsigned long long)PVM_MAX_HEAP);
    if (min > max)
        return error_at(A, AT(&t), "initial heap %llu exceeds the maximum %llu",
                        (unsigned long long)min, (unsigned long long)max);
    A->m->heap_min = min;
    A->m->heap_max = max;
    A->memory_line = d->line;
    return 0;
}

/* .type [TYPE...] [-> TYPE...]: the next entry of the type table. */
static int dir_type(assembler *A, const pasm_token *d)
{
    char params[PVM_MAX_TYPES + 1], results[PVM_MAX_TYPES + 1] = "";
    if (parse_types(A, params))
        return -1;
    if (A->tok.kind == PASM_TOK_ARROW && (advance(A) || parse_types(A, results)))
        return -1;
    pvm_error e;
    if (pvm_module_add_type(A->m, params, results, &e) < 0)
        return error_at(A, AT(d), "%s", e.msg);
    return 0;
}

/* .globals N and .tables N: how many the module has. */
static int dir_count(assembler *A, const pasm_token *d)
{
    bool globals = is_token(d, ".globals");
    unsigned *line = globals ? &A->globals_line : &A->tables_line;
    uint32_t limit = globals ? PVM_MAX_GLOBALS : PVM_MAX_TABLES;
    if (*line)
        return error_at(A, AT(d), "duplicate %.*s (first at line %u)", (int)d->len, d->text,
                        *line);
    pasm_token t = A->tok;
    uint64_t n = 0;
    if (parse_u64(A, &n))
        return -1;
    if (n > limit)
        return error_at(A, AT(&t), "%llu %s exceed the limit of %u", (unsigned long long)n,
                        globals ? "globals" : "tables", limit);
    *(globals ? &A->m->nglobals : &A->m->ntables) = (uint32_t)n;
    *line = d->line;
    return 0;
}

static int dir_import(assembler *A, const pasm_token *d)
{
    (void)d;
    pasm_token t = A->tok;
    char *name = take_name(A, "an import name");
    if (!name)
        return -1;
    const symbol *prev = sym_find(&A->imports, name, strlen(name));
    pvm_error e;
    int index = -1, r;
    if (prev)
        r = error_at(A, AT(&t), "duplicate import '%s' (first declared at line %u)", name,
                     prev->line);
    else if ((index = pvm_module_add_import(A->m, name, &e)) < 0)
        r = error_at(A, AT(&t), "%s", e.msg);
    else if (sym_add(&A->imports, name, strlen(name), (uint32_t)index, t.line))
        r = out_of_memory(A);
    else
        r = 0;
    free(name);
    return r;
}

static int dir_data(assembler *A, const pasm_token *d)
{
    (void)d;
    pasm_token t = A->tok;
    uint64_t offset = 0;
    if (parse_u64(A, &offset))
        return -1;
    if (A->tok.kind != PASM_TOK_STRING)
        return expected(A, "a string of bytes");
    A->bytes.len = 0;
    while (A->tok.kind == PASM_TOK_STRING) {
        pvm_buf_append(&A->bytes, A->tok.text, A->tok.len);
        if (advance(A))
            return -1;
    }
    if (A->bytes.failed || A->bytes.len > UINT32_MAX)
        return out_of_memory(A);
    uint64_t size = A->bytes.len, heap = A->m->heap_max;
    if (offset > heap || size > heap - offset)
        return error_at(A, AT(&t),
                        "data segment (%llu bytes at heap offset %llu) exceeds the maximum "
                        "heap of %llu bytes (set it with .memory)",
                        (unsigned long long)size, (unsigned long long)offset,
                        (unsigned long long)heap);
    pvm_error e;
    if (pvm_module_add_data(A->m, offset, A->bytes.data, (uint32_t)size, &e) < 0)
        return error_at(A, AT(&t), "%s", e.msg);
    return 0;
}

/* .start NAME | .start #N: the function run before the entry. */
static int dir_start(assembler *A, const pasm_token *d)
{
    if (A->start_line)
        return error_at(A, AT(d), "duplicate .start (first at line %u)", A->start_line);
    A->start_line = A->tok.line;
    A->start_col = A->tok.col;
    if (A->tok.kind == PASM_TOK_INDEX)
        return parse_index(A, &A->m->start);
    A->start_name = take_name(A, "a function name or #N");
    return A->start_name ? 0 : -1;
}

/* .heap_base xN: the register the VM gives the heap's address on every
 * call in. */
static int dir_heap_base(assembler *A, const pasm_token *d)
{
    (void)d;
    return parse_reg(A, PVM_REG_X, &A->m->heap_reg);
}

/* A #N operand of a directive, below `count` (what: "global", "table"). */
static int parse_item(assembler *A, const char *what, uint32_t count, uint32_t *out)
{
    pasm_token t = A->tok;
    if (t.kind != PASM_TOK_INDEX)
        return expected(A, what[0] == 'g' ? "a global #N" : "a table #N");
    if (parse_index(A, out))
        return -1;
    if (*out >= count)
        return error_at(A, AT(&t), "%s #%u does not exist (%u %ss; declare them with .%ss)",
                        what, *out, count, what, what);
    return 0;
}

/* .global #N VALUE: global N's initial value (raw 64 bits). */
static int dir_global(assembler *A, const pasm_token *d)
{
    (void)d;
    uint32_t i = 0;
    int64_t value = 0;
    if (parse_item(A, "global", A->m->nglobals, &i) || parse_int(A, PVM_IMM_I64, &value))
        return -1;
    pvm_error e;
    return pvm_module_set_global(A->m, i, (uint64_t)value, &e) ? out_of_memory(A) : 0;
}

/* A u32 amount of a directive; advances. */
static int parse_u32(assembler *A, uint32_t *out)
{
    pasm_token t = A->tok;
    uint64_t v = 0;
    if (parse_u64(A, &v))
        return -1;
    if (v > UINT32_MAX)
        return error_at(A, AT(&t), "%llu is out of range (0..4294967295)", (unsigned long long)v);
    *out = (uint32_t)v;
    return 0;
}

/* .table #N SIZE MAX: table N's initial size and maximum. */
static int dir_table(assembler *A, const pasm_token *d)
{
    uint32_t i = 0, size = 0, max = 0;
    if (parse_item(A, "table", A->m->ntables, &i) || parse_u32(A, &size) || parse_u32(A, &max))
        return -1;
    pvm_error e;
    if (pvm_module_set_table(A->m, i, size, max, &e))
        return error_at(A, AT(d), "%s", e.msg);
    return 0;
}

/* .elem #T OFFSET FUNC...: function references (a name, #N, or null) put
 * into table T from entry OFFSET at start-up. */
static int dir_elem(assembler *A, const pasm_token *d)
{
    uint32_t table = 0, offset = 0, count = 0, seg = A->m->nelems;
    if (parse_item(A, "table", A->m->ntables, &table) || parse_u32(A, &offset))
        return -1;
    for (; !at_end_of_line(A); count++) {
        uint32_t f = PVM_NO_ENTRY;
        if (A->tok.kind == PASM_TOK_INDEX) {
            pasm_token t = A->tok;
            if (parse_index(A, &f))
                return -1;
            if (f == PVM_NO_ENTRY)
                return error_at(A, AT(&t), "function #%u does not exist", f);
        } else if (is_token(&A->tok, "null")) {
            if (advance(A))
                return -1;
        } else if (add_ref(A, &A->elem_refs, REF_FUNC, 0, count)) {
            return -1;
        } else {
            A->elem_refs.v[A->elem_refs.n - 1].func = seg;
        }
        if (count == A->elem_cap && (2 * A->elem_cap > PVM_MAX_TABLE_ENTRIES ||
                                     BASE_GROW(A->elem_funcs, A->elem_cap, count + 1, 64) != 0))
            return out_of_memory(A);
        A->elem_funcs[count] = f;
    }
    uint32_t size = A->m->table_decl ? A->m->table_decl[table].size : 0;
    if (offset > size || count > size - offset)
        return error_at(A, AT(d), "%u entries at %u do not fit table #%u of %u entries (set its "
                        "size with .table)", count, offset, table, size);
    pvm_error e;
    if (pvm_module_add_elem(A->m, table, offset, A->elem_funcs, count, &e))
        return out_of_memory(A);
    return 0;
}

static const struct directive {
    const char *name;
    bool module_level; /* not allowed inside a function */
    int (*parse)(assembler *A, const pasm_token *directive);
} directives[] = {
    {".func", false, dir_func},    {".end", false, dir_end},
    {".entry", true, dir_entry},   {".noentry", true, dir_entry},
    {".memory", true, dir_memory}, {".import", true, dir_import},
    {".data", true, dir_data},     {".type", true, dir_type},
    {".globals", true, dir_count}, {".tables", true, dir_count},
    {".global", true, dir_global}, {".table", true, dir_table},
    {".elem", true, dir_elem},     {".start", true, dir_start},
    {".heap_base", true, dir_heap_base},
};

static int parse_directive(assembler *A, const pasm_token *d)
{
    for (size_t i = 0; i < sizeof directives / sizeof directives[0]; i++) {
        const struct directive *dir = &directives[i];
        if (!is_token(d, dir->name))
            continue;
        if (dir->module_level && A->in_func)
            return error_at(A, AT(d), "%s inside function '%s' (missing .end?)", dir->name,
                            A->func_name);
        return dir->parse(A, d);
    }
    return error_at(A, AT(d), "unknown directive '%.*s'", SHOWN(d->len), d->text);
}

/* ---- lines and the whole file --------------------------------------------- */

/* [LABEL:] [DIRECTIVE ... | MNEMONIC OPERANDS] NEWLINE */
static int parse_line(assembler *A)
{
    if (A->tok.kind == PASM_TOK_NEWLINE)
        return advance(A);
    if (A->tok.kind != PASM_TOK_NAME)
        return expected(A, "a label, directive or instruction");
    pasm_token head = A->tok;
    if (advance(A))
        return -1;
    if (A->tok.kind == PASM_TOK_COLON) {
        if (define_label(A, &head) || advance(A))
            return -1;
        if (at_end_of_line(A))
            return A->tok.kind == PASM_TOK_EOF ? 0 : advance(A);
        if (A->tok.kind != PASM_TOK_NAME)
            return expected(A, "a directive or instruction");
        head = A->tok;
        if (advance(A))
            return -1;
    }
    if (head.text[0] == '.' ? parse_directive(A, &head) : parse_insn(A, &head))
        return -1;
    if (A->tok.kind == PASM_TOK_EOF)
        return 0;
    if (A->tok.kind != PASM_TOK_NEWLINE)
        return expected(A, "end of line");
    return advance(A);
}

/* The index of function `name`, named at (line, col), into *out. */
static int find_function(const assembler *A, const char *name, unsigned line, unsigned col,
                         uint32_t *out)
{
    const symbol *s = sym_find(&A->funcs, name, strlen(name));
    if (!s)
        return error_at(A, line, col, "unknown function '%s'", name);
    *out = s->value;
    return 0;
}

/* Resolve names now that every function and import is known. */
static int finish(assembler *A)
{
    pvm_module *m = A->m;
    if (A->in_func)
        return error_at(A, AT(&A->tok), "missing .end of function '%s' (started at line %u)",
                        A->func_name, A->func_line);
    for (size_t i = 0; i < A->refs.n; i++) {
        const fixup *f = &A->refs.v[i];
        bool func = f->kind == REF_FUNC;
        const symbol *s = sym_find(func ? &A->funcs : &A->imports, f->name, strlen(f->name));
        if (!s)
            return error_at(A, f->line, f->col, "unknown %s '%s'", func ? "function" : "import",
                            f->name);
        pvm_wr32(m->code + m->funcs[f->func].offset + f->at, s->value);
    }
    for (size_t i = 0; i < A->elem_refs.n; i++) {
        const fixup *f = &A->elem_refs.v[i];
        if (find_function(A, f->name, f->line, f->col, &m->elems[f->func].funcs[f->at]))
            return -1;
    }
    if (A->start_name && find_function(A, A->start_name, A->start_line, A->start_col, &m->start))
        return -1;
    pvm_error e;
    if (pvm_module_check_state(m, &e))
        return error_at(A, AT(&A->tok), "%s", e.msg);
    if (A->entry_name) {
        if (find_function(A, A->entry_name, A->entry_line, A->entry_col, &m->entry))
            return -1;
    } else if (A->entry_line) {
        if (A->entry != PVM_NO_ENTRY && A->entry >= m->nfuncs)
            return error_at(A, A->entry_line, A->entry_col,
                            "entry function #%u does not exist (%u functions)", A->entry,
                            m->nfuncs);
        m->entry = A->entry;
    } else {
        const symbol *s = sym_find(&A->funcs, "main", 4);
        m->entry = s ? s->value : PVM_NO_ENTRY;
    }
    return 0;
}

pvm_module *pvm_assemble(const char *filename, const char *text, size_t len,
                         pvm_error *err)
{
    assembler A = {0};
    pasm_lexer_init(&A.lx, filename, text, len, err);
    A.m = pvm_module_new();
    int r = A.m ? advance(&A) : pvm_errorf(err, "%s: out of memory", filename);
    while (r == 0 && A.tok.kind != PASM_TOK_EOF)
        r = parse_line(&A);
    if (r == 0)
        r = finish(&A);
    pvm_module *m = A.m;
    if (r) {
        pvm_module_free(m);
        m = NULL;
    }
    pasm_lexer_free(&A.lx);
    sym_free(&A.funcs);
    sym_free(&A.imports);
    sym_free(&A.labels);
    fixups_clear(&A.refs);
    fixups_clear(&A.label_refs);
    fixups_clear(&A.elem_refs);
    free(A.refs.v);
    free(A.label_refs.v);
    free(A.elem_refs.v);
    free(A.func_name);
    free(A.entry_name);
    free(A.start_name);
    free(A.elem_funcs);
    pvm_buf_free(&A.code);
    pvm_buf_free(&A.bytes);
    return m;
}
