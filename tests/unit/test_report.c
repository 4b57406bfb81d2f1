/*
 * test_report.c - pulley-report's parts on hand-made profile databases:
 * shares and the ranking of functions with every benchmark weighing the
 * same, back-edges and loop heads, the heat scale, run summaries, the
 * stored disassembly and its fallback, the HTML (names escaped, an anchor
 * for every link, nothing external) and the terminal view (threshold,
 * context, colour, control characters kept off the terminal).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hot_code.h"
#include "profile_read.h"
#include "report_db.h"
#include "report_html.h"
#include "report_proposals.h"
#include "report_text.h"
#include "test_ngrams_db.h"

/*    0 xconst8 x1, 0
 *    3 xlt64_s x2, x1, x0      loop head         30 samples
 *    6 br_if_not x2, +14       -> 20             40
 *   12 xadd64 x1, x1, x3                         20
 *   15 jump -12                back-edge -> 3    10
 *   20 ret */
static void loop_function(tdb *t, int64_t run, int64_t id, const char *name)
{
    tcode c = {0};
    TC1(&c, T_XCONST8, 1, 0, 1);
    TC3(&c, T_XLT64_S, 2, 1, 0);
    TC1(&c, T_BR_IF_NOT, 2, 14, 4);
    TC3(&c, T_XADD64, 1, 1, 3);
    tc_op(&c, T_JUMP, 0, NULL, -12, 4);
    TC0(&c, T_RET);
    assert_int_equal(c.len, 21);
    tdb_function(t, run, id, name, &c);
    const uint32_t offs[] = {3, 6, 12, 15};
    const int64_t samples[] = {30, 40, 20, 10};
    for (int i = 0; i < 4; i++)
        tdb_samples(t, run, id, offs[i], samples[i]);
}

/* A function with `samples` at its only instruction (ret). */
static void flat_function(tdb *t, int64_t run, int64_t id, const char *name, int64_t samples)
{
    tcode c = {0};
    TC0(&c, T_RET);
    tdb_function(t, run, id, name, &c);
    if (samples)
        tdb_samples(t, run, id, 0, samples);
}

static void load(const char *path, an_profile *p, hc_view *v)
{
    an_runsel sel;
    char err[512];
    memset(p, 0, sizeof *p);
    an_runsel_init(&sel);
    assert_int_equal(an_runsel_parse(&sel, "all", err, sizeof err), 0);
    if (an_profile_read(p, path, &sel, err, sizeof err) < 0)
        fail_msg("%s", err);
    assert_int_equal(hc_build(p, v), 0);
}

static void unload(an_profile *p, hc_view *v)
{
    hc_free(v);
    an_profile_free(p);
}

static void each_benchmark_weighs_the_same(void **state)
{
    (void)state;
    tdb t;
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a.wasm", 0);
    loop_function(&t, 1, 1, "loop");       /* 100 samples */
    flat_function(&t, 1, 2, "other", 25);
    flat_function(&t, 1, 3, "cold", 0);
    tdb_run(&t, 2, NULL, "b.wasm", 0);
    flat_function(&t, 2, 4, "solo", 7);
    tdb_close(&t);
    an_profile p;
    hc_view v;
    load(t.path, &p, &v);
    assert_int_equal(v.nall, 4);
    assert_int_equal(v.nfuncs, 3); /* cold never ran */
    assert_string_equal(v.funcs[0].f->name, "solo");
    assert_string_equal(v.funcs[1].f->name, "loop");
    assert_string_equal(v.funcs[2].f->name, "other");
    assert_float_equal(v.funcs[0].share, 0.5, 1e-12);
    assert_float_equal(v.funcs[1].share, 0.4, 1e-12);
    assert_float_equal(v.funcs[2].share, 0.1, 1e-12);
    assert_float_equal(v.funcs[1].count, 100, 0);
    /* Instruction shares: 40 of run a's 125 samples, halved. */
    assert_int_equal(v.funcs[1].hottest, 2);
    assert_float_equal(v.funcs[1].insn_share[2], 0.5 * 40 / 125, 1e-12);
    assert_float_equal(v.max_insn_share, 0.5, 1e-12);
    assert_true(v.any_sampled);
    assert_false(v.any_exact);
    assert_string_equal(hc_count_name(&v), "samples");
    /* At least the hottest is shown, then those at the threshold. */
    assert_int_equal(rp_text_functions(&v, 0.9, 10), 1);
    assert_int_equal(rp_text_functions(&v, 0.4, 10), 2);
    assert_int_equal(rp_text_functions(&v, 0.0, 2), 2);
    unload(&p, &v);
    tdb_remove(&t);
}

static void back_edges_and_loop_heads(void **state)
{
    (void)state;
    tdb t;
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a.wasm", 1);
    loop_function(&t, 1, 1, "loop");
    /* 0 xconst8 x0, 0; 3 br_table x0 [-3, -3, +18]; 21 ret */
    tcode c = {0};
    TC1(&c, T_XCONST8, 0, 0, 1);
    TC1(&c, T_BR_TABLE, 0, 3, 4);
    tc_u32(&c, (uint32_t)-3);
    tc_u32(&c, (uint32_t)-3);
    tc_u32(&c, 18);
    TC0(&c, T_RET);
    tdb_function(&t, 1, 2, "table", &c);
    for (int i = 0; i < 3; i++)
        tdb_count(&t, 1, 1, (uint32_t[]){0, 3, 6}[i], 1);
    tdb_count(&t, 1, 2, 0, 2);
    tdb_count(&t, 1, 2, 3, 2);
    tdb_count(&t, 1, 2, 21, 1);
    tdb_close(&t);
    an_profile p;
    hc_view v;
    load(t.path, &p, &v);
    assert_int_equal(v.nfuncs, 2);
    assert_true(v.any_exact);
    assert_string_equal(hc_count_name(&v), "executions");
    const hc_func *loop = strcmp(v.funcs[0].f->name, "loop") == 0 ? &v.funcs[0] : &v.funcs[1];
    const hc_func *table = loop == &v.funcs[0] ? &v.funcs[1] : &v.funcs[0];
    const uint8_t loop_marks[] = {0, HC_LOOP_HEAD, 0, 0, HC_BACK_EDGE, 0};
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(loop->marks[i], loop_marks[i]);
    assert_int_equal(loop->nloops, 1);
    uint32_t to[4];
    assert_int_equal(hc_targets(loop->f, 4, to, 4), 1);
    assert_int_equal(to[0], 3);
    assert_int_equal(hc_targets(loop->f, 2, to, 4), 1); /* forward */
    assert_int_equal(to[0], 20);
    assert_int_equal(hc_targets(loop->f, 3, to, 4), 0);
    /* A jump table listing its own start twice: one back-edge. */
    assert_int_equal(hc_targets(table->f, 1, to, 4), 2);
    assert_int_equal(to[0], 0);
    assert_int_equal(to[1], 21);
    assert_int_equal(table->marks[0], HC_LOOP_HEAD);
    assert_int_equal(table->marks[1], HC_BACK_EDGE);
    assert_int_equal(table->nloops, 1);
    unload(&p, &v);
    tdb_remove(&t);
}

static void heat_scale_halves_from_the_top(void **state)
{
    (void)state;
    assert_int_equal(hc_heat(0, 1), 0);
    assert_int_equal(hc_heat(0.3, 0), 0);
    assert_int_equal(hc_heat(1, 1), 7);
    assert_int_equal(hc_heat(0.5, 1), 7);
    assert_int_equal(hc_heat(0.49, 1), 6);
    assert_int_equal(hc_heat(0.2, 1), 5);
    assert_int_equal(hc_heat(1e-9, 1), 1);
    assert_float_equal(hc_heat_floor(7, 0.4), 0.2, 1e-15);
    assert_float_equal(hc_heat_floor(2, 1), 1.0 / 64, 1e-15);
    assert_float_equal(hc_heat_floor(1, 1), 0, 0);
    for (int l = 2; l < HC_LEVELS; l++) {
        assert_int_equal(hc_heat(hc_heat_floor(l, 0.3), 0.3), l);
        assert_int_equal(hc_heat(hc_heat_floor(l, 0.3) * 0.999, 0.3), l - 1);
    }
}

static void exec_sql(tdb *t, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(t->db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

static void run_summary_and_disassembly(void **state)
{
    (void)state;
    tdb t;
    tdb_create(&t);
    tdb_run(&t, 1, "base", "a.wasm", 0);
    loop_function(&t, 1, 1, "loop");
    exec_sql(&t, "INSERT INTO pc_samples VALUES (1, NULL, NULL, 0, 5);"
                 "UPDATE runs SET samples_taken = 105, outcome = 'return' WHERE id = 1;"
                 "INSERT INTO instructions (function_id, offset, length, opcode, text) VALUES (1, 12, 3, 4, 'stored add');");
    tdb_close(&t);
    an_profile p;
    hc_view v;
    char err[512], buf[128];
    load(t.path, &p, &v);
    rp_run_info info[1];
    assert_int_equal(rp_read_runs(&p, info, err, sizeof err), 0);
    assert_int_equal(info[0].sample_hz, 1000);
    assert_int_equal(info[0].samples_taken, 105);
    assert_int_equal(info[0].samples_dropped, -1); /* NULL */
    assert_int_equal(info[0].duration_ns, -1);
    assert_int_equal(info[0].host_samples, 5);
    assert_int_equal(info[0].bytecode_samples, 100);
    assert_string_equal(info[0].outcome, "return");
    assert_string_equal(info[0].start_time, "2026-01-01");
    rp_free_runs(info, 1);
    /* Before the rows are read, and for instructions without a row, the
     * text is made from the decoded instruction. */
    const hc_func *h = &v.funcs[0];
    assert_string_equal(rp_insn_text(&p, h, 3, buf, sizeof buf), "xadd64 x1, x1, x3");
    assert_int_equal(rp_read_text(&p, v.funcs, 1, err, sizeof err), 0);
    assert_string_equal(rp_insn_text(&p, h, 3, buf, sizeof buf), "stored add");
    assert_string_equal(rp_insn_text(&p, h, 1, buf, sizeof buf), "xlt64_s x2, x1, x0");
    assert_string_equal(rp_insn_text(&p, h, 2, buf, sizeof buf), "br_if_not x2, +14");
    assert_string_equal(rp_insn_text(&p, h, 4, buf, sizeof buf), "jump -12");
    assert_string_equal(rp_insn_text(&p, h, 5, buf, sizeof buf), "ret");
    unload(&p, &v);
    tdb_remove(&t);
}

/* Every href="#X" of html has an id="X". */
static void assert_links_resolve(const char *html)
{
    size_t links = 0, len = strlen(html);
    for (size_t at = 0; at + 7 < len; at++) {
        if (strncmp(html + at, "href=\"", 6) != 0)
            continue;
        assert_true(html[at + 6] == '#');
        size_t end = at + 7;
        while (end < len && html[end] != '"')
            end++;
        assert_true(end < len);
        char id[128];
        int n = snprintf(id, sizeof id, "id=\"%.*s\"", (int)(end - at - 7), html + at + 7);
        assert_true(n > 0 && (size_t)n < sizeof id);
        if (!strstr(html, id))
            fail_msg("link %s has no anchor", id);
        links++;
    }
    assert_true(links > 5);
}

static char *render_html(an_profile *p, hc_view *v, rp_proposals *props)
{
    char err[512], *html = NULL;
    size_t size = 0;
    rp_run_info info[4];
    assert_true(p->nruns <= 4);
    assert_int_equal(rp_proposals_compute(p, 4, 8, 64, props), 0);
    assert_int_equal(rp_read_runs(p, info, err, sizeof err), 0);
    size_t nshow = rp_text_functions(v, 0, 10);
    assert_int_equal(rp_read_text(p, v->funcs, nshow, err, sizeof err), 0);
    FILE *out = open_memstream(&html, &size);
    assert_non_null(out);
    rp_html h = {p, v, info, props, nshow, 0.005, "test"};
    assert_int_equal(rp_write_html(out, &h), 0);
    assert_int_equal(fclose(out), 0);
    rp_free_runs(info, p->nruns);
    return html;
}

static void html_escapes_names_and_links_within(void **state)
{
    (void)state;
    tdb t;
    tdb_create(&t);
    tdb_run(&t, 1, "<i>label</i>", "a.wasm", 0);
    loop_function(&t, 1, 1, "<script>alert(\"x\")</script>");
    exec_sql(&t, "INSERT INTO instructions (function_id, offset, length, opcode, text) VALUES (1, 12, 3, 4, '<b>add</b> & co');");
    tdb_close(&t);
    an_profile p;
    hc_view v;
    rp_proposals props;
    load(t.path, &p, &v);
    char *html = render_html(&p, &v, &props);
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<b>"));
    assert_null(strstr(html, "<i>"));
    assert_non_null(strstr(html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
    assert_non_null(strstr(html, "&lt;b&gt;add&lt;/b&gt; &amp; co"));
    assert_null(strstr(html, "http"));
    assert_null(strstr(html, "src="));
    /* Anchors per function and instruction; rows carry their heat. */
    assert_non_null(strstr(html, "<section class=\"func\" id=\"f1\">"));
    assert_non_null(strstr(html, "<tr id=\"f1-0x6\" class=\"h7\" data-share=\"40.0000\">"));
    assert_non_null(strstr(html, "<tr id=\"f1-0x0\" class=\"h0\" data-share=\"0.0000\">"));
    assert_non_null(strstr(html, "<a class=\"back\" href=\"#f1-0x3\""));
    assert_non_null(strstr(html, "<a class=\"fwd\" href=\"#f1-0x14\""));
    /* Both blocks of the loop become macro ops, linked both ways. */
    assert_int_equal(props.set.n, 2);
    assert_non_null(strstr(html, "<tr id=\"p1\">"));
    assert_non_null(strstr(html, "href=\"#p2\""));
    /* Under each proposal, a line of its places: one each here, linked
     * to the instruction, with the share it saves. */
    size_t lines = 0;
    for (const char *at = html; (at = strstr(at, "<tr class=\"places\"><td></td><td colspan=\"6\">1 place: "));
         at++)
        lines++;
    assert_int_equal(lines, 2);
    assert_non_null(strstr(html, "<span class=\"place\"><a href=\"#f1-0x3\">"));
    assert_non_null(strstr(html, "</a> <span class=\"sv\">"));
    assert_links_resolve(html);
    free(html);
    rp_proposals_free(&props);
    unload(&p, &v);
    tdb_remove(&t);
}

static char *render_text(const an_profile *p, const hc_view *v, double threshold, unsigned context,
                         int color)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    rp_text_opts o = {threshold, 10, context, color};
    assert_int_equal(rp_write_text(out, p, v, &o), 0);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void text_view_threshold_context_colour(void **state)
{
    (void)state;
    tdb t;
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a.wasm", 0);
    loop_function(&t, 1, 1, "bad\033]0;title\aname");
    flat_function(&t, 1, 2, "tiny", 1);
    tdb_close(&t);
    an_profile p;
    hc_view v;
    load(t.path, &p, &v);
    /* Shares: 3 -> 30/101, 6 -> 40/101, 12 -> 20/101, 15 -> 10/101. */
    char *s = render_text(&p, &v, 0.25, 0, 0);
    assert_non_null(strstr(s, " 0x0003  xlt64_s x2, x1, x0"));
    assert_non_null(strstr(s, " 0x0006  br_if_not x2, +14"));
    assert_null(strstr(s, " 0x000c  "));
    assert_null(strstr(s, " 0x0000  "));
    assert_null(strchr(s, '\033'));
    assert_non_null(strstr(s, "bad?]0;title?name"));
    assert_non_null(strstr(s, "1 more executed function, 0.99% together"));
    free(s);
    /* One instruction of context each side. */
    s = render_text(&p, &v, 0.25, 1, 0);
    assert_non_null(strstr(s, " 0x0000  xconst8 x1, 0\n"));
    assert_non_null(strstr(s, " 0x000c  xadd64 x1, x1, x3\n"));
    assert_null(strstr(s, " 0x000f  "));
    assert_non_null(strstr(s, "[loop head]"));
    free(s);
    /* Everything executed, and colour. */
    s = render_text(&p, &v, 0, 0, 1);
    assert_non_null(strstr(s, "jump -12"));
    assert_non_null(strstr(s, "[back to 0x0003]"));
    assert_non_null(strstr(s, "\033[1;31m"));
    assert_non_null(strstr(s, "\033[0m"));
    assert_null(strstr(s, "\033]"));
    free(s);
    unload(&p, &v);
    tdb_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_benchmark_weighs_the_same),
        cmocka_unit_test(back_edges_and_loop_heads),
        cmocka_unit_test(heat_scale_halves_from_the_top),
        cmocka_unit_test(run_summary_and_disassembly),
        cmocka_unit_test(html_escapes_names_and_links_within),
        cmocka_unit_test(text_view_threshold_context_colour),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
