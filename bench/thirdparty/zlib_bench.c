/* zlib benchmark driver: deterministic text-like data, deflate at levels 1/6/9,
 * inflate, round-trip check, print sizes and checksums. */
#include "zlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DATA_SIZE
#define DATA_SIZE (1u << 20)
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

static const char *words[] = {
    "the",         "quick",     "brown",       "fox",     "jumps",   "over",    "lazy",
    "dog",         "lorem",     "ipsum",       "dolor",   "sit",     "amet",    "consectetur",
    "adipiscing",  "elit",      "sed",         "do",      "eiusmod", "tempor",  "incididunt",
    "ut",          "labore",    "et",          "dolore",  "magna",   "aliqua",  "webassembly",
    "interpreter", "benchmark", "compression", "deflate", "inflate", "huffman", "window",
    "literal",     "length",    "distance",    "matches", "buffer",  "stream",  "checksum",
    "adler",       "crc",       "zlib",        "memory",  "runtime", "module",  "function",
    "table",       "global",    "export"};

static void gen(unsigned char *buf, size_t n)
{
    size_t pos = 0, nw = sizeof(words) / sizeof(words[0]);
    unsigned line = 0;
    while (pos < n) {
        char tmp[64];
        unsigned r = next_rand();
        int len;
        if (r % 23 == 0)
            len = snprintf(tmp, sizeof tmp, "%u ", r % 100000);
        else if (r % 17 == 0)
            len = snprintf(tmp, sizeof tmp, ".\n[%u] ", ++line);
        else
            len = snprintf(tmp, sizeof tmp, "%s ", words[(r >> 8) % nw]);
        for (int i = 0; i < len && pos < n; i++)
            buf[pos++] = (unsigned char)tmp[i];
    }
}

int main(void)
{
    size_t n = DATA_SIZE;
    unsigned char *src = malloc(n);
    uLong bound = compressBound(n);
    unsigned char *comp = malloc(bound);
    unsigned char *back = malloc(n);
    if (!src || !comp || !back) {
        fputs("zlib_bench: out of memory\n", stderr);
        return 1;
    }
    gen(src, n);
    uLong crc = crc32(0L, src, (uInt)n);
    uLong adl = adler32(1L, src, (uInt)n);
    printf("zlib %s data %lu bytes crc32 %08lx adler32 %08lx\n", zlibVersion(), (unsigned long)n,
           crc, adl);
    static const int levels[] = {1, 6, 9};
    uLong total = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (int li = 0; li < 3; li++) {
            uLongf clen = bound;
            int rc = compress2(comp, &clen, src, n, levels[li]);
            if (rc != Z_OK) {
                printf("compress2 failed %d\n", rc);
                return 1;
            }
            uLongf blen = n;
            memset(back, 0, n);
            rc = uncompress(back, &blen, comp, clen);
            if (rc != Z_OK || blen != n || memcmp(src, back, n) != 0) {
                printf("round-trip FAILED level %d rc %d\n", levels[li], rc);
                return 1;
            }
            uLong ccrc = crc32(0L, comp, (uInt)clen);
            uLong bcrc = crc32(0L, back, (uInt)blen);
            printf("round %d level %d: compressed %lu bytes (%.2f%%) crc32(comp) %08lx crc32(out) "
                   "%08lx ok\n",
                   round, levels[li], (unsigned long)clen, 100.0 * clen / n, ccrc, bcrc);
            total += clen;
        }
    }
    printf("total compressed %lu\n", (unsigned long)total);
    free(src);
    free(comp);
    free(back);
    return 0;
}
