/*
 * opcode_table.c - the opcode table of the build as JSON, for
 * pulley-dis --opcodes (opcode_table.h).
 */
#include "opcode_table.h"

#include <inttypes.h>

#include "isa.h"
#include "json_out.h"

static void put_flags(FILE *out, unsigned flags)
{
    static const struct {
        const char *word;
        unsigned bit;
    } words[] = {
#define FLAG_ROW(word, bit) {#word, 1u << (bit)},
        PVM_FLAG_WORDS(FLAG_ROW)
#undef FLAG_ROW
    };
    fputc('[', out);
    unsigned n = 0;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (flags & words[i].bit)
            fprintf(out, "%s\"%s\"", n++ ? ", " : "", words[i].word);
    fputc(']', out);
}

static void put_op(FILE *out, unsigned op)
{
    const pvm_op_info *info = &pvm_ops[op];
    const pvm_format_info *fmt = &pvm_formats[info->format];
    char operands[128], roles[64];
    pvm_format_operands(fmt, operands, sizeof operands);
    pvm_format_roles(fmt, roles, sizeof roles);
    fputs("{\"name\": ", out);
    an_json_string(out, info->name);
    fprintf(out, ", \"number\": %u, \"extended\": %s, \"class\": \"%s\", \"flags\": ", op,
            PVM_OP_IS_EXT(op) ? "true" : "false", pvm_op_class_name(info->opclass));
    put_flags(out, info->flags);
    fputs(", \"format\": ", out);
    an_json_string(out, fmt->name);
    fputs(", \"operands\": ", out);
    an_json_string(out, operands);
    fputs(", \"roles\": ", out);
    an_json_string(out, roles);
    fprintf(out, ", \"length\": %u, \"wide\": ", info->length);
    unsigned wide = pvm_op_wide(op);
    if (wide != op)
        an_json_string(out, pvm_ops[wide].name);
    else
        fputs("null", out);
    fputs(", \"semantics\": ", out);
    an_json_string(out, info->semantics);
    fputs(", \"macro\": ", out);
    if (info->macro) {
        fputc('[', out);
        for (unsigned k = 0; k < info->macro->nparts; k++) {
            fputs(k ? ", " : "", out);
            an_json_string(out, pvm_ops[info->macro->part[k].op].name);
        }
        fputc(']', out);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
}

int pvm_print_opcode_table(FILE *out)
{
    fprintf(out, "{\"isa_hash\": \"%016" PRIx64 "\",\n \"classes\": [", pvm_isa_hash());
    for (unsigned c = 0; c < PVM_CLASS_COUNT; c++)
        fprintf(out, "%s\"%s\"", c ? ", " : "", pvm_op_class_name(c));
    fputs("],\n \"opcodes\": [\n", out);
    unsigned n = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_ops[op].name)
            continue;
        fputs(n++ ? ",\n  " : "  ", out);
        put_op(out, op);
    }
    fputs("\n]}\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
