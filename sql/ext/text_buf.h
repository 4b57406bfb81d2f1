/*
 * text_buf.h - a growing text buffer for the extension's results: printf
 * appends, and running out of memory is remembered rather than fatal.
 */
#ifndef SX_TEXT_BUF_H
#define SX_TEXT_BUF_H

#include <stddef.h>

typedef struct sx_text {
    char *data; /* NUL-terminated once anything was appended; malloc'd */
    size_t len, cap;
    int failed; /* an append ran out of memory: the text is incomplete */
} sx_text;

void sx_text_printf(sx_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sx_text_append(sx_text *t, const char *s, size_t len);
void sx_text_free(sx_text *t);

#endif
