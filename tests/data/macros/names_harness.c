/*
 * names_harness.c - the opcode table of a macro build whose ops are named
 * as predefined macros (names.macros), compiled with those macros defined
 * (tests/e2e/macro_names.sh): each op has its own name and its format
 * "M_" and the name, with no prefix of the generated identifiers.  Prints
 * "N macro ops named" and exits 0, or names the first that is not.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "isa.h"

static const char *const names[] = {"linux", "unix", "errno",  "EOF",
                                    "stdin", "NULL", "assert", "PI",
                                    "A",     "HANDLER_ARGS"};

int main(void)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int op = pvm_op_by_name(names[i], strlen(names[i]));
        if (op < 0) {
            printf("no opcode %s\n", names[i]);
            return 1;
        }
        const pvm_op_info *info = &pvm_ops[op];
        char format[64];
        snprintf(format, sizeof format, "M_%s", names[i]);
        if (!info->macro || strcmp(info->name, names[i]) != 0 ||
            strcmp(pvm_formats[info->format].name, format) != 0) {
            printf("opcode %d: %s, format %s, %s\n", op, info->name,
                   pvm_formats[info->format].name, info->macro ? "macro" : "not a macro");
            return 1;
        }
        n++;
    }
    if (pvm_macro_count() != n) {
        printf("%u macro ops in the table, %u named\n", pvm_macro_count(), n);
        return 1;
    }
    printf("%u macro ops named\n", n);
    return 0;
}
