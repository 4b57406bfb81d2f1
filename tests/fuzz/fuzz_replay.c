/*
 * fuzz_replay.c - replay inputs through a fuzz target's entry function,
 * without libFuzzer: `fuzz_replay FILE|DIR...` (the Wasm front end) and,
 * built with PULLEY_FUZZ_FUSION_REPLAY, `fuzz_fusion_replay` (fused against
 * unfused runs) and, built with PULLEY_FUZZ_PROFILE_DB_REPLAY,
 * `fuzz_profile_db_replay` (database images read as profiles).  A directory stands for its regular files (not its
 * subdirectories), in name order.  Prints one line per input and a total;
 * exits 0 when every input went through, and aborts on the first input
 * that breaks an invariant (or a sanitizer stops it, in sanitizer builds).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/grow.h"
#include "error.h"
#include "module.h"

#ifdef PULLEY_FUZZ_FUSION_REPLAY
#include "fuzz_fusion.h"
static const char *const outcome_names[] = {"skipped", "timed out", "same"};
static int target(const uint8_t *data, size_t size, pvm_error *why)
{
    why->msg[0] = '\0';
    return (int)pulley_fuzz_fusion(data, size);
}
enum { DONE = PULLEY_FUSION_SAME };
#elif defined PULLEY_FUZZ_PROFILE_DB_REPLAY
#include "fuzz_profile_db.h"
static const char *const outcome_names[] = {"refused", "no runs", "read"};
static int target(const uint8_t *data, size_t size, pvm_error *why)
{
    return (int)pulley_fuzz_profile_db(data, size, why->msg, sizeof why->msg);
}
enum { DONE = -1 }; /* every outcome's message is worth a look */
#else
#include "fuzz_wasm_frontend.h"
static const char *const outcome_names[] = {"rejected", "beyond a VM limit", "translated"};
static int target(const uint8_t *data, size_t size, pvm_error *why)
{
    return (int)pulley_fuzz_wasm_frontend(data, size, why);
}
enum { DONE = PULLEY_FUZZ_TRANSLATED };
#endif
static unsigned counts[3];

static int run_file(const char *path)
{
    pvm_error err;
    size_t size;
    uint8_t *bytes = pvm_read_file(path, &size, &err);
    if (!bytes) {
        fprintf(stderr, "fuzz_replay: %s\n", err.msg);
        return -1;
    }
    printf("%-60s ", path);
    fflush(stdout);
    pvm_error why = {{0}};
    int o = target(bytes, size, &why);
    if (o == DONE || !why.msg[0])
        printf("%s\n", outcome_names[o]);
    else
        printf("%s: %s\n", outcome_names[o], why.msg);
    counts[o]++;
    free(bytes);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **paths = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ., .., and hidden files such as .gitkeep */
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = -1;
            break;
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (BASE_GROW(paths, cap, n + 1, 16) != 0) {
            free(p);
            rc = -1;
            break;
        }
        paths[n++] = p;
    }
    closedir(d);
    if (n > 0)
        qsort(paths, n, sizeof *paths, by_name);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && run_file(paths[i]) != 0)
            rc = -1;
        free(paths[i]);
    }
    free(paths);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_replay FILE|DIR...\n");
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i])) {
            rc = 1;
        }
    }
    unsigned total = counts[0] + counts[1] + counts[2];
    printf("%u inputs: %u %s, %u %s, %u %s\n", total, counts[0], outcome_names[0], counts[1],
           outcome_names[1], counts[2], outcome_names[2]);
    if (total == 0) {
        fprintf(stderr, "fuzz_replay: no inputs\n");
        rc = 1;
    }
    return rc;
}
