/*
 * pulley_asm.c - pulley-asm: assemble a .pasm file into a .pbc module.
 */
#include <errno.h>

#include "isa_cli.h"

static const cli_tool tool = {
    "pulley-asm",
    "[-o OUT.pbc] IN.pasm",
    "Assemble IN.pasm into a .pbc module (by default IN.pbc, next to it).\n"
    "The syntax is described in interp/asm.h.\n"
    "\n"
    "Options:\n"
    "  -o, --output=FILE  write the module to FILE\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and the ISA's hash, and exit\n"
    "\n" PVM_EXIT_HELP_TOOL,
};

/* IN.pasm -> IN.pbc; any other name gets .pbc appended.  NULL: no memory. */
static char *default_output(const char *input)
{
    size_t len = strlen(input);
    if (len > 5 && strcmp(input + len - 5, ".pasm") == 0)
        len -= 5;
    char *out = malloc(len + sizeof ".pbc");
    if (out) {
        memcpy(out, input, len);
        memcpy(out + len, ".pbc", sizeof ".pbc");
    }
    return out;
}

/* Write b to path; on failure remove what was written, errno says why. */
static int write_file(const char *path, const pvm_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    bool ok = fwrite(b->data, 1, b->len, f) == b->len;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        remove(path);
        errno = saved;
    }
    return ok ? 0 : -1;
}

static int assemble(const char *input, const char *output)
{
    pvm_error err;
    size_t size;
    uint8_t *text = pvm_read_file(input, &size, &err);
    if (!text)
        return cli_error(&tool, "%s", err.msg);
    pvm_module *m = pvm_assemble(input, (const char *)text, size, &err);
    free(text);
    if (!m)
        return cli_error(&tool, "%s", err.msg);
    pvm_buf bytes = {0};
    int status = CLI_OK;
    if (pvm_module_write(m, &bytes, &err) < 0)
        status = cli_error(&tool, "%s", err.msg);
    else if (write_file(output, &bytes) < 0)
        status = cli_error(&tool, "%s: %s", output, strerror(errno));
    pvm_buf_free(&bytes);
    pvm_module_free(m);
    return status;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        CLI_STANDARD_OPTIONS,
    };
    const char *output = NULL;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:hV", options, NULL)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'h': return cli_help(&tool);
        case 'V': return cli_version(&tool);
        default: return cli_bad_option(&tool, argv, opt);
        }
    }
    if (optind == argc)
        return cli_usage_error(&tool, "no input file");
    if (argc - optind > 1)
        return cli_usage_error(&tool, "more than one input file");

    const char *input = argv[optind];
    char *derived = output ? NULL : default_output(input);
    if (!output && !derived)
        return cli_error(&tool, "out of memory");
    int status = assemble(input, output ? output : derived);
    free(derived);
    return status;
}
