/* lz77.c - compression-like byte work: an LZ77 compressor with a hashed
 * match finder (3-byte hash, chained positions over a 32 KB window), its
 * decompressor with overlapping copies, a table-driven CRC-32 over input
 * and output, and Huffman code lengths for the compressed bytes (the size
 * an entropy coder would reach).
 *
 *   lz77 [ROUNDS]   (default 18 rounds over 128 KB of generated text) */
#include "bench_util.h"

#define WINDOW (1 << 15)
#define HASH_BITS 13
#define MIN_MATCH 3
#define MAX_MATCH 130
#define MAX_CHAIN 32

/* ---- CRC-32 (IEEE, reflected) -------------------------------------------- */

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* ---- input ------------------------------------------------------------------ */

static size_t make_input(uint8_t *out, size_t n, bench_rng *rng)
{
    static const char *words[] = { "the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ",
                                   "dog ", "and ", "then ", "some ", "more ", "words ", "follow ",
                                   "compression ", "window ", "match ", "literal " };
    size_t len = 0;
    while (len + 32 < n) {
        uint32_t r = bench_rng_below(rng, 100);
        if (r < 80) { /* a word, skewed towards the first ones */
            const char *w = words[bench_rng_below(rng, 1 + bench_rng_below(rng, 18))];
            size_t l = strlen(w);
            memcpy(out + len, w, l);
            len += l;
        } else if (r < 92) { /* a number */
            len += (size_t)sprintf((char *)out + len, "%u, ", bench_rng_below(rng, 100000));
        } else if (r < 97) { /* a run */
            uint32_t run = 4 + bench_rng_below(rng, 20);
            memset(out + len, "-=*. "[bench_rng_below(rng, 5)], run);
            len += run;
        } else { /* noise */
            uint32_t k = 1 + bench_rng_below(rng, 16);
            for (uint32_t i = 0; i < k; i++)
                out[len++] = (uint8_t)bench_rng_u32(rng);
        }
    }
    return len;
}

/* ---- compressor ------------------------------------------------------------- */

/* Token stream: a control byte c < 128 is followed by c+1 literal bytes; a
 * control byte c >= 128 is a match of length (c - 128) + MIN_MATCH, followed
 * by distance-1 as two bytes, low byte first. */
static size_t flush_literals(uint8_t *out, size_t o, const uint8_t *lit, size_t n)
{
    while (n) {
        size_t k = n < 128 ? n : 128;
        out[o++] = (uint8_t)(k - 1);
        memcpy(out + o, lit, k);
        o += k;
        lit += k;
        n -= k;
    }
    return o;
}

static uint32_t hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

static size_t compress(const uint8_t *in, size_t n, uint8_t *out, int32_t *head, int32_t *prev)
{
    for (int i = 0; i < 1 << HASH_BITS; i++)
        head[i] = -1;
    size_t o = 0, lit_start = 0, pos = 0;
    while (pos < n) {
        size_t best_len = 0, best_dist = 0;
        if (pos + MIN_MATCH <= n) {
            uint32_t h = hash3(in + pos);
            int32_t cand = head[h];
            size_t limit = n - pos < MAX_MATCH ? n - pos : MAX_MATCH;
            for (int chain = 0; cand >= 0 && chain < MAX_CHAIN; chain++) {
                size_t dist = pos - (size_t)cand;
                if (dist > WINDOW)
                    break;
                if (in[cand + best_len] == in[pos + best_len]) { /* can it beat the best? */
                    size_t l = 0;
                    while (l < limit && in[cand + l] == in[pos + l])
                        l++;
                    if (l > best_len) {
                        best_len = l;
                        best_dist = dist;
                        if (l == limit)
                            break;
                    }
                }
                cand = prev[cand & (WINDOW - 1)];
            }
            prev[pos & (WINDOW - 1)] = head[h];
            head[h] = (int32_t)pos;
        }
        if (best_len >= MIN_MATCH) {
            o = flush_literals(out, o, in + lit_start, pos - lit_start);
            out[o++] = (uint8_t)(128 + best_len - MIN_MATCH);
            out[o++] = (uint8_t)((best_dist - 1) & 0xff);
            out[o++] = (uint8_t)((best_dist - 1) >> 8);
            /* insert the positions the match covers into the hash chains */
            for (size_t k = 1; k < best_len && pos + k + MIN_MATCH <= n; k++) {
                uint32_t h = hash3(in + pos + k);
                prev[(pos + k) & (WINDOW - 1)] = head[h];
                head[h] = (int32_t)(pos + k);
            }
            pos += best_len;
            lit_start = pos;
        } else {
            pos++;
        }
    }
    return flush_literals(out, o, in + lit_start, pos - lit_start);
}

static size_t decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t c = in[i++];
        if (c < 128) {
            size_t k = (size_t)c + 1;
            if (i + k > n || o + k > cap)
                return 0;
            memcpy(out + o, in + i, k);
            i += k;
            o += k;
        } else {
            if (i + 2 > n)
                return 0;
            size_t len = (size_t)c - 128 + MIN_MATCH;
            size_t dist = ((size_t)in[i] | (size_t)in[i + 1] << 8) + 1;
            i += 2;
            if (dist > o || o + len > cap)
                return 0;
            for (size_t k = 0; k < len; k++, o++) /* may overlap itself */
                out[o] = out[o - dist];
        }
    }
    return o;
}

/* ---- Huffman code lengths ------------------------------------------------------ */

/* Total bits of an optimal prefix code for the byte frequencies in p. */
static uint64_t huffman_bits(const uint8_t *p, size_t n)
{
    uint64_t weight[512];
    int parent[512], live[256], nlive = 0, nodes = 0;
    uint32_t freq[256] = { 0 };
    for (size_t i = 0; i < n; i++)
        freq[p[i]]++;
    for (int s = 0; s < 256; s++) {
        if (freq[s]) {
            weight[nodes] = freq[s];
            live[nlive++] = nodes++;
        }
    }
    int leaves = nodes;
    if (leaves < 2)
        return n;
    while (nlive > 1) { /* join the two lightest live nodes (ties: lowest index) */
        int a = 0, b = 1;
        if (weight[live[b]] < weight[live[a]]) {
            a = 1;
            b = 0;
        }
        for (int i = 2; i < nlive; i++) {
            if (weight[live[i]] < weight[live[a]]) {
                b = a;
                a = i;
            } else if (weight[live[i]] < weight[live[b]]) {
                b = i;
            }
        }
        weight[nodes] = weight[live[a]] + weight[live[b]];
        parent[live[a]] = parent[live[b]] = nodes;
        int hi = a > b ? a : b, lo = a < b ? a : b;
        live[lo] = nodes++;
        live[hi] = live[--nlive];
    }
    uint64_t bits = 0;
    for (int leaf = 0; leaf < leaves; leaf++) {
        int depth = 0;
        for (int x = leaf; x != nodes - 1; x = parent[x])
            depth++;
        bits += weight[leaf] * (uint64_t)depth;
    }
    return bits;
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 18);
    enum { SIZE = 1 << 17 };
    uint8_t *in = bench_alloc(SIZE);
    uint8_t *packed = bench_alloc(SIZE + SIZE / 128 + 16);
    uint8_t *back = bench_alloc(SIZE);
    int32_t *head = bench_alloc((1 << HASH_BITS) * sizeof *head);
    int32_t *prev = bench_alloc(WINDOW * sizeof *prev);
    bench_rng rng = bench_rng_seed(0x1277);
    crc_init();
    uint64_t sum = BENCH_CHECKSUM_INIT;
    size_t len = 0, plen = 0;
    uint64_t bits = 0;
    for (int r = 0; r < rounds; r++) {
        len = make_input(in, SIZE, &rng);
        plen = compress(in, len, packed, head, prev);
        size_t blen = decompress(packed, plen, back, SIZE);
        if (blen != len || memcmp(in, back, len) != 0) {
            fprintf(stderr, "lz77: round trip failed in round %d\n", r);
            return 1;
        }
        bits = huffman_bits(packed, plen);
        sum = bench_mix(sum, crc32(in, len));
        sum = bench_mix(sum, crc32(packed, plen));
        sum = bench_mix(sum, bits);
    }
    printf("lz77: %d rounds; last: %zu -> %zu bytes, %" PRIu64 " bytes after Huffman, crc %08x\n",
           rounds, len, plen, (bits + 7) / 8, (unsigned)crc32(packed, plen));
    free(in);
    free(packed);
    free(back);
    free(head);
    free(prev);
    bench_print_checksum(sum);
    return 0;
}
