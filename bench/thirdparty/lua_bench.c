/* Lua benchmark host: runs bench.lua, embedded as bench_lua.h (made by build.sh). */
#include "bench_lua.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"
#include <stdio.h>

int main(void)
{
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        fputs("cannot create state\n", stderr);
        return 1;
    }
    luaL_openlibs(L);
    int st = luaL_loadbuffer(L, (const char *)bench_lua, bench_lua_len, "=bench.lua");
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
