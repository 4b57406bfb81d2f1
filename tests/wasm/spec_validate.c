/*
 * spec_validate.c - checks the Wasm decoder and validator against the
 * WebAssembly spec test suite: for each .wast script (given, or found in a
 * given directory), wast2json converts it into a temporary directory, and
 * every command that carries a module is checked:
 *
 *   module, assert_unlinkable, assert_uninstantiable   must decode+validate
 *   assert_invalid, assert_malformed (binary)          must be rejected
 *   assert_malformed (text format)                     skipped (out of scope)
 *
 * Other commands (assert_return, ...) need an interpreter and are not
 * counted here.  Prints a line per script, then "N passed, N failed,
 * N skipped" alone on the last line; exits 0 only if nothing failed.
 *
 *   wasm_spec_validate [--wast2json PATH] [-v] DIR|FILE.wast...
 *
 * -v also lists rejections whose message does not contain the text the
 * script expects (informative only: messages differ between engines).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wasm_module.h"

typedef struct totals {
    unsigned passed, failed, skipped;
} totals;

static const char *wast2json = "wast2json";
static bool verbose;

/* ---- files -------------------------------------------------------------- */

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *p = realloc(buf, cap + 1);
            if (!p) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = p;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    *size = len;
    return buf;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int run_wast2json(const char *wast, const char *json)
{
    fflush(stdout); /* or the child would write our buffered output again */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        execlp(wast2json, wast2json, wast, "-o", json, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- just enough JSON for wast2json's output ---------------------------- */

typedef struct json {
    const char *p, *end;
} json;

static void ws(json *j)
{
    while (j->p < j->end && strchr(" \t\r\n", *j->p))
        j->p++;
}

static bool eat(json *j, char c)
{
    ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return true;
    }
    return false;
}

/* A string into out (escapes decoded; non-ASCII \u escapes become '?'). */
static int string(json *j, char *out, size_t cap)
{
    size_t n = 0;
    if (!eat(j, '"'))
        return -1;
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p++;
        if (c == '\\') {
            if (j->p >= j->end)
                return -1;
            c = *j->p++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u':
                if (j->end - j->p < 4)
                    return -1;
                c = '?';
                j->p += 4;
                break;
            default: break; /* \" \\ \/ */
            }
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    if (cap)
        out[n] = '\0';
    return eat(j, '"') ? 0 : -1;
}

static int skip_value(json *j, int depth)
{
    ws(j);
    if (j->p >= j->end || depth > 64)
        return -1;
    char c = *j->p;
    if (c == '"')
        return string(j, NULL, 0);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        if (eat(j, close))
            return 0;
        do {
            if (c == '{' && (string(j, NULL, 0) || !eat(j, ':')))
                return -1;
            if (skip_value(j, depth + 1))
                return -1;
        } while (eat(j, ','));
        return eat(j, close) ? 0 : -1;
    }
    while (j->p < j->end && !strchr(",}] \t\r\n", *j->p))
        j->p++; /* number, true, false, null */
    return 0;
}

/* ---- one command -------------------------------------------------------- */

typedef struct command {
    char type[64], filename[256], module_type[16], text[256];
    long line;
} command;

static void check_command(const char *dir, const char *script, const command *c, totals *t)
{
    bool expect_valid;
    if (!strcmp(c->type, "module") || !strcmp(c->type, "assert_unlinkable") ||
        !strcmp(c->type, "assert_uninstantiable"))
        expect_valid = true;
    else if (!strcmp(c->type, "assert_invalid") || !strcmp(c->type, "assert_malformed"))
        expect_valid = false;
    else
        return; /* needs an interpreter */
    if (!strcmp(c->module_type, "text")) {
        t->skipped++;
        return;
    }
    char path[4096];
    size_t size;
    char *bytes = NULL;
    if (snprintf(path, sizeof path, "%s/%s", dir, c->filename) < (int)sizeof path)
        bytes = read_file(path, &size);
    if (!bytes) {
        printf("  %s:%ld: %s: cannot read %s\n", script, c->line, c->type, c->filename);
        t->failed++;
        return;
    }
    pvm_error err = {{0}};
    pvm_wasm_module *m = pvm_wasm_decode((const uint8_t *)bytes, size, &err);
    bool ok = (m != NULL) == expect_valid;
    if (!ok && expect_valid)
        printf("  %s:%ld: %s rejected: %s\n", script, c->line, c->type, err.msg);
    else if (!ok)
        printf("  %s:%ld: %s accepted (expected \"%s\")\n", script, c->line, c->type, c->text);
    else if (verbose && !m && !strstr(err.msg, c->text))
        printf("  note %s:%ld: expected \"%s\", got: %s\n", script, c->line, c->text, err.msg);
    ok ? t->passed++ : t->failed++;
    pvm_wasm_module_free(m);
    free(bytes);
}

static int check_commands(const char *dir, const char *script, json *j, totals *t)
{
    if (!eat(j, '['))
        return -1;
    if (eat(j, ']'))
        return 0;
    do {
        command c = {.line = 0};
        if (!eat(j, '{'))
            return -1;
        if (!eat(j, '}')) {
            do {
                char key[64];
                if (string(j, key, sizeof key) || !eat(j, ':'))
                    return -1;
                char *field = !strcmp(key, "type") ? c.type
                              : !strcmp(key, "filename") ? c.filename
                              : !strcmp(key, "module_type") ? c.module_type
                              : !strcmp(key, "text") ? c.text : NULL;
                size_t cap = !strcmp(key, "type") ? sizeof c.type
                             : !strcmp(key, "filename") ? sizeof c.filename
                             : !strcmp(key, "module_type") ? sizeof c.module_type
                                                           : sizeof c.text;
                ws(j);
                if (!strcmp(key, "line"))
                    c.line = strtol(j->p, NULL, 10);
                if (field ? string(j, field, cap) : skip_value(j, 0))
                    return -1;
            } while (eat(j, ','));
            if (!eat(j, '}'))
                return -1;
        }
        check_command(dir, script, &c, t);
    } while (eat(j, ','));
    return eat(j, ']') ? 0 : -1;
}

/* ---- one script --------------------------------------------------------- */

static void check_script(const char *wast, totals *all)
{
    const char *script = strrchr(wast, '/') ? strrchr(wast, '/') + 1 : wast;
    totals t = {0, 0, 0};
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096], json_path[4096 + 16];
    snprintf(dir, sizeof dir, "%s/pulley-wast-XXXXXX", tmp);
    size_t size = 0;
    char *text = NULL;
    if (!mkdtemp(dir)) {
        printf("  %s: cannot make a temporary directory\n", script);
        t.failed++;
        goto done;
    }
    snprintf(json_path, sizeof json_path, "%s/t.json", dir);
    if (run_wast2json(wast, json_path) || !(text = read_file(json_path, &size))) {
        printf("  %s: %s failed\n", script, wast2json);
        t.failed++;
        goto done;
    }
    json j = {text, text + size};
    bool parsed = false;
    if (eat(&j, '{')) {
        do {
            char key[64];
            if (string(&j, key, sizeof key) || !eat(&j, ':'))
                break;
            if (!strcmp(key, "commands")) {
                parsed = check_commands(dir, script, &j, &t) == 0;
                break;
            }
            if (skip_value(&j, 0))
                break;
        } while (eat(&j, ','));
    }
    if (!parsed) {
        printf("  %s: cannot parse the output of %s\n", script, wast2json);
        t.failed++;
    }
done:
    free(text);
    remove_dir(dir);
    printf("%s: %u passed, %u failed, %u skipped\n", script, t.passed, t.failed, t.skipped);
    all->passed += t.passed;
    all->failed += t.failed;
    all->skipped += t.skipped;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_wast(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 5 && !strcmp(e->d_name + n - 5, ".wast");
}

int main(int argc, char **argv)
{
    totals all = {0, 0, 0};
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) {
            verbose = true;
            continue;
        }
        if (!strcmp(argv[i], "--wast2json") && i + 1 < argc) {
            wast2json = argv[++i];
            continue;
        }
        nargs++;
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            struct dirent **list;
            int n = scandir(argv[i], &list, is_wast, by_name);
            if (n < 0) {
                fprintf(stderr, "wasm_spec_validate: cannot read %s\n", argv[i]);
                return 2;
            }
            for (int k = 0; k < n; k++) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], list[k]->d_name);
                check_script(path, &all);
                free(list[k]);
            }
            free(list);
        } else {
            check_script(argv[i], &all);
        }
    }
    if (nargs == 0) {
        fprintf(stderr, "usage: wasm_spec_validate [--wast2json PATH] [-v] DIR|FILE.wast...\n");
        return 2;
    }
    printf("%u passed, %u failed, %u skipped\n", all.passed, all.failed, all.skipped);
    return all.failed ? 1 : 0;
}
