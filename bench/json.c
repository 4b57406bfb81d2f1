/* json.c - a branchy parser and state machine: generates a pseudo-random
 * JSON document (nested objects and arrays, strings with escapes, integers,
 * decimals with exponents, literals), then repeatedly minifies it with a
 * character state machine and parses it with a validating recursive-descent
 * parser that decodes every string and number.
 *
 *   json [PASSES]   (default 64 passes over a ~120 KB document) */
#include "bench_util.h"

/* ---- output buffer ----------------------------------------------------- */

struct buf {
    char *data;
    size_t len, cap;
};

static void put(struct buf *b, char c)
{
    if (b->len == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 4096;
        char *grown = realloc(b->data, b->cap);
        if (!grown) {
            fprintf(stderr, "out of memory\n");
            exit(3);
        }
        b->data = grown;
    }
    b->data[b->len++] = c;
}

static void puts_buf(struct buf *b, const char *s)
{
    while (*s)
        put(b, *s++);
}

static void put_uint(struct buf *b, uint32_t v)
{
    char tmp[12];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        put(b, tmp[--n]);
}

/* ---- generator ------------------------------------------------------------ */

static void gen_space(struct buf *b, bench_rng *rng)
{
    static const char ws[] = { ' ', ' ', '\n', '\t' };
    uint32_t r = bench_rng_below(rng, 8);
    for (uint32_t i = 0; i < r / 3; i++)
        put(b, ws[bench_rng_below(rng, 4)]);
}

static void gen_string(struct buf *b, bench_rng *rng)
{
    static const char hex[] = "0123456789abcdef";
    uint32_t len = 1 + bench_rng_below(rng, 14);
    put(b, '"');
    for (uint32_t i = 0; i < len; i++) {
        uint32_t r = bench_rng_below(rng, 40);
        if (r == 0) {
            put(b, '\\');
            put(b, "\"\\/bfnrt"[bench_rng_below(rng, 8)]);
        } else if (r == 1) {
            uint32_t u = 1 + bench_rng_below(rng, 0x7ff);
            puts_buf(b, "\\u0");
            put(b, hex[u >> 8]);
            put(b, hex[(u >> 4) & 15]);
            put(b, hex[u & 15]);
        } else if (r < 8) {
            put(b, (char)('A' + bench_rng_below(rng, 26)));
        } else {
            put(b, (char)('a' + bench_rng_below(rng, 26)));
        }
    }
    put(b, '"');
}

static void gen_number(struct buf *b, bench_rng *rng)
{
    if (bench_rng_below(rng, 3) == 0)
        put(b, '-');
    put_uint(b, bench_rng_below(rng, 4) ? bench_rng_below(rng, 1000) : bench_rng_u32(rng));
    if (bench_rng_below(rng, 3) == 0) {
        put(b, '.');
        put_uint(b, bench_rng_below(rng, 100000));
    }
    if (bench_rng_below(rng, 6) == 0) {
        put(b, bench_rng_below(rng, 2) ? 'e' : 'E');
        if (bench_rng_below(rng, 2))
            put(b, bench_rng_below(rng, 2) ? '-' : '+');
        put_uint(b, bench_rng_below(rng, 30));
    }
}

static void gen_value(struct buf *b, bench_rng *rng, int depth)
{
    uint32_t kind = bench_rng_below(rng, depth < 6 ? 10 : 6);
    gen_space(b, rng);
    switch (kind) {
    case 0: case 1: gen_string(b, rng); break;
    case 2: case 3: case 4: gen_number(b, rng); break;
    case 5: puts_buf(b, bench_rng_below(rng, 3) ? (bench_rng_below(rng, 2) ? "true" : "false") : "null"); break;
    case 6: case 7: {
        uint32_t n = bench_rng_below(rng, 9);
        put(b, '[');
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                put(b, ',');
            gen_value(b, rng, depth + 1);
        }
        gen_space(b, rng);
        put(b, ']');
        break;
    }
    default: {
        uint32_t n = bench_rng_below(rng, 8);
        put(b, '{');
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                put(b, ',');
            gen_space(b, rng);
            gen_string(b, rng);
            gen_space(b, rng);
            put(b, ':');
            gen_value(b, rng, depth + 1);
        }
        gen_space(b, rng);
        put(b, '}');
    }
    }
    gen_space(b, rng);
}

/* ---- minifier: a four-state machine ---------------------------------------- */

static size_t minify(const char *in, size_t n, char *out)
{
    enum { OUTSIDE, IN_STRING, ESCAPE } state = OUTSIDE;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        switch (state) {
        case OUTSIDE:
            if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
                continue;
            if (c == '"')
                state = IN_STRING;
            break;
        case IN_STRING:
            if (c == '\\')
                state = ESCAPE;
            else if (c == '"')
                state = OUTSIDE;
            break;
        case ESCAPE:
            state = IN_STRING;
            break;
        }
        out[o++] = c;
    }
    return o;
}

/* ---- parser ---------------------------------------------------------------- */

struct parser {
    const char *start, *p, *end;
    uint32_t objects, arrays, strings, numbers, literals, max_depth;
    uint64_t int_sum;    /* sum of the integer parts, wrapping */
    uint64_t text_hash;  /* hash of every decoded string byte */
    uint64_t num_hash;   /* hash of (digits, exponent) of every number */
};

static void fail(const struct parser *ps, const char *what)
{
    fprintf(stderr, "json: %s at byte %ld\n", what, (long)(ps->p - ps->start));
    exit(1);
}

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r'))
        ps->p++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode a string into UTF-8 bytes, folding them into text_hash. */
static uint32_t parse_string(struct parser *ps)
{
    uint32_t len = 0;
    uint64_t h = ps->text_hash;
    ps->p++; /* opening quote */
    for (;;) {
        if (ps->p >= ps->end)
            fail(ps, "unterminated string");
        unsigned char c = (unsigned char)*ps->p++;
        uint32_t cp;
        if (c == '"')
            break;
        if (c < 0x20)
            fail(ps, "control character in string");
        if (c != '\\') {
            cp = c;
        } else {
            if (ps->p >= ps->end)
                fail(ps, "unterminated escape");
            switch (*ps->p++) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = 8; break;
            case 'f': cp = 12; break;
            case 'n': cp = 10; break;
            case 'r': cp = 13; break;
            case 't': cp = 9; break;
            case 'u':
                cp = 0;
                for (int i = 0; i < 4; i++) {
                    int d = ps->p < ps->end ? hexval(*ps->p) : -1;
                    if (d < 0)
                        fail(ps, "bad \\u escape");
                    cp = cp * 16 + (uint32_t)d;
                    ps->p++;
                }
                break;
            default:
                fail(ps, "bad escape");
                cp = 0;
            }
        }
        /* UTF-8 encode (no surrogates are generated) */
        if (cp < 0x80) {
            h = (h ^ cp) * 0x100000001b3ULL;
            len += 1;
        } else if (cp < 0x800) {
            h = (h ^ (0xc0 | cp >> 6)) * 0x100000001b3ULL;
            h = (h ^ (0x80 | (cp & 0x3f))) * 0x100000001b3ULL;
            len += 2;
        } else {
            h = (h ^ (0xe0 | cp >> 12)) * 0x100000001b3ULL;
            h = (h ^ (0x80 | ((cp >> 6) & 0x3f))) * 0x100000001b3ULL;
            h = (h ^ (0x80 | (cp & 0x3f))) * 0x100000001b3ULL;
            len += 3;
        }
    }
    ps->text_hash = h;
    ps->strings++;
    return len;
}

static int is_digit(const struct parser *ps)
{
    return ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9';
}

/* number = -? int frac? exp?, kept exactly as (digits, decimal exponent). */
static void parse_number(struct parser *ps)
{
    int neg = 0;
    uint64_t digits = 0, int_part;
    int32_t exp10 = 0, e = 0;
    if (*ps->p == '-') {
        neg = 1;
        ps->p++;
    }
    if (!is_digit(ps))
        fail(ps, "digit expected");
    if (*ps->p == '0') {
        ps->p++;
    } else {
        while (is_digit(ps))
            digits = digits * 10 + (uint64_t)(*ps->p++ - '0');
    }
    int_part = digits;
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (!is_digit(ps))
            fail(ps, "fraction digit expected");
        while (is_digit(ps)) {
            digits = digits * 10 + (uint64_t)(*ps->p++ - '0');
            exp10--;
        }
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        int eneg = 0;
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            eneg = *ps->p++ == '-';
        if (!is_digit(ps))
            fail(ps, "exponent digit expected");
        while (is_digit(ps) && e < 10000)
            e = e * 10 + (*ps->p++ - '0');
        exp10 += eneg ? -e : e;
    }
    ps->int_sum += neg ? (uint64_t)0 - int_part : int_part;
    ps->num_hash = bench_mix(ps->num_hash, digits ^ (uint64_t)(uint32_t)exp10 << 40 ^ (uint64_t)neg << 63);
    ps->numbers++;
}

static void parse_literal(struct parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        fail(ps, "bad literal");
    ps->p += n;
    ps->literals++;
}

static void parse_value(struct parser *ps, uint32_t depth)
{
    if (depth > ps->max_depth)
        ps->max_depth = depth;
    if (depth > 64)
        fail(ps, "nesting too deep");
    skip_ws(ps);
    if (ps->p >= ps->end)
        fail(ps, "value expected");
    switch (*ps->p) {
    case '{':
        ps->p++;
        ps->objects++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            break;
        }
        for (;;) {
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"')
                fail(ps, "key expected");
            parse_string(ps);
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p++ != ':')
                fail(ps, "':' expected");
            parse_value(ps, depth + 1);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == '}') {
                ps->p++;
                break;
            }
            fail(ps, "',' or '}' expected");
        }
        break;
    case '[':
        ps->p++;
        ps->arrays++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            break;
        }
        for (;;) {
            parse_value(ps, depth + 1);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == ']') {
                ps->p++;
                break;
            }
            fail(ps, "',' or ']' expected");
        }
        break;
    case '"': parse_string(ps); break;
    case 't': parse_literal(ps, "true"); break;
    case 'f': parse_literal(ps, "false"); break;
    case 'n': parse_literal(ps, "null"); break;
    default: parse_number(ps); break;
    }
    skip_ws(ps);
}

static struct parser parse_document(const char *text, size_t n)
{
    struct parser ps = { .start = text, .p = text, .end = text + n, .text_hash = BENCH_CHECKSUM_INIT };
    parse_value(&ps, 0);
    if (ps.p != ps.end)
        fail(&ps, "trailing characters");
    return ps;
}

int main(int argc, char **argv)
{
    int passes = bench_scale(argc, argv, 64);
    bench_rng rng = bench_rng_seed(0x15011);
    struct buf doc = { 0 };
    put(&doc, '[');
    for (int i = 0; i < 400; i++) {
        if (i)
            put(&doc, ',');
        gen_value(&doc, &rng, 1);
    }
    put(&doc, ']');
    char *mini = bench_alloc(doc.len);

    uint64_t sum = BENCH_CHECKSUM_INIT;
    struct parser ps = { 0 };
    size_t mini_len = 0;
    for (int p = 0; p < passes; p++) {
        mini_len = minify(doc.data, doc.len, mini);
        ps = p % 2 ? parse_document(mini, mini_len) : parse_document(doc.data, doc.len);
        sum = bench_mix(sum, ps.text_hash);
        sum = bench_mix(sum, ps.num_hash);
        sum = bench_mix(sum, ps.int_sum);
    }
    printf("json: %zu bytes (%zu minified), %d passes\n", doc.len, mini_len, passes);
    printf("objects %u arrays %u strings %u numbers %u literals %u depth %u\n",
           ps.objects, ps.arrays, ps.strings, ps.numbers, ps.literals, ps.max_depth);
    sum = bench_mix(sum, (uint64_t)ps.objects << 32 | ps.arrays);
    sum = bench_mix(sum, (uint64_t)ps.strings << 32 | ps.numbers);
    free(mini);
    free(doc.data);
    bench_print_checksum(sum);
    return 0;
}
