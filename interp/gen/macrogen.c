/*
 * macrogen.c - `pulley-macrogen`: a set of macro ops (a .macros file, see
 * fusion/README.md) into the two files a macro build of the VM compiles
 * in: the rows of the opcode table (included at the end of opcodes.def:
 * a format and a primary or extended row per macro op, with its parts)
 * and the bodies of their handlers (included at the end of vm_ops.h),
 * each composed from its parts' bodies as written in vm_ops.h.  Nothing
 * in either file is written by hand.
 *
 *   pulley-macrogen SET.macros interp/vm_ops.h OUT_DIR
 *
 * A part's body runs unchanged but for its operands and its end, which
 * are written into its text here: the part's register operands A, B, C,
 * D become the locals of the macro registers the set names (x0, f3: read
 * once each, where the first part that uses it starts), its IMM_* the
 * local of its own immediate (imm0 ...), ADDR(r) ADDR_AT(r, that
 * immediate), and a NEXT() goes on to the next part (the body's last
 * line, NEXT();, is dropped: the part's block ends where the next
 * begins); the last part's NEXT() dispatches the next instruction, its
 * branches, calls and traps work from the macro instruction's pc.  No
 * #line points back into vm_ops.h: the text compiled is not vm_ops.h's
 * (its operands are written in), so a debugger or a compiler message
 * would show lines that are not the code; the part's comment names its
 * op.  It is built with the baseline table alone (its own copy of isa.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "macro_set.h"

#define MAX_BODIES 1024

/* An op body of vm_ops.h: the lines between OPCODE(name) and END_OPCODE. */
typedef struct body {
    char name[FU_MAX_NAME];
    char *text;
} body;

typedef struct bodies {
    body v[MAX_BODIES];
    size_t n;
} bodies;

/* Everything the rows and bodies say about one macro op. */
typedef struct macro_row {
    const fu_macro *m;
    unsigned part_op[FU_MAX_PARTS]; /* baseline opcode of each part */
    uint8_t role[FU_MAX_REGS];      /* pvm_role of each macro register */
    uint8_t imm[FU_MAX_IMMS];       /* pvm_imm_kind of each macro immediate */
    uint8_t imm_at[FU_MAX_IMMS];    /* its offset after the register pack */
    unsigned pack, imm_bytes, flags;
    int extended;
} macro_row;

static const char *set_path;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pulley-macrogen: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0)
        die("%s: cannot seek", path);
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
        die("%s: cannot tell its size", path);
    char *text = malloc((size_t)size + 1);
    if (!text)
        die("out of memory");
    if (fread(text, 1, (size_t)size, f) != (size_t)size)
        die("%s: read error", path);
    fclose(f);
    text[size] = '\0';
    return text;
}

/* The bodies of vm_ops.h, found by their OPCODE(name) and END_OPCODE lines. */
static void read_bodies(const char *path, bodies *out)
{
    char *text = read_text(path);
    body *open = NULL;
    size_t start = 0;
    unsigned line = 1;
    for (char *p = text; *p; line++) {
        char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 7 && strncmp(p, "OPCODE(", 7) == 0) {
            if (open)
                die("%s:%u: OPCODE inside the body of %s", path, line, open->name);
            if (out->n == MAX_BODIES)
                die("%s: more than %d op bodies", path, MAX_BODIES);
            open = &out->v[out->n++];
            size_t n = strcspn(p + 7, ")");
            if (n == 0 || n >= sizeof open->name)
                die("%s:%u: bad OPCODE line", path, line);
            memcpy(open->name, p + 7, n);
            open->name[n] = '\0';
            start = (size_t)(p - text) + len + 1;
        } else if (len >= 10 && strncmp(p, "END_OPCODE", 10) == 0) {
            if (!open)
                die("%s:%u: END_OPCODE without OPCODE", path, line);
            size_t n = (size_t)(p - text) - start;
            if (!(open->text = malloc(n + 1)))
                die("out of memory");
            memcpy(open->text, text + start, n);
            open->text[n] = '\0';
            open = NULL;
        }
        p = end ? end + 1 : p + len;
    }
    if (open)
        die("%s: the body of %s has no END_OPCODE", path, open->name);
    free(text);
}

static const char *body_of(const bodies *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->v[i].name, name) == 0)
            return b->v[i].text;
    return NULL;
}

/* Check m against the baseline table and work out its row. */
static void describe(const fu_macro *m, macro_row *row)
{
    memset(row, 0, sizeof *row);
    row->m = m;
    if (pvm_op_by_name(m->name, strlen(m->name)) >= 0)
        die("%s: macro op %s has the name of a baseline opcode", set_path, m->name);
    unsigned nimm = 0, seen = 0; /* seen: macro registers read or written so far */
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        int op = pvm_op_by_name(pt->op, strlen(pt->op));
        if (op < 0)
            die("%s: macro op %s: part %u, %s, is not an opcode of the baseline", set_path,
                m->name, k + 1, pt->op);
        const char *wide = pvm_ops[pvm_op_wide((unsigned)op)].name;
        if (pvm_op_wide((unsigned)op) != (unsigned)op)
            die("%s: macro op %s: part %u, %s, is matched as %s (the same with a wider "
                "immediate): name %s",
                set_path, m->name, k + 1, pt->op, wide, wide);
        const pvm_op_info *info = &pvm_ops[op];
        const pvm_format_info *fmt = &pvm_formats[info->format];
        unsigned ends = PVM_FLAG_BRANCH | PVM_FLAG_TERM | PVM_FLAG_CALL | PVM_FLAG_RETURN;
        if ((info->flags & ends) && k + 1 < m->nparts)
            die("%s: macro op %s: part %u, %s, branches, calls or returns: only the last part may",
                set_path, m->name, k + 1, pt->op);
        if (pt->nregs != fmt->nregs || pt->nimms != fmt->nimms)
            die("%s: macro op %s: part %u, %s, takes %u registers and %u immediates, not %u and %u",
                set_path, m->name, k + 1, pt->op, fmt->nregs, fmt->nimms, pt->nregs, pt->nimms);
        /* Within one instruction the reads come before the writes. */
        for (unsigned pass = 0; pass < 2; pass++)
            for (unsigned j = 0; j < fmt->nregs; j++) {
                unsigned r = pt->reg[j];
                const char *kind = fmt->reg[j] == PVM_REG_X ? "x" : "f";
                if (strcmp(m->kind[r], kind) != 0)
                    die("%s: macro op %s: part %u, %s, takes an %s register as operand %u, not %s%u",
                        set_path, m->name, k + 1, pt->op, kind, j + 1, m->kind[r], r);
                unsigned bit = pass == 0 ? PVM_ROLE_R : PVM_ROLE_W;
                if (!(fmt->role[j] & bit))
                    continue;
                if (bit == PVM_ROLE_R && !(seen >> r & 1))
                    row->role[r] |= PVM_ROLE_R; /* read before the macro writes it */
                if (bit == PVM_ROLE_W)
                    row->role[r] |= PVM_ROLE_W;
                seen |= 1u << r;
            }
        for (unsigned i = 0; i < fmt->nimms; i++) {
            row->imm[nimm] = fmt->imm[i];
            row->imm_at[nimm] = (uint8_t)row->imm_bytes;
            row->imm_bytes += pvm_imm_size(fmt->imm[i]);
            nimm++;
        }
        row->flags |= info->flags & PVM_FLAG_TRAPS;
        if (k + 1 == m->nparts)
            row->flags |= info->flags & ends;
        row->part_op[k] = (unsigned)op;
    }
    row->flags |= PVM_FLAG_MACRO;
    for (unsigned r = 0; r < m->nregs; r++)
        if (!row->role[r])
            die("%s: macro op %s: macro register %u is neither read nor written", set_path,
                m->name, r);
    row->pack = PVM_REGPACK_BYTES(m->nregs);
    if (3 + row->pack + row->imm_bytes > 255)
        die("%s: macro op %s is longer than 255 bytes", set_path, m->name);
}

static void print_flags(FILE *out, unsigned flags)
{
    int n = 0;
#define PRINT_FLAG(word, bit)                                                  \
    if (flags & PVM_FLAG_##word)                                               \
        fprintf(out, "%s%s", n++ ? "|" : "", #word);
    PVM_FLAG_WORDS(PRINT_FLAG)
#undef PRINT_FLAG
}

/* "xadd32 a, b, c; bcheck32 a, imm0": the parts with the macro's operand names. */
static void print_semantics(FILE *out, const fu_macro *m)
{
    unsigned imm = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        fprintf(out, "%s%s", k ? "; then " : "", pt->op);
        for (unsigned j = 0; j < pt->nregs; j++)
            fprintf(out, "%s%c", j ? ", " : " ", 'a' + pt->reg[j]);
        for (unsigned i = 0; i < pt->nimms; i++)
            fprintf(out, "%simm%u", pt->nregs || i ? ", " : " ", imm++);
    }
}

static void print_list(FILE *out, const char *prefix, const char *const *names,
                       const uint8_t *v, unsigned n)
{
    fputc('(', out);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%s%s", i ? ", " : "", prefix, names[v[i]]);
    if (n == 0)
        fputs("0", out);
    fputc(')', out);
}

static void write_rows(FILE *out, const macro_row *rows, size_t n)
{
    static const char *const cls[] = {"NONE", "X", "F"};
    static const char *const roles[] = {"NONE", "R", "W", "RW"};
    static const char *const imms[] = {
#define IMM_NAME(name, word, bytes) #name,
        PVM_IMM_KINDS(IMM_NAME)
#undef IMM_NAME
    };
    for (size_t i = 0; i < n; i++) {
        const macro_row *r = &rows[i];
        const fu_macro *m = r->m;
        uint8_t kinds[FU_MAX_REGS];
        for (unsigned j = 0; j < m->nregs; j++)
            kinds[j] = strcmp(m->kind[j], "x") == 0 ? PVM_REG_X : PVM_REG_F;
        fprintf(out, "\n/* %s: ", m->name);
        for (unsigned k = 0; k < m->nparts; k++)
            fprintf(out, "%s%s", k ? " + " : "", m->part[k].op);
        fprintf(out, " */\nMFORMAT(M_%s, %u, ", m->name, m->nregs);
        print_list(out, "PVM_REG_", cls, kinds, m->nregs);
        fputs(", ", out);
        print_list(out, "PVM_ROLE_", roles, r->role, m->nregs);
        fprintf(out, ", %u, ", m->nimms);
        print_list(out, "PVM_IMM_", imms, r->imm, m->nimms);
        fprintf(out, ", %u, %u, (", r->pack, r->imm_bytes);
        for (unsigned j = 0; j < m->nimms; j++)
            fprintf(out, "%s%u", j ? ", " : "", r->imm_at[j]);
        fprintf(out, "%s))\n%s(%s, M_%s, ", m->nimms ? "" : "0", r->extended ? "MEXT" : "MOP",
                m->name, m->name);
        print_flags(out, r->flags);
        fputs(", \"", out);
        print_semantics(out, m);
        fprintf(out, "\", %u, (", m->nparts);
        for (unsigned k = 0; k < m->nparts; k++) {
            const fu_part *pt = &m->part[k];
            fprintf(out, "%s{PVM_OP_%s, {", k ? ", " : "", pt->op);
            for (unsigned j = 0; j < pt->nregs; j++)
                fprintf(out, "%s%u", j ? ", " : "", pt->reg[j]);
            fprintf(out, "%s}, {", pt->nregs ? "" : "0");
            unsigned first = 0;
            for (unsigned q = 0; q < k; q++)
                first += m->part[q].nimms;
            for (unsigned j = 0; j < pt->nimms; j++)
                fprintf(out, "%s%u", j ? ", " : "", first + j);
            fprintf(out, "%s}}", pt->nimms ? "" : "0");
        }
        fputs("))\n", out);
    }
}

/* ---- the handlers ----------------------------------------------------- */

/* The type of the local a macro op's immediate is read into: the one of
 * the IMM_* word its part's body reads it with. */
static const char *imm_type(unsigned kind)
{
    switch (kind) {
    case PVM_IMM_S8:
        return "int8_t";
    case PVM_IMM_S16:
        return "int16_t";
    case PVM_IMM_S32:
    case PVM_IMM_OFF32:
    case PVM_IMM_REL32:
        return "int32_t";
    case PVM_IMM_TRAP:
        return "uint8_t";
    case PVM_IMM_I64:
    case PVM_IMM_F64:
        return "uint64_t";
    default:
        return "uint32_t"; /* u32, an f32's bits, a count or an index */
    }
}

/* The IMM_* words of the bodies and the types they read the immediate as. */
static const struct {
    const char *word, *type;
} imm_words[] = {{"IMM_S8", "int8_t"},   {"IMM_U8", "uint8_t"},   {"IMM_S16", "int16_t"},
                 {"IMM_S32", "int32_t"}, {"IMM_U32", "uint32_t"}, {"IMM_I64", "uint64_t"}};
#define NIMM_WORDS (sizeof imm_words / sizeof *imm_words)

/* A part's body as its macro op runs it: the locals its operands are. */
typedef struct part_env {
    const macro_row *row;
    unsigned k;                /* the part's index */
    char reg[4][FU_MAX_KIND + 4]; /* what A, B, C, D become: "x3", "f0" */
    char imm[16];              /* what IMM_* becomes: "imm1" ("": none) */
    const char *imm_type;      /* and its type */
    char label[FU_MAX_NAME + 32]; /* where a NEXT() before the end goes */
    int goto_used;
} part_env;

/* Writes text with four more spaces of indentation on every line. */
typedef struct writer {
    FILE *out;
    int bol; /* at the beginning of a line */
} writer;

static void put(writer *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (w->bol && s[i] != '\n')
            fputs("    ", w->out);
        w->bol = s[i] == '\n';
        fputc(s[i], w->out);
    }
}

static void puts_(writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static int is_ident_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

/* The part's immediate as a value of type `type`. */
static void put_imm(writer *w, const part_env *e, const char *word, const char *type)
{
    const fu_macro *m = e->row->m;
    if (!e->imm[0])
        die("macro op %s: part %u, %s: its body reads %s, and the part has no immediate",
            m->name, e->k + 1, m->part[e->k].op, word);
    if (strcmp(type, e->imm_type) == 0) {
        puts_(w, e->imm);
        return;
    }
    char cast[64];
    snprintf(cast, sizeof cast, "((%s)%s)", type, e->imm);
    puts_(w, cast);
}

/* Skip blanks from text[i]; then expect `c` there (the body says `word`). */
static size_t expect(const part_env *e, const char *text, size_t len, size_t i, char c,
                     const char *word)
{
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    if (i == len || text[i] != c)
        die("vm_ops.h: the body of %s: %s without '%c'", e->row->m->part[e->k].op, word, c);
    return i + 1;
}

/* Is id one of the op's locals (its registers' and immediates' names)? */
static int is_local(const fu_macro *m, const char *id, size_t n)
{
    char name[FU_MAX_KIND + 4];
    for (unsigned r = 0; r < m->nregs; r++) {
        int len = snprintf(name, sizeof name, "%s%u", m->kind[r], r);
        if ((size_t)len == n && memcmp(name, id, n) == 0)
            return 1;
    }
    for (unsigned i = 0; i < m->nimms; i++) {
        int len = snprintf(name, sizeof name, "imm%u", i);
        if ((size_t)len == n && memcmp(name, id, n) == 0)
            return 1;
    }
    return 0;
}

/* One identifier of a body, at text[i .. i + n): written as the part
 * means it.  Returns where the text goes on. */
static size_t put_ident(writer *w, part_env *e, const char *text, size_t len, size_t i, size_t n,
                        unsigned *addr_depth, unsigned *naddr, unsigned *depth)
{
    const fu_macro *m = e->row->m;
    const fu_part *pt = &m->part[e->k];
    const char *id = text + i;
    if (n == 1 && id[0] >= 'A' && id[0] <= 'D') {
        unsigned j = (unsigned)(id[0] - 'A');
        if (j >= pt->nregs)
            die("vm_ops.h: the body of %s reads operand %c: the part has %u registers", pt->op,
                id[0], pt->nregs);
        puts_(w, e->reg[j]);
        return i + n;
    }
    for (unsigned q = 0; q < NIMM_WORDS; q++)
        if (strlen(imm_words[q].word) == n && memcmp(id, imm_words[q].word, n) == 0) {
            put_imm(w, e, imm_words[q].word, imm_words[q].type);
            return i + n;
        }
    if (n == 4 && memcmp(id, "ADDR", 4) == 0) {
        /* ADDR(r) reads the s32 offset immediate: ADDR_AT(r, the part's). */
        if (!e->imm[0])
            die("macro op %s: part %u, %s: its body uses ADDR, and the part has no immediate",
                m->name, e->k + 1, pt->op);
        if (*naddr == 8)
            die("vm_ops.h: the body of %s: ADDR nested too deep", pt->op);
        addr_depth[(*naddr)++] = ++*depth; /* its ')' closes this depth */
        puts_(w, "ADDR_AT(");
        return expect(e, text, len, i + n, '(', "ADDR");
    }
    if (n == 4 && memcmp(id, "NEXT", 4) == 0 && e->k + 1 < m->nparts) {
        /* Before the body's end: on to the next part. */
        size_t at = expect(e, text, len, expect(e, text, len, i + n, '(', "NEXT"), ')', "NEXT(");
        puts_(w, "goto ");
        puts_(w, e->label);
        e->goto_used = 1;
        return at;
    }
    if ((n == 7 && memcmp(id, "OP_IMM_", 7) == 0) || (n == 8 && memcmp(id, "OP_REGS_", 8) == 0))
        die("vm_ops.h: the body of %s reads its operands' offsets (%.*s): a macro op's part "
            "cannot",
            pt->op, (int)n, id);
    if (is_local(m, id, n))
        die("vm_ops.h: the body of %s names %.*s, the name of one of macro op %s's operands",
            pt->op, (int)n, id, m->name);
    put(w, id, n);
    return i + n;
}

/* Write body text[0 .. len) of part e->k with its operands written in. */
static void put_body(writer *w, part_env *e, const char *text, size_t len)
{
    unsigned depth = 0, addr_depth[8], naddr = 0;
    for (size_t i = 0; i < len;) {
        char c = text[i], d = i + 1 < len ? text[i + 1] : '\0';
        size_t n = 1;
        if (c == '/' && d == '*') { /* a comment: as it is */
            const char *end = strstr(text + i + 2, "*/");
            n = end && (size_t)(end - text) + 2 <= len ? (size_t)(end - text) + 2 - i : len - i;
        } else if (c == '/' && d == '/') {
            n = strcspn(text + i, "\n");
        } else if (c == '"' || c == '\'') {
            while (i + n < len && text[i + n] != c && text[i + n] != '\n')
                n += text[i + n] == '\\' && i + n + 1 < len ? 2 : 1;
            n += i + n < len && text[i + n] == c;
        } else if ((c >= '0' && c <= '9') || (c == '.' && d >= '0' && d <= '9')) {
            /* a number (0x1F, 1u: no identifier in it) */
            while (i + n < len && (is_ident_char(text[i + n], 0) || text[i + n] == '.' ||
                                   ((text[i + n] == '+' || text[i + n] == '-') &&
                                    strchr("eEpP", text[i + n - 1]))))
                n++;
        } else if (is_ident_char(c, 1)) {
            while (i + n < len && is_ident_char(text[i + n], 0))
                n++;
            i = put_ident(w, e, text, len, i, n, addr_depth, &naddr, &depth);
            continue;
        } else if (c == '(') {
            depth++;
        } else if (c == ')') {
            if (naddr && addr_depth[naddr - 1] == depth) {
                puts_(w, ", ");
                put_imm(w, e, "ADDR", "int32_t");
                naddr--;
            }
            depth--;
        }
        put(w, text + i, n);
        i += n;
    }
    if (naddr)
        die("vm_ops.h: the body of %s: ADDR( without its ')'", e->row->m->part[e->k].op);
}

/* The length of body text without its last line when that is NEXT(); at
 * the body's top level (every body ends so): the part then ends where the
 * next begins. */
static size_t without_last_next(const char *text)
{
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    size_t start = len;
    while (start && text[start - 1] != '\n')
        start--;
    static const char next[] = "    NEXT();";
    if (len - start == sizeof next - 1 && memcmp(text + start, next, len - start) == 0)
        return start;
    return strlen(text);
}

/* The handler of one macro op. */
static void write_op(FILE *out, const macro_row *r, const bodies *b)
{
    const fu_macro *m = r->m;
    fprintf(out, "\nOPCODE(%s)\n", m->name);
    uint32_t declared = 0; /* bit k: macro register k has its local */
    unsigned imm = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        const char *text = body_of(b, pt->op);
        if (!text)
            die("vm_ops.h has no body for %s", pt->op);
        if (pt->nregs > 4 || pt->nimms > 1)
            die("macro op %s: part %s has more operands than a baseline op", m->name, pt->op);
        part_env e = {.row = r, .k = k};
        snprintf(e.label, sizeof e.label, "macro_%s_part%u_", m->name, k + 2);
        /* The operands a part is the first to use, read where it starts:
         * fewer values live at once than if all were read at the top
         * (with tail calls, no callee-saved register to push), and a
         * value a part wrote still reaches the next in a machine
         * register, its register number being the same local. */
        int first = 1;
        for (unsigned j = 0; j < pt->nregs; j++) {
            unsigned reg = pt->reg[j];
            snprintf(e.reg[j], sizeof e.reg[j], "%s%u", m->kind[reg], reg);
            if (declared >> reg & 1)
                continue;
            declared |= UINT32_C(1) << reg;
            fprintf(out, "%s%s = MACRO_REG_(%u)", first ? "    const unsigned " : ", ", e.reg[j],
                    reg);
            first = 0;
        }
        if (!first)
            fputs(";\n", out);
        if (pt->nimms) {
            snprintf(e.imm, sizeof e.imm, "imm%u", imm);
            e.imm_type = imm_type(r->imm[imm]);
            int cast = strcmp(e.imm_type, "uint64_t") != 0;
            fprintf(out, "    const %s %s = %s%s%sMACRO_IMM_(OP_REGS_ + %u);\n", e.imm_type, e.imm,
                    cast ? "(" : "", cast ? e.imm_type : "", cast ? ")" : "",
                    r->pack + r->imm_at[imm]);
        }
        fprintf(out, "    /* part %u: %s", k + 1, pt->op);
        for (unsigned j = 0; j < pt->nregs; j++)
            fprintf(out, "%s%s", j ? ", " : " ", e.reg[j]);
        if (pt->nimms)
            fprintf(out, "%s%s", pt->nregs ? ", " : " ", e.imm);
        fputs(" */ {\n", out);
        writer w = {out, 1};
        int last = k + 1 == m->nparts;
        put_body(&w, &e, text, last ? strlen(text) : without_last_next(text));
        fputs("    }\n", out);
        if (e.goto_used)
            fprintf(out, "%s:;\n", e.label);
        imm += pt->nimms;
    }
    fputs("END_OPCODE\n", out);
}

static void write_bodies(FILE *out, const macro_row *rows, size_t n, const bodies *b)
{
    fputs("\n/* Each handler reads its operands into locals named as in the .macros\n"
          " * file (x0, f3: macro registers; imm0 ...: immediates, typed as their\n"
          " * part reads them), each where the first part that uses it starts, and\n"
          " * runs its parts' bodies from vm_ops.h in turn with those written in; a\n"
          " * part but the last goes on to the next at the end of its block. */\n",
          out);
    for (size_t i = 0; i < n; i++)
        write_op(out, &rows[i], b);
}

static FILE *create(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        die("%s: %s", path, strerror(errno));
    fprintf(f, "/* %s - GENERATED by pulley-macrogen from %s and interp/vm_ops.h:\n"
               " * do not edit (change the .macros file, or the parts' bodies). */\n",
            name, set_path);
    return f;
}

static void finish(FILE *f, const char *path)
{
    if (fflush(f) != 0 || ferror(f) || fclose(f) != 0)
        die("%s: write error", path);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pulley-macrogen SET.macros VM_OPS_H OUT_DIR\n");
        return 2;
    }
    set_path = argv[1];
    char err[512];
    fu_set set;
    if (fu_set_read(&set, set_path, err, sizeof err) != 0)
        die("%s", err);
    static bodies b;
    read_bodies(argv[2], &b);
    macro_row *rows = calloc(set.n + 1, sizeof *rows);
    if (!rows)
        die("out of memory");
    /* Primary numbers first, up to the escape byte but one: one primary
     * byte stays invalid, which the dispatch tables and verifier expect. */
    unsigned primary_free = PVM_ESCAPE_BYTE - 1 - PVM_OP_PRIMARY_END;
    if (set.n > primary_free + (0xFFFFu - PVM_OP_EXT_COUNT))
        die("%s: %zu macro ops do not fit the opcode space", set_path, set.n);
    for (size_t i = 0; i < set.n; i++) {
        describe(&set.macros[i], &rows[i]);
        rows[i].extended = i >= primary_free;
    }
    char path[4096];
    FILE *f = create(argv[3], "pulley_macro_rows.def", path, sizeof path);
    fprintf(f, "/* %zu macro ops (opcodes.def says what the rows hold). */\n", set.n);
    write_rows(f, rows, set.n);
    finish(f, path);
    f = create(argv[3], "pulley_macro_ops.h", path, sizeof path);
    write_bodies(f, rows, set.n, &b);
    finish(f, path);
    for (size_t i = 0; i < b.n; i++)
        free(b.v[i].text);
    free(rows);
    fu_set_free(&set);
    return 0;
}
