/*
 * pulley_run.c - `pulley-run`: load a module (.pbc, or .pasm assembled on
 * the fly), verify it, bind its host (module_host.h: the builtins, WASI
 * for a saved translation), run its start function and its entry (or a
 * named) function with arguments from the command line and print the
 * results.  A WebAssembly binary is run by wasm_run.h instead (_start under
 * WASI, or --invoke; --emit-pasm prints its translation).  Linked against
 * the traced VM, the same source is `pulley-trace` (without Wasm: built
 * without PULLEY_RUN_WASM: it still runs saved translations under WASI).
 *
 * Exit status (interp/exit_status.h): 0 after a normal return, the
 * program's status after the `exit` import (or WASI proc_exit), 134 after
 * a trap, 1 for load and verification errors, 2 for bad usage.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>

#include "fuse.h"
#include "guest_env.h"
#include "isa_cli.h"
#include "module_host.h"
#include "run_args.h"
#include "verify.h"
#include "vm.h"
#ifdef PULLEY_RUN_WASM
#include "wasm_run.h"
#endif

static cli_tool tool = {
    "pulley-run", /* or the name this source was built and called as */
    "[OPTIONS] FILE [ARGS...]",
    "Run a Pulley bytecode module: FILE is a .pbc module or .pasm assembly\n"
    "(told apart by the .pbc magic bytes).  Runs its start function, if any,\n"
    "then the entry function (the module's entry, else \"main\") with ARGS as\n"
    "its parameters (parameter k in x[k] or f[k]) and prints each result on\n"
    "its own line.  The program may import print_i64, print_f64, print_char\n"
    "and exit; a module that imports WASI (a translation saved with\n"
    "--emit-pasm) runs under WASI, ARGS being its arguments.\n"
    "A WebAssembly FILE (.wasm, told apart by its magic bytes) is translated\n"
    "and its _start run under WASI with ARGS as its arguments, stdin, stdout\n"
    "and stderr passed through; with --invoke, export NAME is called with\n"
    "ARGS and its results printed.\n"
    "Options go before FILE; everything after it is the program's.\n"
    "\n"
    "Options:\n"
    "  -i, --invoke=NAME  run function NAME instead\n"
    "  -s, --stack=BYTES  stack size, a multiple of 16 up to 1 GiB (default:\n"
    "                     1 MiB; 8 MiB for WebAssembly)\n"
    "  -d, --dir=DIR[::GUEST]  grant a WebAssembly (or WASI) program directory DIR\n"
    "                     (seen as GUEST); may be repeated\n"
    "      --max-memory=SIZE  cap a WebAssembly program's memory at SIZE bytes\n"
    "                     (K, M, G: KiB, MiB, GiB; default: the module's own\n"
    "                     maximum): memory.grow past it fails, and a note says\n"
    "                     so at the end.  Memory is committed as it is touched\n"
    "  -e, --env=NAME=VALUE  set a variable in a WebAssembly program's\n"
    "                     environment (empty by default); --env=NAME passes\n"
    "                     this process's NAME on; may be repeated\n"
    "      --emit-pasm    print the WebAssembly module's translation as .pasm (as\n"
    "                     it runs: fused with the build's macro ops)\n"
    "      --no-fuse      run the code as it is, without the build's macro ops\n"
    "                     (a macro build fuses by default)\n"
    "      --translate-all  translate every function of a WebAssembly program\n"
    "                     before it runs (default: each when first called)\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and the VM's build, and exit\n"
    "\n" PVM_EXIT_HELP_RUNNER,
};

static int version(void)
{
    return cli_print_version(&tool, PULLEY_VERSION,
                             "dispatch %s%s%s, %u macro ops, ISA %016" PRIx64, pvm_dispatch_mode(),
                             pvm_built_with_trace() ? ", trace" : "",
                             pvm_built_with_profile() ? ", profile" : "", pvm_macro_count(),
                             pvm_isa_hash());
}

typedef struct options {
    const char *invoke;
    uint64_t stack;
    const char *file;
    char **args;
    int nargs;
    const char **dirs; /* --dir, ndirs of them */
    size_t ndirs;
    guest_env env;     /* --env */
    uint64_t max_memory; /* --max-memory (0: the module's own maximum) */
    bool emit_pasm;
    bool no_fuse;
    bool translate_all;
} options;

/* Parse an unsigned decimal or 0x-hex integer that fills all of s. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    *out = strtoull(s, &end, 0);
    return errno || *end ? -1 : 0;
}

/* Options come before FILE; everything after it (negative numbers, and
 * options of a WebAssembly program) is the program's.  Returns -1 to go
 * on, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"invoke", required_argument, NULL, 'i'},
        {"stack", required_argument, NULL, 's'},
        {"dir", required_argument, NULL, 'd'},
        {"emit-pasm", no_argument, NULL, 'E'},
        {"no-fuse", no_argument, NULL, 'F'},
        {"translate-all", no_argument, NULL, 'T'},
        {"env", required_argument, NULL, 'e'},
        {"max-memory", required_argument, NULL, 'M'},
        CLI_STANDARD_OPTIONS,
    };
    opterr = 0;
    int opt;
    /* Options end at FILE: what follows is the program's (--help too). */
    char msg[300];
    while ((opt = getopt_long(argc, argv, "+:i:s:d:e:hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'i': o->invoke = optarg; break;
        case 'e':
            if (guest_env_add(&o->env, optarg, msg, sizeof msg) != 0)
                return cli_usage_error(&tool, msg);
            break;
        case 'd': o->dirs[o->ndirs++] = optarg; break;
        case 'E': o->emit_pasm = true; break;
        case 'M':
            if (cli_parse_size(optarg, &o->max_memory) != 0 || o->max_memory == 0)
                return cli_usage_error(&tool, "--max-memory needs a size in bytes (K, M, G allowed)");
            break;
        case 'F': o->no_fuse = true; break;
        case 'T': o->translate_all = true; break;
        case 's':
            if (parse_u64(optarg, &o->stack) || o->stack == 0 || o->stack % 16 != 0 ||
                o->stack > PVM_MAX_STACK)
                return cli_usage_error(&tool, "--stack needs a positive multiple of 16 bytes, "
                                              "at most 1 GiB (1073741824)");
            break;
        case 'h': return cli_help(&tool);
        case 'V': return version();
        default: return cli_bad_option(&tool, argv, opt);
        }
    }
    if (optind < argc)
        o->file = argv[optind++];
    if (!o->file)
        return cli_usage_error(&tool, "no input file");
    o->args = argv + optind;
    o->nargs = argc - optind;
    return -1;
}

/* Load, verify and (unless told not to) fuse FILE; NULL after reporting
 * the error. */
static pvm_module *load(const char *path, bool fuse)
{
    pvm_module *m = cli_load_module(&tool, path);
    pvm_error err;
    if (m && pvm_verify_module(m, &err) != 0) {
        cli_error(&tool, "%s: verification failed: %s", path, err.msg);
        pvm_module_free(m);
        return NULL;
    }
    if (m && fuse && pvm_fuse_module(m, NULL, &err) != 0) {
        cli_error(&tool, "%s: %s", path, err.msg);
        pvm_module_free(m);
        return NULL;
    }
    return m;
}

/* Run function `index` of m (after its start function); returns the exit
 * status.  A WASI program's arguments are its argv, unless --invoke. */
static int run(const pvm_module *m, uint32_t index, const options *o)
{
    pvm_error err;
    pvm_vm_config cfg = {.stack_size = o->stack, .heap_cap = o->max_memory};
    pvm_vm *vm = pvm_vm_new(m, &cfg, &err);
    if (!vm) {
        cli_error(&tool, "%s", err.msg);
        return CLI_FAILURE;
    }
    bool argv_args = module_host_is_wasi(m) && !o->invoke;
    module_host host;
    module_host_options ho = {.path = o->file, .args = o->args, .nargs = argv_args ? o->nargs : 0,
                              .envp = o->env.vars, .dirs = o->dirs, .ndirs = o->ndirs,
                              .out = stdout};
    int status = CLI_FAILURE;
    char message[300];
    char ended[64];
    const char *bad;
    pvm_trap_kind trap;
    if (module_host_bind(&host, vm, &ho, &err) != 0)
        cli_error(&tool, "%s: %s", o->file, err.msg);
    else if ((bad = run_set_arguments(vm, &m->funcs[index], argv_args ? NULL : o->args,
                                      argv_args ? 0 : o->nargs, message, sizeof message)))
        status = cli_usage_error(&tool, bad);
    else if ((trap = module_host_start(vm)) != PVM_TRAP_NONE)
        status = run_ending(&tool, vm, trap, &m->funcs[m->start], ended);
    else
        status = run_ending(&tool, vm, pvm_vm_call(vm, index), &m->funcs[index], ended);
    module_host_free(&host);
    pvm_vm_free(vm);
    return status;
}

/* Run FILE if it is WebAssembly; -1 if it is not. */
static int run_wasm(const options *o)
{
#ifdef PULLEY_RUN_WASM
    pvm_error err;
    size_t size;
    uint8_t *bytes = pvm_read_file(o->file, &size, &err);
    if (!bytes)
        return cli_error(&tool, "%s", err.msg);
    int status = -1;
    if (pvm_wasm_is_binary(bytes, size)) {
        pvm_wasm_run_options w = {
            .tool = tool.name, .path = o->file, .bytes = bytes, .size = size,
            .invoke = o->invoke, .args = o->args, .nargs = o->nargs,
            .dirs = o->dirs, .ndirs = o->ndirs, .envp = o->env.vars, .stack = o->stack,
            .max_memory = o->max_memory,
            .emit_pasm = o->emit_pasm, .no_fuse = o->no_fuse,
            .translate_all = o->translate_all,
        };
        status = pvm_wasm_run(&w);
    }
    free(bytes);
    return status;
#else
    (void)o;
    return -1;
#endif
}

/* Run FILE as a .pbc or .pasm module; returns the exit status. */
static int run_module(const options *o)
{
    if (o->emit_pasm)
        return cli_usage_error(&tool, "--emit-pasm is for WebAssembly modules");
    pvm_module *m = load(o->file, !o->no_fuse);
    if (!m)
        return CLI_FAILURE;
    int status = CLI_FAILURE;
    if ((o->ndirs || o->env.n) && !module_host_is_wasi(m))
        status = cli_usage_error(&tool, "--dir and --env are for programs that import WASI");
    else {
        int index = run_pick_function(&tool, m, o->invoke);
        status = index < 0 ? CLI_FAILURE : run(m, (uint32_t)index, o);
    }
    pvm_module_free(m);
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 0) { /* pulley-run or pulley-trace */
        const char *slash = strrchr(argv[0], '/');
        tool.name = slash ? slash + 1 : argv[0];
    }
    options o = {0};
    o.dirs = calloc((size_t)argc + 1, sizeof *o.dirs);
    if (!o.dirs)
        return cli_error(&tool, "out of memory");
    int status = parse_options(argc, argv, &o);
    if (status < 0)
        status = run_wasm(&o);
    if (status < 0)
        status = run_module(&o);
    free(o.dirs);
    guest_env_free(&o.env);
    if (fflush(stdout) != 0) {
        cli_error(&tool, "writing the output failed");
        return CLI_FAILURE;
    }
    return status;
}
