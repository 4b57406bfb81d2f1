/*
 * peak_rss.c - run a command and report its peak resident memory, for
 * ngrams_scale.sh on machines without GNU time (/usr/bin/time -f %M).
 *
 *   peak_rss [-o FILE] COMMAND [ARGS...]
 *
 * Writes the peak resident set size of COMMAND in kilobytes (getrusage of
 * the waited-for child, as GNU time's %M) on one line to FILE, or to
 * stderr, and exits with COMMAND's exit status (128 + N after signal N,
 * 127 if it could not be started).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *out = NULL;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-o") == 0) {
        out = argv[2];
        first = 3;
    }
    if (first >= argc || argv[first][0] == '-') {
        fputs("usage: peak_rss [-o FILE] COMMAND [ARGS...]\n", stderr);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "peak_rss: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[first], argv + first);
        fprintf(stderr, "peak_rss: %s: %s\n", argv[first], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "peak_rss: waitpid: %s\n", strerror(errno));
            return 127;
        }
    }
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) {
        fprintf(stderr, "peak_rss: getrusage: %s\n", strerror(errno));
        return 127;
    }
    FILE *f = out ? fopen(out, "w") : stderr;
    if (!f) {
        fprintf(stderr, "peak_rss: %s: %s\n", out, strerror(errno));
        return 127;
    }
    fprintf(f, "%ld\n", (long)ru.ru_maxrss);
    if (out && fclose(f) != 0) {
        fprintf(stderr, "peak_rss: %s: %s\n", out, strerror(errno));
        return 127;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
