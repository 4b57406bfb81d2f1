/* pidigits.c - multi-precision integer arithmetic: digits of pi from
 * Machin's formula, pi = 16 atan(1/5) - 4 atan(1/239), on fixed-point
 * numbers of base-10^9 limbs.  The inner loops are 64-bit divisions by
 * small divisors (long division), additions and subtractions with carries.
 *
 *   pidigits [ROUNDS]   (default 11 rounds of about 2500 digits) */
#include "bench_util.h"

#define BASE 1000000000u

/* A fixed-point number: limb[0] is the integer part, limb[i] the i-th group
 * of nine decimals.  `first` is the index of the first non-zero limb. */
struct fixed {
    uint32_t *limb;
    int n, first;
};

static void fixed_set(struct fixed *x, uint32_t v)
{
    memset(x->limb, 0, (size_t)x->n * sizeof *x->limb);
    x->limb[0] = v;
    x->first = v ? 0 : x->n;
}

static void fixed_div(struct fixed *x, uint32_t d)
{
    uint64_t rem = 0;
    for (int i = x->first; i < x->n; i++) {
        uint64_t cur = rem * BASE + x->limb[i];
        x->limb[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    while (x->first < x->n && x->limb[x->first] == 0)
        x->first++;
}

static void fixed_mul(struct fixed *x, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = x->n - 1; i >= 0; i--) {
        uint64_t cur = (uint64_t)x->limb[i] * m + carry;
        x->limb[i] = (uint32_t)(cur % BASE);
        carry = cur / BASE;
    }
    x->first = 0;
    while (x->first < x->n && x->limb[x->first] == 0)
        x->first++;
}

/* x += y (sign > 0) or x -= y (sign < 0; x must stay non-negative). */
static void fixed_add(struct fixed *x, const struct fixed *y, int sign)
{
    uint32_t carry = 0;
    for (int i = x->n - 1; i >= y->first; i--) {
        if (sign > 0) {
            uint32_t s = x->limb[i] + y->limb[i] + carry;
            carry = s >= BASE;
            x->limb[i] = carry ? s - BASE : s;
        } else {
            uint32_t sub = y->limb[i] + carry;
            carry = x->limb[i] < sub;
            x->limb[i] = carry ? x->limb[i] + BASE - sub : x->limb[i] - sub;
        }
    }
    for (int i = y->first - 1; carry && i >= 0; i--) {
        if (sign > 0) {
            x->limb[i] += 1;
            carry = x->limb[i] == BASE;
            if (carry)
                x->limb[i] = 0;
        } else {
            carry = x->limb[i] == 0;
            x->limb[i] = carry ? BASE - 1 : x->limb[i] - 1;
        }
    }
    if (y->first < x->first)
        x->first = y->first;
    while (x->first < x->n && x->limb[x->first] == 0)
        x->first++;
}

/* result = atan(1/inv) by its Taylor series; power and term are scratch. */
static void fixed_atan_inv(struct fixed *result, struct fixed *power, struct fixed *term, uint32_t inv)
{
    fixed_set(power, 1);
    fixed_div(power, inv);
    memcpy(result->limb, power->limb, (size_t)power->n * sizeof *power->limb);
    result->first = power->first;
    for (uint32_t k = 1; power->first < power->n; k++) {
        fixed_div(power, inv * inv);
        memcpy(term->limb, power->limb, (size_t)power->n * sizeof *power->limb);
        term->first = power->first;
        fixed_div(term, 2 * k + 1);
        fixed_add(result, term, k % 2 ? -1 : 1);
    }
}

/* Compute pi with `digits` decimals into out (as "3" then the decimals). */
static void pi_digits(char *out, int digits)
{
    int n = digits / 9 + 3; /* two guard limbs */
    struct fixed a, b, p, t;
    struct fixed *all[] = { &a, &b, &p, &t };
    for (int i = 0; i < 4; i++) {
        all[i]->limb = bench_alloc((size_t)n * sizeof(uint32_t));
        all[i]->n = n;
    }
    fixed_atan_inv(&a, &p, &t, 5);
    fixed_atan_inv(&b, &p, &t, 239);
    fixed_mul(&a, 16);
    fixed_mul(&b, 4);
    fixed_add(&a, &b, -1);
    int o = sprintf(out, "%u", a.limb[0]);
    for (int i = 1; i < n && o < digits + 1; i++)
        o += sprintf(out + o, "%09u", a.limb[i]);
    out[digits + 1] = '\0';
    for (int i = 0; i < 4; i++)
        free(all[i]->limb);
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 11);
    static const char known[] = "314159265358979323846264338327950288419716939937510";
    uint64_t sum = BENCH_CHECKSUM_INIT;
    char *digits = NULL;
    int d = 0;
    for (int r = 0; r < rounds; r++) {
        d = 2500 + 7 * r;
        free(digits);
        digits = bench_alloc((size_t)d + 32);
        pi_digits(digits, d);
        if (strncmp(digits, known, sizeof known - 1) != 0) {
            fprintf(stderr, "pidigits: wrong digits: %.50s\n", digits);
            return 1;
        }
        sum = bench_mix_bytes(sum, digits, (size_t)d + 1);
    }
    printf("pidigits: %d rounds, %d decimals\n", rounds, d);
    printf("pi = %.1s.%.40s...%s\n", digits, digits + 1, digits + d + 1 - 40);
    free(digits);
    bench_print_checksum(sum);
    return 0;
}
