/* quickjs_bench.c - QuickJS evaluating bench.js, embedded in the binary
 * (bench_js.h, made by build.sh): a runtime and a context with the standard
 * objects, no quickjs-libc (no std or os module), a global print() and a
 * global SCALE from the first argument (default 1).  Exit 1 on an uncaught
 * exception, which is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quickjs.h"

#include "bench_js.h"

static JSValue js_print(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    for (int i = 0; i < argc; i++) {
        size_t len;
        const char *s = JS_ToCStringLen(ctx, &len, argv[i]);
        if (!s)
            return JS_EXCEPTION;
        if (i)
            putchar(' ');
        fwrite(s, 1, len, stdout);
        JS_FreeCString(ctx, s);
    }
    putchar('\n');
    return JS_UNDEFINED;
}

static void print_exception(JSContext *ctx)
{
    JSValue e = JS_GetException(ctx);
    const char *s = JS_ToCString(ctx, e);
    fprintf(stderr, "quickjs_bench: uncaught: %s\n", s ? s : "?");
    if (s)
        JS_FreeCString(ctx, s);
    if (JS_IsObject(e)) {
        JSValue st = JS_GetPropertyStr(ctx, e, "stack");
        const char *t = JS_IsUndefined(st) ? NULL : JS_ToCString(ctx, st);
        if (t) {
            fprintf(stderr, "%s\n", t);
            JS_FreeCString(ctx, t);
        }
        JS_FreeValue(ctx, st);
    }
    JS_FreeValue(ctx, e);
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    JSRuntime *rt = JS_NewRuntime();
    if (!rt) {
        fputs("quickjs_bench: no runtime\n", stderr);
        return 1;
    }
    JSContext *ctx = JS_NewContext(rt);
    if (!ctx) {
        fputs("quickjs_bench: no context\n", stderr);
        return 1;
    }
    JSValue global = JS_GetGlobalObject(ctx);
    JS_SetPropertyStr(ctx, global, "print", JS_NewCFunction(ctx, js_print, "print", 1));
    JS_SetPropertyStr(ctx, global, "SCALE", JS_NewFloat64(ctx, scale));
    JS_FreeValue(ctx, global);

    /* JS_Eval wants a NUL after the text */
    char *text = malloc(bench_js_len + 1);
    if (!text)
        return 1;
    memcpy(text, bench_js, bench_js_len);
    text[bench_js_len] = '\0';
    JSValue r = JS_Eval(ctx, text, bench_js_len, "bench.js", JS_EVAL_TYPE_GLOBAL);
    free(text);
    int rc = 0;
    if (JS_IsException(r)) {
        print_exception(ctx);
        rc = 1;
    }
    JS_FreeValue(ctx, r);
    fflush(stdout);
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    return rc;
}
