/*
 * spec_script.c - converting .wast scripts with wast2json into temporary
 * directories, parsing the result and reporting counts per script (see
 * spec_script.h).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "spec_script.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "module.h"

enum { PATH_CAP = 4096 };

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[PATH_CAP];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* wast2json WAST -o JSON, its stdout silenced (its stderr says why it
 * failed).  0 if it succeeded. */
static int run_wast2json(const char *prog, const char *wast, const char *json)
{
    fflush(stdout); /* or the child would write our buffered output again */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        execlp(prog, prog, wast, "-o", json, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

uint8_t *spec_read_module(const spec_script *s, const char *filename, size_t *size)
{
    char path[PATH_CAP];
    if (!filename || !*filename || strchr(filename, '/') ||
        snprintf(path, sizeof path, "%s/%s", s->dir, filename) >= (int)sizeof path)
        return NULL;
    pvm_error err;
    return pvm_read_file(path, size, &err);
}

/* Run fn in a child process that counts into shared memory; if it dies,
 * the commands it did not finish count as failed. */
static void run_isolated(const spec_script *s, const spec_options *o, spec_script_fn fn,
                         void *ctx, spec_totals *t)
{
    spec_totals *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        fn(s, t, ctx);
        return;
    }
    *shared = (spec_totals){0, 0, 0};
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) { /* run it here, then */
        munmap(shared, sizeof *shared);
        fn(s, t, ctx);
        return;
    }
    if (pid == 0) {
        if (o->timeout)
            alarm(o->timeout);
        fn(s, shared, ctx);
        exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *t = *shared;
    munmap(shared, sizeof *shared);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return;
    size_t done = (size_t)t->passed + t->failed + t->skipped, count = s->commands->count;
    long line = 0;
    if (done < count)
        spec_json_long(&s->commands->items[done], "line", &line);
    if (WIFSIGNALED(status))
        printf("  %s:%ld: %s (signal %d)\n", s->name, line,
               WTERMSIG(status) == SIGALRM ? "timed out" : "crashed", WTERMSIG(status));
    else
        printf("  %s:%ld: exited with status %d\n", s->name, line, WEXITSTATUS(status));
    t->failed += done < count ? (unsigned)(count - done) : 1;
}

/* Convert and parse one script, then hand it to fn.  Problems with the
 * script itself count as one failure. */
static void run_script(const char *wast, const spec_options *o, spec_script_fn fn, void *ctx,
                       spec_totals *all)
{
    const char *name = strrchr(wast, '/') ? strrchr(wast, '/') + 1 : wast;
    const char *prog = o->wast2json ? o->wast2json : "wast2json";
    spec_totals t = {0, 0, 0};
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[PATH_CAP], json_path[PATH_CAP + 16], err[256];
    uint8_t *text = NULL;
    size_t size = 0;
    spec_json *root = NULL;
    const spec_json *commands;
    bool made = snprintf(dir, sizeof dir, "%s/pulley-wast-XXXXXX", tmp) < (int)sizeof dir &&
                mkdtemp(dir);
    if (!made) {
        printf("  %s: cannot make a temporary directory\n", name);
        t.failed++;
        goto done;
    }
    snprintf(json_path, sizeof json_path, "%s/t.json", dir);
    if (run_wast2json(prog, wast, json_path) ||
        !(text = pvm_read_file(json_path, &size, NULL))) {
        printf("  %s: %s failed\n", name, prog);
        t.failed++;
        goto done;
    }
    if (!(root = spec_json_parse((const char *)text, size, err, sizeof err)) ||
        !(commands = spec_json_array(root, "commands"))) {
        printf("  %s: cannot read the output of %s: %s\n", name, prog,
               root ? "no \"commands\" array" : err);
        t.failed++;
        goto done;
    }
    spec_script s = {wast, name, dir, commands, o->verbose};
    if (o->isolate)
        run_isolated(&s, o, fn, ctx, &t);
    else
        fn(&s, &t, ctx);
done:
    spec_json_free(root);
    free(text);
    if (made)
        remove_dir(dir);
    printf("%s: %u passed, %u failed, %u skipped\n", name, t.passed, t.failed, t.skipped);
    fflush(stdout);
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

int spec_run_scripts(char *const *paths, int n, const spec_options *o, spec_script_fn fn,
                     void *ctx, spec_totals *all)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", paths[i], strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            run_script(paths[i], o, fn, ctx, all);
            continue;
        }
        struct dirent **list;
        int count = scandir(paths[i], &list, is_wast, by_name);
        if (count < 0) {
            fprintf(stderr, "%s: %s\n", paths[i], strerror(errno));
            return -1;
        }
        for (int k = 0; k < count; k++) {
            char path[PATH_CAP];
            int len = snprintf(path, sizeof path, "%s/%s", paths[i], list[k]->d_name);
            if (len >= 0 && len < (int)sizeof path) {
                run_script(path, o, fn, ctx, all);
            } else {
                printf("%s: path too long\n", list[k]->d_name);
                all->failed++;
            }
            free(list[k]);
        }
        free(list);
    }
    return 0;
}

void spec_print_totals(const spec_totals *t)
{
    printf("%u passed, %u failed, %u skipped\n", t->passed, t->failed, t->skipped);
}
