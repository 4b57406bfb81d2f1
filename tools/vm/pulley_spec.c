/*
 * pulley_spec.c - pulley-spec: run WebAssembly spec test scripts (.wast)
 * on the VM: wast2json converts each one, and every command is executed
 * through the instance layer (interp/wasm/spec).
 */
#include "isa_cli.h"
#include "spec_runner.h"

static const cli_tool tool = {
    "pulley-spec",
    "[--wast2json PATH] [-v] [--timeout SECONDS] DIR|FILE.wast...",
    "Run WebAssembly spec test scripts: each FILE.wast, and each .wast file in\n"
    "each DIR (in name order).  Prints \"NAME: N passed, N failed, N skipped\" per\n"
    "script, then the totals alone on the last line.  Only text-format\n"
    "assert_malformed commands are skipped (out of scope).  Exits with 0 only\n"
    "when no command failed.  Each script runs in a child process, so that a\n"
    "crash or a hang fails that script's remaining commands only.\n"
    "\n"
    "Options:\n"
    "      --wast2json PATH  the wast2json program (default: from the PATH)\n"
    "  -v, --verbose         list each failing command: line, expectation, outcome\n"
    "      --timeout SECONDS limit per script (default 300; 0: none)\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n",
};

int main(int argc, char **argv)
{
    enum { OPT_WAST2JSON = 256, OPT_TIMEOUT };
    static const struct option options[] = {
        {"wast2json", required_argument, NULL, OPT_WAST2JSON},
        {"verbose", no_argument, NULL, 'v'},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        CLI_STANDARD_OPTIONS,
    };
    spec_options o = {.isolate = true, .timeout = 300};
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":vhV", options, NULL)) != -1) {
        switch (opt) {
        case OPT_WAST2JSON: o.wast2json = optarg; break;
        case 'v': o.verbose = true; break;
        case OPT_TIMEOUT: {
            char *end;
            unsigned long n = strtoul(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end || n > 86400) /* not "-N": 2^64 - N */
                return cli_usage_error(&tool, "--timeout takes a number of seconds");
            o.timeout = (unsigned)n;
            break;
        }
        case 'h': return cli_help(&tool);
        case 'V': return cli_version(&tool);
        default: return cli_bad_option(&tool, argv, opt);
        }
    }
    if (optind == argc)
        return cli_usage_error(&tool, "no script or directory");
    spec_totals all = {0, 0, 0};
    if (spec_run_scripts(argv + optind, argc - optind, &o, spec_run_commands, NULL, &all))
        return CLI_FAILURE;
    spec_print_totals(&all);
    return all.failed ? CLI_FAILURE : CLI_OK;
}
