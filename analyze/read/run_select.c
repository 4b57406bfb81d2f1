/*
 * run_select.c - the run selection (see run_select.h).
 */
#include "run_select.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void an_runsel_init(an_runsel *sel)
{
    memset(sel, 0, sizeof *sel);
    sel->used = 1; /* offset 0 means "none" */
}

static const char *str_at(const an_runsel *sel, uint16_t at) { return at ? sel->text + at : NULL; }

/* Keep n bytes of s; its offset, or 0 when the selection is full. */
static uint16_t keep(an_runsel *sel, const char *s, size_t n)
{
    if (sel->used + n + 1 > sizeof sel->text)
        return 0;
    uint16_t at = (uint16_t)sel->used;
    memcpy(sel->text + at, s, n);
    sel->text[at + n] = '\0';
    sel->used += n + 1;
    return at;
}

static an_sel_item *new_item(an_runsel *sel, an_sel_sort sort)
{
    if (sel->n == AN_SEL_MAX)
        return NULL;
    an_sel_item *it = &sel->items[sel->n++];
    *it = (an_sel_item){.sort = sort};
    return it;
}

/* A run id: decimal, 1 or more. */
static int parse_id(const char *s, size_t n, int64_t *id)
{
    if (n == 0 || n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *id = v;
    return v >= 1 ? 0 : -1;
}

static int parse_spec(an_runsel *sel, const char *s, size_t n, char *err, size_t cap)
{
    int64_t id;
    an_sel_item *it;
    if (n == 3 && memcmp(s, "all", 3) == 0) {
        sel->all = 1;
        return 0;
    }
    if (n > 6 && memcmp(s, "label:", 6) == 0) {
        if (!(it = new_item(sel, AN_SEL_LABEL)) || !(it->label = keep(sel, s + 6, n - 6)))
            goto full;
        return 0;
    }
    if (n > 5 && memcmp(s, "kind:", 5) == 0) {
        int exact = n - 5 == 5 && memcmp(s + 5, "exact", 5) == 0;
        if (!exact && !(n - 5 == 7 && memcmp(s + 5, "sampled", 7) == 0)) {
            snprintf(err, cap, "'%.*s': the kinds are kind:exact and kind:sampled", (int)n, s);
            return -1;
        }
        if (!(it = new_item(sel, AN_SEL_KIND)))
            goto full;
        it->exact = exact;
        return 0;
    }
    const char *colon = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ':')
            colon = s + i;
    size_t at = colon ? (size_t)(colon - s) + 1 : 0;
    if (parse_id(s + at, n - at, &id) != 0 || (colon && at == 1)) {
        snprintf(err, cap,
                 "'%.*s' is not a run (ID, DB:ID, label:NAME, kind:exact, kind:sampled or all)",
                 (int)n, s);
        return -1;
    }
    if (!(it = new_item(sel, AN_SEL_ID)))
        goto full;
    it->id = id;
    if (colon && !(it->db = keep(sel, s, at - 1)))
        goto full;
    return 0;
full:
    snprintf(err, cap, "too many runs selected (at most %d specs)", AN_SEL_MAX);
    return -1;
}

int an_runsel_parse(an_runsel *sel, const char *text, char *err, size_t cap)
{
    if (!*text) {
        snprintf(err, cap, "an empty run selection");
        return -1;
    }
    /* Specs are separated by commas (a database whose name holds one can
     * be given through another path to it, or selected by label). */
    const char *start = text;
    while (*start) {
        const char *end = start + strcspn(start, ",");
        if (end == start || (*end == ',' && !end[1])) {
            snprintf(err, cap, "'%s': an empty spec between commas", text);
            return -1;
        }
        if (parse_spec(sel, start, (size_t)(end - start), err, cap) != 0)
            return -1;
        start = *end ? end + 1 : end;
    }
    return 0;
}

int an_runsel_add_label(an_runsel *sel, const char *label, char *err, size_t cap)
{
    an_sel_item *it = new_item(sel, AN_SEL_LABEL);
    if (!it || !(it->label = keep(sel, label, strlen(label)))) {
        snprintf(err, cap, "too many runs selected (at most %d specs)", AN_SEL_MAX);
        return -1;
    }
    return 0;
}

int an_runsel_has_labels(const an_runsel *sel)
{
    for (size_t i = 0; i < sel->n; i++)
        if (sel->items[i].sort == AN_SEL_LABEL)
            return 1;
    return 0;
}

int an_runsel_check_dbs(const an_runsel *sel, int ndbs, char *err, size_t cap)
{
    for (size_t i = 0; i < sel->n; i++) {
        const an_sel_item *it = &sel->items[i];
        if (it->sort == AN_SEL_ID && !it->db && ndbs > 1) {
            snprintf(err, cap,
                     "--runs %" PRId64 ": %d databases are read; say which one (DB:%" PRId64 ")",
                     it->id, ndbs, it->id);
            return -1;
        }
    }
    return 0;
}

int an_same_file(const char *db, const char *path)
{
    struct stat a, b;
    if (stat(db, &a) == 0 && stat(path, &b) == 0)
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    return strcmp(db, path) == 0;
}

int an_runsel_match(an_runsel *sel, const an_run_facts *run)
{
    int ids = 0, by_id = 0, labels = 0, by_label = 0, kinds = sel->exact_only, by_kind = 0;
    if (sel->exact_only && run->exact)
        by_kind = 1;
    for (size_t i = 0; i < sel->n; i++) {
        an_sel_item *it = &sel->items[i];
        switch (it->sort) {
        case AN_SEL_ID:
            ids++;
            if (it->id == run->id && (!it->db || an_same_file(str_at(sel, it->db), run->db))) {
                it->matched++;
                by_id = 1;
            }
            break;
        case AN_SEL_LABEL:
            labels++;
            if (run->label && strcmp(run->label, str_at(sel, it->label)) == 0) {
                it->matched++;
                by_label = 1;
            }
            break;
        case AN_SEL_KIND:
            kinds++;
            if (it->exact == run->exact) {
                it->matched++;
                by_kind = 1;
            }
            break;
        }
    }
    if ((ids && !by_id) || (labels && !by_label) || (kinds && !by_kind))
        return AN_RUN_OTHER;
    if (!ids && !sel->all && run->unfinished)
        return AN_RUN_SKIPPED;
    return AN_RUN_SELECTED;
}

int an_runsel_check_matched(const an_runsel *sel, char *err, size_t cap)
{
    for (size_t i = 0; i < sel->n; i++) {
        const an_sel_item *it = &sel->items[i];
        if (it->matched)
            continue;
        if (it->sort == AN_SEL_ID && it->db)
            snprintf(err, cap, "--runs %s:%" PRId64 ": %s has no run %" PRId64,
                     str_at(sel, it->db), it->id, str_at(sel, it->db), it->id);
        else if (it->sort == AN_SEL_ID)
            snprintf(err, cap, "--runs %" PRId64 ": the database has no run %" PRId64, it->id,
                     it->id);
        else if (it->sort == AN_SEL_LABEL)
            snprintf(err, cap, "no run is labelled '%s'", str_at(sel, it->label));
        else
            continue; /* a kind no run has: nothing selected, said by the caller */
        return -1;
    }
    return 0;
}
