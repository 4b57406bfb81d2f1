/* Force-included (-include) into every Lua source for the wasm32-wasi build.
 * wasi-libc has no setjmp/longjmp, no popen/system/tmpnam. Lua errors that would
 * need a longjmp abort the program instead (the benchmark script raises none). */
#ifndef LUA_WASI_SHIM_H
#define LUA_WASI_SHIM_H
#include <stdio.h>
#include <stdlib.h>
static inline void lua_wasi_throw_(void) __attribute__((noreturn));
static inline void lua_wasi_throw_(void)
{
    fputs("lua: error raised, but no setjmp/longjmp on wasi: aborting\n", stderr);
    fflush(NULL);
    abort();
}
#define LUAI_THROW(L, c) lua_wasi_throw_()
#define LUAI_TRY(L, c, a)                                                                          \
    {                                                                                              \
        a                                                                                          \
    }
#define luai_jmpbuf int
#define l_system(cmd) ((cmd) == NULL ? 0 : -1)
#define LUA_TMPNAMBUFSIZE 32
#define lua_tmpnam(b, e)                                                                           \
    {                                                                                              \
        (void)(b);                                                                                 \
        e = 1;                                                                                     \
    }
#define tmpfile() ((FILE *)0) /* io.tmpfile() returns fail */
#define l_popen(L, c, m) ((void)(c), (void)(m), luaL_error(L, "'popen' not supported"), (FILE *)0)
#define l_pclose(L, file) ((void)L, (void)file, -1)
#define l_checkmodep(m) ((m[0] == 'r' || m[0] == 'w') && m[1] == '\0')
#endif
