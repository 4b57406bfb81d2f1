/*
 * op_bodies.c - op bodies read from between their OPCODE(NAME) and
 * END_OPCODE lines (op_bodies.h).
 */
#include "op_bodies.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "gen_io.h"

static int is_identifier(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

/* A new body named by the OPCODE line p (line `line` of the file). */
static mg_body *open_body(mg_bodies *out, const char *p, unsigned line)
{
    size_t n = strcspn(p + 7, ")\n");
    if (p[7 + n] != ')' || !is_identifier(p + 7, n) || n >= FU_MAX_NAME)
        mg_die("%s:%u: OPCODE( takes the op's name (an identifier of at most %d characters)"
               " and ')'",
               out->path, line, FU_MAX_NAME - 1);
    for (size_t i = 0; i < out->n; i++)
        if (strlen(out->v[i].name) == n && memcmp(out->v[i].name, p + 7, n) == 0)
            mg_die("%s:%u: a second body of %.*s", out->path, line, (int)n, p + 7);
    if (BASE_GROW(out->v, out->cap, out->n + 1, 64) != 0)
        mg_die("out of memory");
    mg_body *b = &out->v[out->n++];
    memcpy(b->name, p + 7, n);
    b->name[n] = '\0';
    b->text = NULL;
    b->line = line + 1;
    return b;
}

void mg_bodies_read(const char *path, mg_bodies *out)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    char *text = mg_read_text(path);
    mg_body *open = NULL;
    size_t start = 0;
    unsigned line = 1;
    for (char *p = text; *p; line++) {
        char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (strncmp(p, "OPCODE(", 7) == 0) {
            if (open)
                mg_die("%s:%u: OPCODE inside the body of %s", path, line, open->name);
            open = open_body(out, p, line);
            start = (size_t)(p - text) + len + (end != NULL);
        } else if (strncmp(p, "END_OPCODE", 10) == 0) {
            if (!open)
                mg_die("%s:%u: END_OPCODE without OPCODE", path, line);
            size_t n = (size_t)(p - text) - start;
            if (!(open->text = malloc(n + 1)))
                mg_die("out of memory");
            memcpy(open->text, text + start, n);
            open->text[n] = '\0';
            open = NULL;
        }
        p = end ? end + 1 : p + len;
    }
    if (open)
        mg_die("%s: the body of %s (line %u) has no END_OPCODE", path, open->name, open->line - 1);
    free(text);
}

const mg_body *mg_body_of(const mg_bodies *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->v[i].name, name) == 0)
            return &b->v[i];
    return NULL;
}

void mg_bodies_free(mg_bodies *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->v[i].text);
    free(b->v);
    memset(b, 0, sizeof *b);
}
