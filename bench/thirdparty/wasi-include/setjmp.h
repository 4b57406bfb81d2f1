/* setjmp.h - empty: the wasi-libc of Debian 12 has no setjmp, and Lua's
 * error throwing is replaced by lua_wasi_shim.h. */
