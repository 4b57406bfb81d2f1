/* bzip2_bench.c - bzip2's block-sorting compressor on generated data:
 * text-like data compressed at block sizes 1, 5 and 9 (100k to 900k), and a
 * highly repetitive buffer that sends the block sort to its fallback
 * algorithm, each decompressed and compared; sizes and checksums printed.
 *
 *   bzip2_bench [KIB]   (the size of the text-like data, default 512)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bzlib.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

static const char *words[] = {
    "the",    "quick",   "brown",    "fox",      "jumps",     "over",     "lazy",    "dog",
    "block",  "sorting", "burrows",  "wheeler",  "transform", "move",     "to",      "front",
    "run",    "length",  "huffman",  "coding",   "selector",  "table",    "bucket",  "radix",
    "quick",  "sort",    "suffix",   "array",    "pointer",   "rotation", "string",  "compare",
    "memory", "runtime", "function", "interpreter", "benchmark", "module", "export", "global"};

static void gen_text(char *buf, size_t n)
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
            buf[pos++] = tmp[i];
    }
}

/* a few short patterns repeated with rare changes: long equal suffixes */
static void gen_repetitive(char *buf, size_t n)
{
    static const char pat[] = "abcabcabdabcabcabc";
    for (size_t i = 0; i < n; i++)
        buf[i] = pat[i % (sizeof pat - 1)];
    for (size_t i = 0; i < n; i += 4099 + next_rand() % 1000)
        buf[i] = (char)('a' + next_rand() % 26);
}

static unsigned fnv(const char *p, unsigned n)
{
    unsigned h = 2166136261u;
    for (unsigned i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static int round_trip(const char *what, char *src, unsigned n, int block, char *comp,
                      char *back, unsigned long *total)
{
    unsigned clen = n + n / 100 + 600, blen = n;
    int rc = BZ2_bzBuffToBuffCompress(comp, &clen, src, n, block, 0, 30);
    if (rc != BZ_OK) {
        printf("%s: compress failed %d\n", what, rc);
        return 1;
    }
    rc = BZ2_bzBuffToBuffDecompress(back, &blen, comp, clen, 0, 0);
    if (rc != BZ_OK || blen != n || memcmp(src, back, n) != 0) {
        printf("%s: round trip FAILED, block %d, rc %d\n", what, block, rc);
        return 1;
    }
    printf("%s block %d: %u -> %u bytes, fnv(comp) %08x ok\n", what, block, n, clen,
           fnv(comp, clen));
    *total += clen;
    return 0;
}

int main(int argc, char **argv)
{
    unsigned kib = argc > 1 ? (unsigned)atoi(argv[1]) : 512;
    unsigned n = (kib ? kib : 1) * 1024, nrep = n / 2;
    char *src = malloc(n), *rep = malloc(nrep);
    char *comp = malloc(n + n / 100 + 600), *back = malloc(n);
    if (!src || !rep || !comp || !back) {
        fputs("bzip2_bench: out of memory\n", stderr);
        return 1;
    }
    gen_text(src, n);
    gen_repetitive(rep, nrep);
    printf("bzip2 %s, text %u bytes fnv %08x, repetitive %u bytes fnv %08x\n",
           BZ2_bzlibVersion(), n, fnv(src, n), nrep, fnv(rep, nrep));
    unsigned long total = 0;
    static const int blocks[] = {1, 5, 9};
    for (int i = 0; i < 3; i++)
        if (round_trip("text", src, n, blocks[i], comp, back, &total))
            return 1;
    if (round_trip("repetitive", rep, nrep, 9, comp, back, &total))
        return 1;
    printf("total compressed %lu\n", total);
    free(src);
    free(rep);
    free(comp);
    free(back);
    return 0;
}
