/*
 * fuzz_profile_db.c - a database file image read as a profile
 * (fuzz_profile_db.h).
 */
#include "fuzz_profile_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocks.h"
#include "hot_code.h"
#include "profile_read.h"
#include "report_db.h"

static void broken(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_profile_db: invariant broken: %s: %s\n", what, detail);
    abort();
}

/* Write the input to a new temporary file; its path into path. */
static int write_image(const uint8_t *data, size_t size, char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/fuzz_profile_db.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)n;
    }
    return close(fd) == 0 ? 0 : (unlink(path), -1);
}

/* What pulley-report reads beside the model: the view, the run rows and
 * the stored text of every function shown.  Failing is allowed (the
 * file can be read again differently), with a message. */
static void report_reads(const an_profile *p)
{
    hc_view v;
    if (hc_build(p, &v) != 0)
        return; /* out of memory */
    char err[1024] = "";
    rp_run_info *runs = calloc(p->nruns, sizeof *runs);
    if (runs && rp_read_runs(p, runs, err, sizeof err) != 0 && !err[0])
        broken("rp_read_runs failed without a message", "");
    if (runs)
        rp_free_runs(runs, p->nruns);
    free(runs);
    err[0] = '\0';
    if (rp_read_text(p, v.funcs, v.nfuncs, err, sizeof err) != 0 && !err[0])
        broken("rp_read_text failed without a message", "");
    hc_free(&v);
}

static pulley_profile_db_outcome read_once(const char *path, int skip_damaged, char *why,
                                           size_t cap)
{
    an_profile p;
    an_runsel sel;
    char err[1024] = "";
    memset(&p, 0, sizeof p);
    an_runsel_init(&sel);
    sel.skip_damaged = skip_damaged;
    char *paths[] = {(char *)path};
    pulley_profile_db_outcome o;
    if (an_profile_read_all(&p, paths, 1, &sel, err, sizeof err) < 0) {
        if (!err[0])
            broken("refused without a message", path);
        if (!strstr(err, path) && strcmp(err, "out of memory") != 0)
            broken("the refusal does not name the file", err);
        snprintf(why, cap, "%s", err);
        o = PULLEY_PROFILE_DB_REFUSED;
    } else if (p.nruns == 0) {
        snprintf(why, cap, "%zu runs left out", p.nskipped);
        o = PULLEY_PROFILE_DB_EMPTY;
    } else {
        if (an_normalise(&p) == 0)
            report_reads(&p);
        snprintf(why, cap, "%zu runs read, %zu left out", p.nruns, p.nskipped);
        o = PULLEY_PROFILE_DB_READ;
    }
    an_profile_free(&p);
    return o;
}

pulley_profile_db_outcome pulley_fuzz_profile_db(const uint8_t *data, size_t size, char *why,
                                                 size_t cap)
{
    char path[4096];
    if (write_image(data, size, path, sizeof path) != 0) {
        perror("fuzz_profile_db: a temporary file");
        abort();
    }
    pulley_profile_db_outcome o = read_once(path, 0, why, cap);
    if (o == PULLEY_PROFILE_DB_REFUSED)
        o = read_once(path, 1, why, cap);
    unlink(path);
    return o;
}

#ifdef PULLEY_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1024];
    pulley_fuzz_profile_db(data, size, why, sizeof why);
    return 0;
}
#endif
