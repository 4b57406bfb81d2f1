/*
 * driver.c - the program bench/registration.sh times: a tiny interpreter's
 * run through libpulleyprof that registers many small functions, as Lua
 * registers one per load() chunk.
 *
 *   driver nothing                 return at once (the process's own cost)
 *   driver DB N [replace]          open a run in DB, register one module and
 *                                  N functions (each 4 instructions, 12 bytes,
 *                                  its own code object with its own bytes),
 *                                  a slot, publish a pc, close; "replace":
 *                                  every function is unregistered after it
 *                                  is registered and its code reused, as
 *                                  garbage-collected code is
 *
 * Prints on stderr the wall time of open, registration and close in ms,
 * and the CPU time of the whole process (every thread, user + system).
 * Exits 0, or 1 with the library's message.  Built with
 * REGISTRATION_NO_UNREGISTER it links a library from before
 * pulleyprof_unregister_function (and refuses "replace").
 */
#define _POSIX_C_SOURCE 200809L
#include <pulley/profile.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { PUSH, ADD, JNZ, RET, NOPS, FUNC_BYTES = 12 };

static const pulleyprof_opcode ops[NOPS] = {
    {.id = PUSH, .name = "push", .operands = "s8", .length = 2},
    {.id = ADD, .name = "add", .length = 1},
    {.id = JNZ, .name = "jnz", .operands = "rel32", .length = 2, .flags = PULLEYPROF_BRANCH},
    {.id = RET, .name = "ret", .length = 1, .flags = PULLEYPROF_TERMINATOR | PULLEYPROF_RETURN},
};

static int decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                  pulleyprof_insn *in)
{
    (void)ctx;
    if (code[off] >= NOPS || off + ops[code[off]].length > size)
        return -1;
    in->opcode = code[off];
    in->length = ops[in->opcode].length;
    if (in->length == 2) {
        in->nimms = 1;
        in->imms[0] = (int8_t)code[off + 1];
        int64_t to = (int64_t)off + in->imms[0];
        if (in->opcode == JNZ && to >= 0 && (size_t)to < size &&
            pulleyprof_insn_add_target(in, (uint32_t)to) != 0)
            return -1;
    }
    return 0;
}

static const pulleyprof_isa isa = {.name = "bench-registration", .opcodes = ops,
                                   .nopcodes = NOPS, .decode = decode};

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Function i's code: push i, push 1, add, jnz -5, ret (12 bytes with padding). */
static void make_code(uint8_t *c, unsigned i)
{
    const uint8_t body[FUNC_BYTES] = {PUSH, (uint8_t)i, PUSH, 1, ADD, PUSH, (uint8_t)(i >> 8),
                                      ADD, PUSH, 0, JNZ, (uint8_t)-10};
    memcpy(c, body, sizeof body);
}

static int run(const char *db, unsigned long n, int replace)
{
    char err[512];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pulleyprof_config cfg = {.db_path = db, .isa = &isa, .benchmark = "registration",
                             .command_line = "driver"};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a) {
        fprintf(stderr, "driver: %s\n", err);
        return 1;
    }
    double open_ms = ms_since(&t0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint8_t *code = malloc(replace ? FUNC_BYTES : (n ? n : 1) * FUNC_BYTES);
    int mod = pulleyprof_register_module(a, "chunks", NULL);
    int ok = code && mod >= 0;
    for (unsigned long i = 0; ok && i < n; i++) {
        uint8_t *c = replace ? code : code + i * FUNC_BYTES;
        make_code(c, (unsigned)i);
        char name[32];
        snprintf(name, sizeof name, "chunk%lu", i);
        int f = pulleyprof_register_function(a, mod, (uint32_t)i, name, (uintptr_t)c, c,
                                             FUNC_BYTES);
        ok = f >= 0;
#ifndef REGISTRATION_NO_UNREGISTER
        if (ok && replace)
            ok = pulleyprof_unregister_function(a, f) == 0;
#else
        ok = ok && !replace; /* a library before unregistering */
#endif
    }
    double reg_ms = ms_since(&t0);
    static _Atomic(uintptr_t) slot;
    ok = ok && pulleyprof_register_slot(a, &slot) == 0;
    pulleyprof_publish(&slot, n && !replace ? (uintptr_t)code : 0);
    pulleyprof_publish(&slot, 0);
    ok = ok && pulleyprof_unregister_slot(a, &slot) == 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pulleyprof_set_outcome(a, ok ? "return" : "failed", !ok);
    int rc = pulleyprof_close(a, NULL, err, sizeof err);
    double close_ms = ms_since(&t0);
    free(code);
    if (!ok || rc != 0) {
        fprintf(stderr, "driver: %s\n", ok ? err : "a registration was refused");
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    fprintf(stderr, "open %.3f ms, register %.3f ms, close %.3f ms, cpu %.6f s\n", open_ms, reg_ms,
            close_ms, cpu);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "nothing") == 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "cpu %.6f s\n",
                (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
        return 0;
    }
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "replace") != 0)) {
        fprintf(stderr, "usage: driver nothing | driver DB N [replace]\n");
        return 2;
    }
    return run(argv[1], strtoul(argv[2], NULL, 10), argc == 4);
}
