/*
 * fuse_rows.c - the fusion pass's rows (fuse_rows.h), made once from the
 * opcode table.
 */
#include "fuse_rows.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"

static fuse_rows rows;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

static const pvm_format_info *op_format(unsigned op)
{
    return &pvm_formats[pvm_ops[op].format];
}

/* The byte of an instruction's branch offset when that is the only code
 * offset its format names, else 0. */
static uint8_t rel_offset(unsigned op)
{
    const pvm_format_info *fmt = op_format(op);
    unsigned at = 0, rels = 0;
    for (unsigned k = 0; k < fmt->nimms; k++) {
        if (fmt->imm[k] == PVM_IMM_TABLE)
            return 0;
        if (fmt->imm[k] == PVM_IMM_REL32) {
            rels++;
            at = (PVM_OP_IS_EXT(op) ? 3 : 1) + fmt->pack_bytes + fmt->imm_at[k];
        }
    }
    return rels == 1 ? (uint8_t)at : 0;
}

static void make_facts(op_facts facts[PVM_OP_END])
{
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = &pvm_ops[op];
        if (!info->name)
            continue;
        const pvm_format_info *fmt = op_format(op);
        op_facts *f = &facts[op];
        *f = (op_facts){.wide = (uint16_t)pvm_op_wide(op), .length = info->length,
                        .hdr = PVM_OP_IS_EXT(op) ? 3 : 1, .nregs = fmt->nregs,
                        .offsets = pvm_format_names_code_offsets(fmt),
                        .rel_at = rel_offset(op),
                        .ends_block = (info->flags & (PVM_FLAG_BRANCH | PVM_FLAG_TERM)) != 0};
        for (unsigned r = 0; r < fmt->nregs; r++) {
            f->fregs |= (uint16_t)((fmt->reg[r] == PVM_REG_F) << r);
            if (r < 4 && fmt->reg[r] == PVM_REG_F)
                f->fadd |= 32u << (8 * r);
        }
    }
}

/* The pattern of macro op `op`, from its parts as its row numbers them. */
static int pattern_of_row(unsigned op, fu_pattern *out)
{
    const pvm_macro_info *info = pvm_ops[op].macro;
    fu_insn parts[FU_MAX_PARTS];
    if (info->nparts > FU_MAX_PARTS)
        return -1;
    for (unsigned k = 0; k < info->nparts; k++) {
        const pvm_format_info *pf = op_format(info->part[k].op);
        if (pf->nregs > FU_MAX_REGS)
            return -1;
        parts[k].op = info->part[k].op;
        parts[k].nregs = pf->nregs;
        memcpy(parts[k].reg, info->part[k].reg, pf->nregs);
    }
    return fu_pattern_of_parts(parts, info->nparts, out);
}

/* Copy n bytes of part k from byte src to the recipe's byte dst. */
static int recipe_take(recipe *r, unsigned dst, unsigned k, unsigned src, unsigned n)
{
    if (dst + n > r->length)
        return -1;
    for (unsigned b = 0; b < n; b++) {
        r->part[dst + b] = (uint8_t)k;
        r->from[dst + b] = (uint8_t)(src + b);
    }
    return 0;
}

/* The recipe of macro op `op` (usable stays 0 where there is none). */
static void make_recipe(const op_facts facts[PVM_OP_END], unsigned op, recipe *r)
{
    const pvm_macro_info *info = pvm_ops[op].macro;
    const pvm_format_info *fmt = op_format(op);
    unsigned hdr = facts[op].hdr;
    if ((facts[op].offsets && !facts[op].rel_at) || pvm_ops[op].length > RECIPE_MAX)
        return;
    r->length = pvm_ops[op].length;
    r->rel_at = facts[op].rel_at;
    memset(r->part, NO_PART, sizeof r->part);
    (void)pvm_write_opcode(r->bytes, op);
    for (unsigned k = 0; k < info->nparts; k++) {
        const pvm_macro_part *part = &info->part[k];
        const pvm_format_info *pf = op_format(part->op);
        unsigned phdr = facts[part->op].hdr;
        for (unsigned i = 0; i < pf->nregs; i++)
            if (recipe_take(r, hdr + part->reg[i], k, phdr + i, 1) != 0)
                return;
        for (unsigned i = 0; i < pf->nimms; i++) {
            unsigned mi = part->imm[i], size = pvm_imm_size(pf->imm[i]);
            if (mi >= fmt->nimms || size != pvm_imm_size(fmt->imm[mi]) ||
                recipe_take(r, hdr + fmt->pack_bytes + fmt->imm_at[mi], k,
                            phdr + pf->pack_bytes + pf->imm_at[i], size) != 0)
                return;
        }
    }
    for (unsigned j = hdr; j < r->length; j++)
        if (r->part[j] == NO_PART)
            return; /* a byte no part gives */
    r->usable = 1;
}

static void make_rows(void)
{
    fuse_rows *r = &rows;
    make_facts(r->facts);
    for (unsigned op = 0; op < PVM_OP_END; op++)
        if (pvm_ops[op].name && pvm_ops[op].macro &&
            pattern_of_row(op, &r->patterns[r->npatterns]) == 0)
            r->pattern_op[r->npatterns++] = (uint16_t)op;
    (void)fu_index_build(&r->index, r->patterns, r->npatterns); /* all zero if it fails */
    for (size_t i = 0; i < r->npatterns; i++)
        r->max_parts = r->patterns[i].n > r->max_parts ? r->patterns[i].n : r->max_parts;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        unsigned wide = r->facts[op].wide;
        r->facts[op].ends_pattern =
            !r->index.start ||
            (wide < r->index.nops && r->index.start[wide + 1] > r->index.start[wide]);
    }
    r->recipes = r->npatterns ? calloc(r->npatterns, sizeof *r->recipes) : NULL;
    for (size_t i = 0; r->recipes && i < r->npatterns; i++)
        make_recipe(r->facts, r->pattern_op[i], &r->recipes[i]);
}

const fuse_rows *pvm_fuse_rows(void)
{
    pthread_once(&rows_once, make_rows);
    return &rows;
}
