/*
 * json_out.h - writing JSON strings (escaped, quoted) for the tools' JSON
 * output.
 */
#ifndef AN_JSON_OUT_H
#define AN_JSON_OUT_H

#include <stdio.h>

/* s as a JSON string: quoted, with quotes, backslashes and control
 * characters escaped. */
void an_json_string(FILE *out, const char *s);

#endif
