/*
 * report_html_code.c - the annotated disassembly of one function in the
 * HTML report (see report_html_code.h).
 */
#include "report_html_code.h"

#include <inttypes.h>
#include <stdlib.h>

#include "blocks.h"

#define TARGETS_SHOWN 4 /* branch targets linked per instruction */

typedef struct fn_ctx {
    FILE *out;
    const rp_html *h;
    const hc_func *hf;
    int32_t *macro;  /* proposal covering each instruction, or -1 */
    uint8_t *start;  /* an occurrence starts here */
    uint8_t *keep;   /* per block: shown even in a cold stretch */
    uint32_t num;    /* the function's number in the report (#1 ...), its anchor */
} fn_ctx;

/* A block is kept when it was seen (has samples or executions) or is a
 * branch target of a seen block, so that no link of a seen row dangles. */
static void blocks_to_keep(const an_func *f, uint8_t *keep)
{
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks[b].n && !keep[b]; i++)
            keep[b] = f->insns[f->blocks[b].first + i].count > 0;
    for (uint32_t e = 0; e < f->nedges; e++) {
        if (f->edges[e].from >= f->ninsns || f->insns[f->edges[e].from].count <= 0)
            continue;
        long t = an_insn_at(f, f->edges[e].to);
        if (t >= 0)
            keep[f->insns[t].block] |= 2;
    }
}

static void heading(const fn_ctx *c, size_t k)
{
    const an_func *f = c->hf->f;
    const an_run *run = &c->h->p->runs[c->hf->run];
    fprintf(c->out, "<section class=\"func\" id=\"f%" PRIu32 "\">\n<h2>#%zu <span class=\"fname mono\">",
            c->num, k + 1);
    rp_html_escape(c->out, f->name);
    fprintf(c->out, "</span> <span class=\"fshare\">%.2f%%</span></h2>\n<p class=\"meta\">",
            100 * c->hf->share);
    rp_html_escape(c->out, run->benchmark ? run->benchmark : "?");
    fprintf(c->out, ", run %" PRId64 " of <span class=\"mono\">", an_func_run(run, f));
    rp_html_escape(c->out, an_func_db(run, f));
    fprintf(c->out, "</span> &middot; %.0f %s &middot; %" PRIu32 " instructions in %" PRIu32
                    " blocks, %" PRIu32 " back-edge%s &middot; <a href=\"#hot\">all hot functions</a></p>\n",
            c->hf->count, run->exact ? "executions" : "samples", f->ninsns, f->nblocks, c->hf->nloops,
            c->hf->nloops == 1 ? "" : "s");
    fprintf(c->out, "<table class=\"code\">\n<thead><tr><th class=\"r\">share %%</th><th class=\"r\">%s</th>"
                    "<th>offset</th><th>block</th><th>instruction</th><th>branches to</th>"
                    "<th>macro op</th></tr></thead>\n",
            run->exact ? "executions" : "samples");
}

static void control_flow(const fn_ctx *c, uint32_t i)
{
    const an_func *f = c->hf->f;
    uint32_t to[TARGETS_SHOWN];
    size_t n = hc_targets(f, i, to, TARGETS_SHOWN);
    fputs("<td class=\"cf\">", c->out);
    for (size_t t = 0; t < n && t < TARGETS_SHOWN; t++) {
        int back = to[t] <= f->insns[i].off;
        fprintf(c->out, "%s<a class=\"%s\" href=\"#f%" PRIu32 "-0x%" PRIx32 "\" title=\"%s 0x%04" PRIx32
                        "\">%s 0x%04" PRIx32 "</a>",
                t ? " " : "", back ? "back" : "fwd", c->num, to[t],
                back ? "back-edge: loop to" : "branch to", to[t], back ? "&#8624;" : "&#8600;", to[t]);
    }
    if (n > TARGETS_SHOWN)
        fprintf(c->out, " +%zu", n - TARGETS_SHOWN);
    fputs("</td>", c->out);
}

static void macro_cell(const fn_ctx *c, uint32_t i)
{
    fputs("<td class=\"mo\">", c->out);
    int32_t k = c->macro ? c->macro[i] : -1;
    if (k >= 0 && c->start[i])
        fprintf(c->out, "<a href=\"#p%" PRId32 "\" title=\"proposed macro op %" PRId32 "\">P%" PRId32 "</a>",
                k + 1, k + 1, k + 1);
    else if (k >= 0)
        fputs("&#9474;", c->out);
    fputs("</td>", c->out);
}

static void row(const fn_ctx *c, uint32_t i)
{
    const hc_func *hf = c->hf;
    const an_insn *in = &hf->f->insns[i];
    double share = hf->insn_share[i];
    char buf[256];
    fprintf(c->out, "<tr id=\"f%" PRIu32 "-0x%" PRIx32 "\" class=\"h%d\" data-share=\"%.4f\">"
                    "<td class=\"pct r\">%.2f</td><td class=\"r\">%.0f</td><td>0x%04" PRIx32 "</td>"
                    "<td class=\"blk\">",
            c->num, in->off, hc_heat(share, c->h->v->max_insn_share), 100 * share, 100 * share,
            in->count, in->off);
    if (in->leader)
        fprintf(c->out, "B%" PRIu32 "%s", in->block, (hf->marks[i] & HC_LOOP_HEAD) ? " &#10226; loop" : "");
    fputs("</td><td class=\"ins\">", c->out);
    rp_html_escape(c->out, rp_insn_text(c->h->p, hf, i, buf, sizeof buf));
    fputs("</td>", c->out);
    control_flow(c, i);
    macro_cell(c, i);
    fputs("</tr>\n", c->out);
}

/* Blocks [b, e) are cold; fold them when they are long enough.  Returns
 * the block after the stretch, or b when it was not folded. */
static uint32_t fold_cold(const fn_ctx *c, uint32_t b)
{
    const an_func *f = c->hf->f;
    uint32_t e = b, n = 0;
    while (e < f->nblocks && !c->keep[e])
        n += f->blocks[e++].n;
    if (n < RP_ELIDE_MIN)
        return b;
    const an_insn *first = &f->insns[f->blocks[b].first];
    const an_insn *last = &f->insns[f->blocks[e - 1].first + f->blocks[e - 1].n - 1];
    fprintf(c->out, "<tbody class=\"blk elided\"><tr><td colspan=\"7\">&hellip; %" PRIu32
                    " instructions in %" PRIu32 " blocks never %s (0x%04" PRIx32 "&ndash;0x%04" PRIx32
                    ")</td></tr></tbody>\n",
            n, e - b, c->h->p->runs[c->hf->run].exact ? "executed" : "sampled", first->off, last->off);
    return e;
}

static void body(const fn_ctx *c)
{
    const an_func *f = c->hf->f;
    for (uint32_t b = 0; b < f->nblocks;) {
        if (!c->keep[b]) {
            uint32_t next = fold_cold(c, b);
            if (next != b) {
                b = next;
                continue;
            }
        }
        const an_block *bl = &f->blocks[b];
        fprintf(c->out, "<tbody class=\"blk%s\" id=\"f%" PRIu32 "-b%" PRIu32 "\">\n",
                (c->hf->marks[bl->first] & HC_LOOP_HEAD) ? " loop" : "", c->num, b);
        for (uint32_t i = 0; i < bl->n; i++)
            row(c, bl->first + i);
        fputs("</tbody>\n", c->out);
        b++;
    }
}

int rp_html_function(FILE *out, const rp_html *h, size_t k)
{
    const hc_func *hf = &h->v->funcs[k];
    const an_func *f = hf->f;
    fn_ctx c = {out, h, hf, NULL, NULL, calloc(f->nblocks + 1, 1), (uint32_t)k + 1};
    if (!c.keep)
        return -1;
    if (h->props && h->props->set.n) {
        c.macro = malloc((f->ninsns + 1) * sizeof *c.macro);
        c.start = malloc(f->ninsns + 1);
        if (!c.macro || !c.start || rp_cover_marks(h->props, f, c.macro, c.start) != 0) {
            free(c.macro);
            free(c.start);
            free(c.keep);
            return -1;
        }
    }
    blocks_to_keep(f, c.keep);
    heading(&c, k);
    body(&c);
    fputs("</table>\n</section>\n", out);
    free(c.macro);
    free(c.start);
    free(c.keep);
    return 0;
}
