/* Wren benchmark host: runs bench.wren, embedded as bench_wren.h (made by
 * build.sh), with `var SCALE = ARG` before it (every loop count is
 * multiplied by it; default 1); with the argument "empty", an empty script
 * instead (start-up: a VM with its core module, created and freed). */
#include "bench_wren.h"
#include "wren.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_text(WrenVM *vm, const char *text)
{
    (void)vm;
    fputs(text, stdout);
}

static void report_error(WrenVM *vm, WrenErrorType type, const char *module, int line,
                         const char *msg)
{
    (void)vm;
    if (type == WREN_ERROR_STACK_TRACE)
        fprintf(stderr, "  at %s:%d in %s\n", module ? module : "?", line, msg);
    else
        fprintf(stderr, "wren %s error: %s:%d: %s\n",
                type == WREN_ERROR_COMPILE ? "compile" : "runtime", module ? module : "?", line,
                msg);
}

int main(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : "1";
    int empty = strcmp(arg, "empty") == 0;
    char *end;
    double scale = strtod(arg, &end);
    if (!empty && (end == arg || *end != '\0' || !(scale >= 0))) {
        fprintf(stderr, "usage: wren_bench [SCALE | empty]\n");
        return 2;
    }
    size_t cap = bench_wren_len + 64;
    char *source = malloc(cap);
    if (!source) {
        fputs("out of memory\n", stderr);
        return 1;
    }
    if (empty)
        source[0] = '\0';
    else {
        int n = snprintf(source, cap, "var SCALE = %s\n", arg);
        if (n < 0 || (size_t)n + bench_wren_len >= cap) {
            fputs("SCALE too long\n", stderr);
            free(source);
            return 2;
        }
        memcpy(source + n, bench_wren, bench_wren_len);
        source[n + bench_wren_len] = '\0';
    }
    WrenConfiguration config;
    wrenInitConfiguration(&config);
    config.writeFn = write_text;
    config.errorFn = report_error;
    WrenVM *vm = wrenNewVM(&config);
    WrenInterpretResult result = wrenInterpret(vm, "bench", source);
    wrenFreeVM(vm);
    free(source);
    fflush(stdout);
    return result == WREN_RESULT_SUCCESS ? 0 : 1;
}
