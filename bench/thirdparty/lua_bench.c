/* Lua benchmark host: runs bench.lua, embedded as bench_lua.h (made by
 * build.sh); with the argument "empty", an empty chunk instead (start-up:
 * a state with the standard libraries, created and closed). */
#include "bench_lua.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int empty = argc > 1 && strcmp(argv[1], "empty") == 0;
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        fputs("cannot create state\n", stderr);
        return 1;
    }
    luaL_openlibs(L);
    int st = empty ? luaL_loadbuffer(L, "", 0, "=empty")
                   : luaL_loadbuffer(L, (const char *)bench_lua, bench_lua_len, "=bench.lua");
    if (st == LUA_OK)
        st = lua_pcall(L, 0, 0, 0);
    if (st != LUA_OK) {
        fprintf(stderr, "lua error: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    lua_close(L);
    fflush(stdout);
    return 0;
}
