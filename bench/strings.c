/* strings.c - string processing: generates sentences of syllable words,
 * then splits and case-folds them, counts word frequencies in a hash table
 * with string keys and chained buckets, searches for patterns with
 * Boyer-Moore-Horspool (cross-checked against libc strstr), computes edit
 * distances between words, and reverses words in place.
 *
 *   strings [PASSES]   (default 30 passes over ~60 KB of text) */
#include "bench_util.h"

#define TEXT_WORDS 12000
#define BUCKETS 1024
#define MAX_WORD 32

/* ---- text generation -------------------------------------------------- */

static char *make_text(bench_rng *rng, size_t *len)
{
    static const char *syll[] = { "ka", "to", "ri", "men", "sa", "lo", "vi", "dar",
                                  "e", "on", "qu", "is", "bel", "nu", "th", "ax" };
    char *t = bench_alloc(TEXT_WORDS * (4 * 3 + 3) + 1);
    size_t n = 0;
    int start = 1;
    for (int w = 0; w < TEXT_WORDS; w++) {
        /* a Zipf-like choice: small syllable counts and low indices are common */
        uint32_t parts = 1 + bench_rng_below(rng, 1 + bench_rng_below(rng, 4));
        for (uint32_t p = 0; p < parts; p++) {
            const char *s = syll[bench_rng_below(rng, 1 + bench_rng_below(rng, 16))];
            size_t l = strlen(s);
            memcpy(t + n, s, l);
            if (start && p == 0)
                t[n] = (char)(t[n] - 'a' + 'A');
            n += l;
        }
        start = 0;
        uint32_t r = bench_rng_below(rng, 16);
        if (r == 0) {
            t[n++] = '.';
            start = 1;
        } else if (r == 1) {
            t[n++] = ',';
        }
        t[n++] = r == 2 ? '\n' : ' ';
    }
    t[n] = '\0';
    *len = n;
    return t;
}

/* ---- word counting in a chained hash table ----------------------------- */

struct entry {
    struct entry *next;
    uint32_t count;
    char word[MAX_WORD];
};

struct table {
    struct entry *bucket[BUCKETS];
    uint32_t distinct;
};

static uint32_t hash_word(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static void count_word(struct table *t, const char *w)
{
    uint32_t b = hash_word(w) & (BUCKETS - 1);
    for (struct entry *e = t->bucket[b]; e; e = e->next) {
        if (strcmp(e->word, w) == 0) {
            e->count++;
            return;
        }
    }
    struct entry *e = bench_alloc(sizeof *e);
    strcpy(e->word, w);
    e->count = 1;
    e->next = t->bucket[b];
    t->bucket[b] = e;
    t->distinct++;
}

static void table_free(struct table *t)
{
    for (int b = 0; b < BUCKETS; b++) {
        struct entry *e = t->bucket[b];
        while (e) {
            struct entry *next = e->next;
            free(e);
            e = next;
        }
        t->bucket[b] = NULL;
    }
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Split text into lower-cased words; count them; keep the first `keep`. */
static uint32_t split_words(const char *text, struct table *t, char (*kept)[MAX_WORD], uint32_t keep)
{
    uint32_t words = 0;
    const char *p = text;
    while (*p) {
        while (*p && !is_alpha(*p))
            p++;
        if (!*p)
            break;
        char w[MAX_WORD];
        size_t l = 0;
        while (is_alpha(*p)) {
            char c = *p++;
            if (l + 1 < MAX_WORD)
                w[l++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        w[l] = '\0';
        count_word(t, w);
        if (words < keep)
            memcpy(kept[words], w, l + 1);
        words++;
    }
    return words;
}

/* ---- pattern search ------------------------------------------------------ */

static uint32_t horspool_count(const char *text, size_t n, const char *pat)
{
    size_t m = strlen(pat);
    size_t shift[256];
    uint32_t found = 0;
    if (m == 0 || m > n)
        return 0;
    for (int i = 0; i < 256; i++)
        shift[i] = m;
    for (size_t i = 0; i + 1 < m; i++)
        shift[(unsigned char)pat[i]] = m - 1 - i;
    size_t pos = 0;
    while (pos + m <= n) {
        unsigned char last = (unsigned char)text[pos + m - 1];
        if (last == (unsigned char)pat[m - 1] && memcmp(text + pos, pat, m - 1) == 0)
            found++;
        pos += shift[last];
    }
    return found;
}

static uint32_t strstr_count(const char *text, const char *pat)
{
    uint32_t found = 0;
    for (const char *p = strstr(text, pat); p; p = strstr(p + 1, pat))
        found++;
    return found;
}

/* ---- edit distance and in-place reversal ----------------------------------- */

static uint32_t levenshtein(const char *a, const char *b)
{
    uint32_t row[MAX_WORD + 1];
    size_t la = strlen(a), lb = strlen(b);
    for (size_t j = 0; j <= lb; j++)
        row[j] = (uint32_t)j;
    for (size_t i = 1; i <= la; i++) {
        uint32_t diag = row[0];
        row[0] = (uint32_t)i;
        for (size_t j = 1; j <= lb; j++) {
            uint32_t up = row[j];
            uint32_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void reverse(char *s, size_t n)
{
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        char c = s[i];
        s[i] = s[j - 1];
        s[j - 1] = c;
    }
}

/* Reverse every word of the text in place; count palindromic words. */
static uint32_t reverse_words(char *text)
{
    uint32_t palindromes = 0;
    char *p = text;
    while (*p) {
        while (*p && !is_alpha(*p))
            p++;
        char *w = p;
        while (is_alpha(*p))
            p++;
        size_t l = (size_t)(p - w);
        if (l == 0)
            continue;
        reverse(w, l);
        int same = 1;
        for (size_t i = 0; i < l / 2 && same; i++)
            same = (w[i] | 32) == (w[l - 1 - i] | 32);
        palindromes += (uint32_t)(same && l > 1);
    }
    return palindromes;
}

int main(int argc, char **argv)
{
    int passes = bench_scale(argc, argv, 30);
    static const char *patterns[] = { "kato", "men", "ri dar", "quis", "Sa", "belnu", "e, ", "thax" };
    enum { KEEP = 300 };
    static char kept[KEEP][MAX_WORD];
    static struct table table;
    bench_rng rng = bench_rng_seed(0x5791);
    size_t len;
    char *text = make_text(&rng, &len);

    uint64_t sum = BENCH_CHECKSUM_INIT;
    uint32_t words = 0, dist = 0, pal = 0, top = 0, hits = 0;
    char top_word[MAX_WORD] = "";
    for (int p = 0; p < passes; p++) {
        words = split_words(text, &table, kept, KEEP);
        top = 0;
        for (int b = 0; b < BUCKETS; b++)
            for (const struct entry *e = table.bucket[b]; e; e = e->next)
                if (e->count > top || (e->count == top && strcmp(e->word, top_word) < 0)) {
                    top = e->count;
                    strcpy(top_word, e->word);
                }
        sum = bench_mix(sum, table.distinct);
        table_free(&table);
        table.distinct = 0;

        hits = 0;
        for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
            uint32_t h = horspool_count(text, len, patterns[i]);
            if (p == 0 && h != strstr_count(text, patterns[i])) {
                fprintf(stderr, "horspool and strstr disagree on '%s'\n", patterns[i]);
                return 1;
            }
            hits += h;
        }
        dist = 0;
        for (int i = 0; i + 1 < KEEP; i++)
            dist += levenshtein(kept[i], kept[(i * 7 + p) % KEEP]);
        pal = reverse_words(text);
        reverse_words(text); /* and back */
        sum = bench_mix(sum, words);
        sum = bench_mix(sum, hits);
        sum = bench_mix(sum, dist);
        sum = bench_mix(sum, pal);
        sum = bench_mix(sum, hash_word(text + (size_t)p * 131 % len));
    }
    printf("strings: %zu bytes, %u words, top word '%s' x%u\n", len, words, top_word, top);
    printf("pattern hits %u, edit distance sum %u, palindromes %u\n", hits, dist, pal);
    free(text);
    bench_print_checksum(sum);
    return 0;
}
