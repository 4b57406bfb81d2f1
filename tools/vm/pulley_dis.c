/*
 * pulley_dis.c - pulley-dis: print a module as .pasm text that re-assembles
 * to the identical .pbc bytes; with --opcodes, the opcode table as JSON.
 */
#include "disasm.h"
#include "isa_cli.h"
#include "opcode_table.h"

static const cli_tool tool = {
    "pulley-dis",
    "[--hex] IN.pbc|IN.pasm\n   or: pulley-dis --opcodes",
    "Disassemble a module to standard output.  Each instruction's comment\n"
    "gives its offset in the function and its address in the module's code.\n"
    "A .pasm input (one without the .pbc magic bytes) is assembled first.\n"
    "\n"
    "Options:\n"
    "  -x, --hex      add each instruction's bytes to its comment\n"
    "      --opcodes  print the build's opcode table as JSON instead (no input):\n"
    "                 {\"isa_hash\", \"classes\", \"opcodes\"}, one opcode a line with\n"
    "                 its name, number, extended, class (what it does), flags,\n"
    "                 format, operands (\"x x s32\"), roles (\"w r\"), length,\n"
    "                 wide (the opcode it is matched as, or null), semantics\n"
    "                 and macro (a macro op's parts, or null)\n"
    "  -h, --help     show this help and exit\n"
    "  -V, --version  show the version and the ISA's hash, and exit\n"
    "\n" PVM_EXIT_HELP_TOOL,
};

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"hex", no_argument, NULL, 'x'},
        {"opcodes", no_argument, NULL, 'O'},
        CLI_STANDARD_OPTIONS,
    };
    pvm_disasm_options dis = {0};
    bool opcodes = false;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":xhV", options, NULL)) != -1) {
        switch (opt) {
        case 'x': dis.hex = true; break;
        case 'O': opcodes = true; break;
        case 'h': return cli_help(&tool);
        case 'V': return cli_version(&tool);
        default: return cli_bad_option(&tool, argv, opt);
        }
    }
    if (opcodes) {
        if (optind < argc || dis.hex)
            return cli_usage_error(&tool, "--opcodes takes no input file and no --hex");
        return pvm_print_opcode_table(stdout) == 0 ? CLI_OK
                                                   : cli_error(&tool, "cannot write the table");
    }
    if (optind == argc)
        return cli_usage_error(&tool, "no input file");
    if (argc - optind > 1)
        return cli_usage_error(&tool, "more than one input file");

    const char *input = argv[optind];
    pvm_module *m = cli_load_module(&tool, input);
    if (!m)
        return CLI_FAILURE;
    pvm_error err;
    int status = CLI_OK;
    if (pvm_disassemble_module(stdout, m, &dis, &err) < 0)
        status = cli_error(&tool, "%s: %s", input, err.msg);
    pvm_module_free(m);
    return status;
}
