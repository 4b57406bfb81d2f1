/*
 * pulley_collect.c - `pulley-collect`: run a program on the profiling VM
 * and record a run (PC samples, every bytecode function, the opcode table)
 * in an SQLite profile database.  See collect/README.md.  The same source
 * is also `pulley-collect-exact`, linked with the counting VM, which
 * `pulley-collect --exact` executes.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_env.h"
#include "isa_cli.h"
#include "pulley_isa_desc.h"
#include "runner.h"
#include "session.h"
#include "vm.h"

static const cli_tool tool = {
    "pulley-collect",
    "[OPTIONS] [--] PROGRAM [ARGS...]",
    "Run PROGRAM (a .pbc module, .pasm assembly or .wasm module, told apart\n"
    "by its first bytes) on the profiling build of the VM, sample the pc of\n"
    "every VM, and append the run to an SQLite profile database: compressed\n"
    "sample streams, every bytecode function and its disassembly, the\n"
    "opcode table, and the per-instruction sample histogram.\n"
    "The program's stdin, stdout, stderr and exit status pass through; a\n"
    "one-line summary goes to stderr at the end.  SIGINT, SIGTERM and SIGHUP\n"
    "end the run cleanly (every sample taken is committed) and then kill\n"
    "pulley-collect with the same signal.\n"
    "\n"
    "Options:\n"
    "  -o, --output=DB    profile database (default: ./profile.db)\n"
    "  -f, --freq=HZ      samples per second per VM, 1 to 1000000 (default:\n"
    "                     10000); rates above a few tens of kHz miss ticks on\n"
    "                     most machines, and a warning says so\n"
    "  -l, --label=NAME   label stored with the run\n"
    "  -i, --invoke=NAME  run function NAME (.pbc/.pasm; default: the start\n"
    "                     function, then the entry, else \"main\") or export\n"
    "                     NAME (.wasm; default: _start) with ARGS as its\n"
    "                     parameters; its results are printed one a line\n"
    "                     (without it, a WASI program's ARGS are its argv)\n"
    "  -d, --dir=DIR[::GUEST]  WASI programs (.wasm, saved translations): let\n"
    "                     the program use directory DIR, seen\n"
    "                     as GUEST (default: DIR itself); repeatable\n"
    "      --max-memory=SIZE  cap the program's memory at SIZE bytes (K, M,\n"
    "                     G: KiB, MiB, GiB; default: the module's own maximum);\n"
    "                     memory.grow past it fails, and a note says so\n"
    "  -e, --env=NAME=VALUE  WASI programs: set a variable in the program's environment\n"
    "                     (empty by default); --env=NAME passes this process's\n"
    "                     NAME on; repeatable\n"
    "      --exact        use the counting build (pulley-collect-exact, next\n"
    "                     to this program): exact instruction and branch\n"
    "                     counts instead of samples (the run has 0 samples)\n"
    "      --no-fuse      run the code as it is, without the build's macro ops\n"
    "                     (a macro build fuses by default)\n"
    "      --translate-all  WASI programs: translate every function before the\n"
    "                     run, so that the profile holds all of them (default:\n"
    "                     each when first called, and only those that ran)\n"
    "      --costs=FILE   store with the opcode table what each handler and a\n"
    "                     dispatch cost in this build, in machine instructions\n"
    "                     (FILE as bench/op_costs.sh writes it for the build), so\n"
    "                     that pulley-ngrams predicts time as well as dispatches\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and the ISA's hash, and exit\n"
    "\n"
    "A closed stdout gives the program EPIPE rather than ending the run.\n"
    "\n"
    PVM_EXIT_HELP_RUNNER
    "1 also when the run could not be recorded whole (the run is then marked\n"
    "incomplete); 128+N after signal N (the run recorded first).\n",
};

enum { MAX_DIRS = 64 };

typedef struct options {
    pulleyprof_config cfg;
    collect_program prog;
    const char *dirs[MAX_DIRS];
    guest_env env;
    int exact;
    const char *costs;
} options;

static int parse_hz(const char *s, unsigned *hz)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') /* strtoul would take "-N" (as 2^64 - N) and spaces */
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v == 0 || v > PULLEYPROF_MAX_HZ)
        return -1;
    *hz = (unsigned)v;
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"freq", required_argument, NULL, 'f'},
        {"label", required_argument, NULL, 'l'},  {"invoke", required_argument, NULL, 'i'},
        {"dir", required_argument, NULL, 'd'},    {"exact", no_argument, NULL, 'x'},
        {"no-fuse", no_argument, NULL, 'F'},     {"env", required_argument, NULL, 'e'},
        {"max-memory", required_argument, NULL, 'M'},
        {"costs", required_argument, NULL, 'c'},  {"translate-all", no_argument, NULL, 'T'},
        CLI_STANDARD_OPTIONS,
    };
    opterr = 0;
    int opt;
    char msg[300];
    while ((opt = getopt_long(argc, argv, "+:o:f:l:i:d:e:hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'e':
            if (guest_env_add(&o->env, optarg, msg, sizeof msg) != 0)
                return cli_usage_error(&tool, msg);
            break;
        case 'o':
            if (!*optarg)
                return cli_usage_error(&tool, "--output needs a file name");
            o->cfg.db_path = optarg;
            break;
        case 'f':
            if (parse_hz(optarg, &o->cfg.sample_hz) != 0)
                return cli_usage_error(&tool, "--freq needs a rate from 1 to 1000000 Hz");
            break;
        case 'l': o->cfg.label = optarg; break;
        case 'i': o->prog.invoke = optarg; break;
        case 'd':
            if (o->prog.ndirs == MAX_DIRS)
                return cli_usage_error(&tool, "too many --dir options");
            o->dirs[o->prog.ndirs++] = optarg;
            break;
        case 'x': o->exact = 1; break;
        case 'M':
            if (cli_parse_size(optarg, &o->prog.max_memory) != 0 || o->prog.max_memory == 0)
                return cli_usage_error(&tool, "--max-memory needs a size in bytes (K, M, G allowed)");
            break;
        case 'F': o->prog.no_fuse = true; break;
        case 'T': o->prog.translate_all = true; break;
        case 'c': o->costs = optarg; break;
        case 'h': return cli_help(&tool);
        case 'V': return cli_version(&tool);
        default: return cli_bad_option(&tool, argv, opt);
        }
    }
    if (optind >= argc)
        return cli_usage_error(&tool, "no program to run");
    o->prog.path = argv[optind];
    o->prog.args = argv + optind + 1;
    o->prog.nargs = argc - optind - 1;
    o->prog.dirs = o->dirs;
    o->prog.envp = o->env.vars;
    return -1;
}

/* The command line as one string, each argument single-quoted when it
 * holds anything but safe characters. */
static char *quote_command(int argc, char **argv)
{
    size_t cap = 1;
    for (int i = 0; i < argc; i++)
        cap += strlen(argv[i]) * 4 + 3;
    char *out = malloc(cap), *p = out;
    if (!out)
        return NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-_./=:,+@%") == strlen(a);
        if (i)
            *p++ = ' ';
        if (plain) {
            p = stpcpy(p, a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++)
            p = *a == '\'' ? stpcpy(p, "'\\''") : (*p = *a, p + 1);
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

static bool is_wasm(const char *path)
{
    unsigned char magic[4];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false; /* the runner reports the error */
    bool wasm = fread(magic, 1, 4, f) == 4 && memcmp(magic, "\0asm", 4) == 0;
    fclose(f);
    return wasm;
}

/* --exact in the profiling build: run the same command line on the
 * counting build, pulley-collect-exact, found next to this executable
 * (or at $PULLEY_COLLECT_EXACT).  One VM per binary: the profiling and the
 * counting interpreter are the same code compiled with different hooks.
 * Returns only after reporting a failure. */
static void exec_counting_build(char **argv)
{
    static const char name[] = "pulley-collect-exact";
    const char *env = getenv("PULLEY_COLLECT_EXACT");
    char path[4096];
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - sizeof name - 1);
        if (n <= 0) {
            cli_error(&tool, "--exact: cannot find this program's directory: %s", strerror(errno));
            return;
        }
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        strcpy(slash ? slash + 1 : path, name);
    }
    fflush(NULL);
    execv(path, argv);
    cli_error(&tool, "--exact: cannot run the counting build %s: %s", path, strerror(errno));
}

/* Everything but freeing the options. */
static int collect(int argc, char **argv, options *o)
{
    int status = parse_options(argc, argv, o);
    if (status >= 0)
        return status;
    if (pvm_built_with_count()) /* pulley-collect-exact: --exact is implied */
        o->exact = 1;
    else if (o->exact) {
        exec_counting_build(argv);
        return CLI_FAILURE;
    }
    if (!pvm_built_with_profile() && !pvm_built_with_count()) {
        cli_error(&tool, "this VM was built without the profiling hook (PULLEY_PROFILE)");
        return CLI_FAILURE;
    }
    char build[160];
    snprintf(build, sizeof build, "dispatch=%s%s%s%s macros=%u%s", pvm_dispatch_mode(),
             pvm_built_with_profile() ? " profile" : "", pvm_built_with_count() ? " count" : "",
             pvm_built_with_trace() ? " trace" : "", pvm_macro_count(),
             pvm_macro_count() && o->prog.no_fuse ? " unfused" : "");
    o->cfg.exact = o->exact;
    o->cfg.run_starts = !o->exact; /* what the profiling hook publishes (interp/vm_hooks.h) */
    const char *slash = strrchr(o->prog.path, '/');
    o->cfg.benchmark = slash ? slash + 1 : o->prog.path;
    o->cfg.build_flags = build;
    o->cfg.isa = pulley_agent_isa();
    char err[512];
    if (o->costs && pulley_agent_isa_costs(o->costs, err, sizeof err) != 0)
        return cli_error(&tool, "--costs: %s", err);
    o->cfg.tool = "pulley-collect " PULLEY_VERSION;
    char *command = quote_command(argc, argv);
    o->cfg.command_line = command;
    /* A closed stdout or a file size limit must not cost the profile: the
     * program sees EPIPE or EFBIG on its write and the run is recorded. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    collect_session s = {.tool = tool.name};
    if (!command || session_block_signals() != 0 || session_start(&s, &o->cfg) != 0) {
        if (!command)
            cli_error(&tool, "out of memory");
        free(command);
        return CLI_FAILURE;
    }
    status = is_wasm(o->prog.path) ? collect_run_wasm(&s, &o->prog) : collect_run_pulley(&s, &o->prog);
    free(command);
    if (fflush(stdout) != 0 && errno != EPIPE)
        return cli_error(&tool, "writing the output failed: %s", strerror(errno));
    return status;
}

int main(int argc, char **argv)
{
    options o = {.cfg = {.db_path = "profile.db"}};
    int status = collect(argc, argv, &o);
    guest_env_free(&o.env);
    return status;
}
