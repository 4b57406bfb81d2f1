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
 * A part's body runs unchanged but for its operands and its end: the
 * part's register operands A, B, C, D become the macro registers the set
 * names (X(r) and FBITS(r) resolve them per part), its immediate is read
 * at its own offset in the macro instruction, and NEXT() goes on to the
 * next part; the last part's NEXT() dispatches the next instruction, its
 * branches, calls and traps work from the macro instruction's pc.  It is
 * built with the baseline table alone (its own copy of isa.c).
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
                char cls = fmt->reg[j] == PVM_REG_X ? 'x' : 'f';
                if (m->cls[r] != cls)
                    die("%s: macro op %s: part %u, %s, takes an %c register as operand %u, not %c%u",
                        set_path, m->name, k + 1, pt->op, cls, j + 1, m->cls[r], r);
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
            kinds[j] = m->cls[j] == 'x' ? PVM_REG_X : PVM_REG_F;
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

static const char *const imm_macros[] = {"IMM_S8", "IMM_U8", "IMM_S16", "IMM_S32", "IMM_U32",
                                         "IMM_I64"};
static const char *const imm_casts[] = {"(int8_t)", "(uint8_t)", "(int16_t)", "(int32_t)",
                                        "(uint32_t)", ""};
#define NIMM_MACROS (sizeof imm_macros / sizeof *imm_macros)

static void write_bodies(FILE *out, const macro_row *rows, size_t n, const bodies *b)
{
    static const char letters[] = "ABCD";
    fputs("\n/* Within these bodies X(r) and FBITS(r) name the macro register that\n"
          " * the part's operand r (A, B, C or D) is (MACRO_X_A ...: a local read\n"
          " * where the first part that uses it starts), and IMM_* the part's own\n"
          " * immediate. */\n"
          "#undef A\n#undef B\n#undef C\n#undef D\n#undef X\n#undef FBITS\n"
          "#define X(r) MACRO_X_##r\n#define FBITS(r) MACRO_F_##r\n",
          out);
    for (unsigned i = 0; i < NIMM_MACROS; i++)
        fprintf(out, "#undef %s\n", imm_macros[i]);
    for (size_t i = 0; i < n; i++) {
        const macro_row *r = &rows[i];
        const fu_macro *m = r->m;
        fprintf(out, "\n/* ---- %s: ", m->name);
        print_semantics(out, m);
        fprintf(out, " */\nOPCODE(%s)\n", m->name);
        unsigned imm = 0;
        uint32_t read = 0; /* bit k: macro register k is in its local */
        for (unsigned k = 0; k < m->nparts; k++) {
            const fu_part *pt = &m->part[k];
            const char *text = body_of(b, pt->op);
            if (!text)
                die("vm_ops.h has no body for %s", pt->op);
            if (pt->nregs > 4 || pt->nimms > 1)
                die("macro op %s: part %s has more operands than a baseline op", m->name, pt->op);
            /* The operands a part is the first to use, read where it starts:
             * fewer values live at once than if all were read at the top
             * (with tail calls, no callee-saved register to push), and a
             * value a part wrote still reaches the next in a machine
             * register, its register number being the same local. */
            for (unsigned j = 0; j < pt->nregs; j++)
                if (!(read >> pt->reg[j] & 1)) {
                    read |= UINT32_C(1) << pt->reg[j];
                    fprintf(out, "    const unsigned macro_reg%u_ = MACRO_REG_(%u);\n",
                            pt->reg[j], pt->reg[j]);
                }
            if (pt->nimms)
                fprintf(out, "    const uint64_t macro_imm%u_ = MACRO_IMM_(OP_REGS_ + %u);\n",
                        imm, r->pack + r->imm_at[imm]);
            for (unsigned j = 0; j < pt->nregs; j++)
                fprintf(out, "#define MACRO_X_%c X_REG_(macro_reg%u_)\n"
                             "#define MACRO_F_%c F_REG_(macro_reg%u_)\n",
                        letters[j], pt->reg[j], letters[j], pt->reg[j]);
            for (unsigned j = 0; pt->nimms && j < NIMM_MACROS; j++)
                fprintf(out, "#define %s (%smacro_imm%u_)\n", imm_macros[j], imm_casts[j], imm);
            int last = k + 1 == m->nparts;
            fputs("#undef NEXT\n", out);
            if (last)
                fputs("#define NEXT() NEXT_INSN_()\n", out);
            else
                fprintf(out, "#define NEXT() goto macro_%s_part%u_\n", m->name, k + 2);
            fprintf(out, "    { /* part %u: %s */\n", k + 1, pt->op);
            imm += pt->nimms;
            fputs(text, out);
            fputs("    }\n", out);
            if (!last)
                fprintf(out, "macro_%s_part%u_: __attribute__((unused));\n", m->name, k + 2);
            for (unsigned j = 0; j < pt->nregs; j++)
                fprintf(out, "#undef MACRO_X_%c\n#undef MACRO_F_%c\n", letters[j], letters[j]);
            for (unsigned j = 0; pt->nimms && j < NIMM_MACROS; j++)
                fprintf(out, "#undef %s\n", imm_macros[j]);
        }
        fputs("END_OPCODE\n", out);
    }
    fputs("\n/* The vocabulary as vm_dispatch.h defines it. */\n"
          "#undef X\n#undef FBITS\n#define X(r) X_REG_(r)\n#define FBITS(r) F_REG_(r)\n"
          "#define A BASE_REG_A_\n#define B BASE_REG_B_\n#define C BASE_REG_C_\n"
          "#define D BASE_REG_D_\n",
          out);
    for (unsigned i = 0; i < NIMM_MACROS; i++)
        fprintf(out, "#define %s BASE_%s_\n", imm_macros[i], imm_macros[i]);
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
